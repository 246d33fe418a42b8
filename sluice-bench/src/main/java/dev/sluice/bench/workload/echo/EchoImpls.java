package dev.sluice.bench.workload.echo;

import dev.sluice.bench.child.NettyTransport;
import dev.sluice.bench.harness.Impl;

/** The {@link EchoClients} of each implementation. */
final class EchoImpls {
  private EchoImpls() {}

  static EchoClients create(Impl impl, EchoSetup setup) {
    return switch (impl) {
      case SLUICE -> new SluiceEchoClients(setup);
      case NETTY, NETTY_EPOLL -> new NettyEchoClients(setup, NettyTransport.of(impl));
      default -> throw Impl.unsupported("the echo workloads", impl);
    };
  }
}
