package dev.sluice.proxy.cluster;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/** Turns an upstream's host name into its addresses (the JDK's resolver, or a test's). */
@FunctionalInterface
public interface Resolver {
  /** The JDK's resolver (the operating system's, through InetAddress). */
  Resolver SYSTEM = host -> List.of(InetAddress.getAllByName(host));

  /** Every address of {@code host}. Blocking: never called on an event loop. */
  List<InetAddress> resolve(String host) throws UnknownHostException;
}
