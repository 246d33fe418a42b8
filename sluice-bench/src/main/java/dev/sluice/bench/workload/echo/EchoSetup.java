package dev.sluice.bench.workload.echo;

import dev.sluice.bench.child.Integrity;
import java.net.InetSocketAddress;

/**
 * What an {@link EchoClients} implementation is built from.
 *
 * @param peer the echo peer's address
 * @param loops event loop threads
 * @param maxMessage the largest message any round sends
 * @param integrity where verification failures go
 */
record EchoSetup(InetSocketAddress peer, int loops, int maxMessage, Integrity integrity) {}
