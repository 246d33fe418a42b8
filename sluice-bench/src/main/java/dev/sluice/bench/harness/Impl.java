package dev.sluice.bench.harness;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The implementations a workload can compare, its arms. The order they are declared in is the one
 * order arms have everywhere: they alternate in it (A B C A B C ...), and tables and JSON list them
 * in it. Sluice comes first: every other arm's ratio is Sluice/arm.
 */
public enum Impl {
  SLUICE("sluice", "Sluice"),
  /** Netty's NIO transport; its TLS is {@code SslHandler} on the JDK's SSLEngine. */
  NETTY("netty", "Netty"),
  /**
   * Netty as {@link #NETTY} on its native epoll transport (netty-transport-native-epoll); the arm
   * fails, naming Netty's reason, where that transport does not load: it never runs on NIO. Where a
   * proxy workload terminates TLS, its {@code SslHandler} is on OpenSSL as {@link
   * #NETTY_OPENSSL}'s: native transport and native TLS, what a Netty user on Linux runs.
   */
  NETTY_EPOLL("netty-epoll", "Netty epoll"),
  /** Netty as {@link #NETTY}, with {@code SslHandler} on OpenSSL (netty-tcnative's BoringSSL). */
  NETTY_OPENSSL("netty-openssl", "Netty OpenSSL"),
  /** HAProxy (Debian's package), a proxy process of its own: the proxy workloads' third arm. */
  HAPROXY("haproxy", "HAProxy"),
  /** nginx (Debian's package) as a reverse proxy: an arm of the HTTP proxy workloads. */
  NGINX("nginx", "nginx");

  private final String id;
  private final String displayName;

  Impl(String id, String displayName) {
    this.id = id;
    this.displayName = displayName;
  }

  /** The lower-case id used on the command line and in JSON. */
  public String id() {
    return id;
  }

  /** The name for tables and progress lines. */
  public String displayName() {
    return displayName;
  }

  /**
   * Parses an id.
   *
   * @throws IllegalArgumentException naming the accepted ids
   */
  public static Impl parse(String id) {
    for (Impl impl : values()) {
      if (impl.id.equals(id)) {
        return impl;
      }
    }
    throw new IllegalArgumentException(
        "unknown implementation '" + id + "'; expected one of " + ids(EnumSet.allOf(Impl.class)));
  }

  /**
   * The arms an {@code --impl} value selects out of {@code supported}: {@code all}, one id, or ids
   * separated by commas; in declaration order whatever order they were given in.
   *
   * @throws IllegalArgumentException saying what was expected, or which arm {@code workload} lacks
   */
  public static List<Impl> select(String value, Set<Impl> supported, String workload) {
    if (value.equals("all")) {
      return inOrder(supported);
    }
    Set<Impl> chosen = EnumSet.noneOf(Impl.class);
    for (String id : value.split(",", -1)) {
      Impl impl;
      try {
        impl = parse(id.trim());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "--impl expects all, or one or more of "
                + ids(supported)
                + " separated by commas, got '"
                + value
                + "'");
      }
      if (!supported.contains(impl)) {
        throw new IllegalArgumentException(
            workload + " has no arm " + impl.id + "; its arms: " + ids(supported));
      }
      chosen.add(impl);
    }
    return inOrder(chosen);
  }

  /** {@code impls} without repeats, in declaration order. */
  public static List<Impl> inOrder(Iterable<Impl> impls) {
    Set<Impl> set = EnumSet.noneOf(Impl.class);
    impls.forEach(set::add);
    return List.copyOf(set); // an EnumSet iterates in declaration order
  }

  /** The ids of {@code impls}, comma separated, in declaration order. */
  public static String ids(Set<Impl> impls) {
    return inOrder(impls).stream().map(Impl::id).collect(Collectors.joining(", "));
  }

  /** What a workload's switch over arms throws for an arm it does not have. */
  public static IllegalArgumentException unsupported(String workload, Impl impl) {
    return new IllegalArgumentException(workload + " has no arm " + impl.id);
  }

  /** The arms most workloads have: Sluice, and Netty on NIO and on native epoll. */
  public static Set<Impl> sluiceAndNetty() {
    return EnumSet.of(SLUICE, NETTY, NETTY_EPOLL);
  }
}
