package dev.sluice.bench.workload.echo;

import dev.sluice.bench.harness.Impl;

/** The {@link EchoClients} of each implementation. */
final class EchoImpls {
  private EchoImpls() {}

  static EchoClients create(Impl impl, EchoSetup setup) {
    return switch (impl) {
      case SLUICE -> new SluiceEchoClients(setup);
      case NETTY -> new NettyEchoClients(setup);
      default -> throw Impl.unsupported("the echo workloads", impl);
    };
  }
}
