package dev.sluice.proxy.forward;

import dev.sluice.net.Connection;
import java.nio.ByteBuffer;

/**
 * The raw pipe: the upstream is connected as soon as the client is in, every read goes to the peer
 * as it came, and an end of input on one side shuts down the other's output. Stateless: one
 * instance serves every pair.
 */
enum RawRelay implements Relay {
  INSTANCE;

  @Override
  public void start(Pair pair) {
    pair.connectUpstream();
  }

  @Override
  public void onRead(Leg from, ByteBuffer data) {
    from.forward(data);
  }

  @Override
  public void onUpstreamActive(Pair pair) {
    pair.client().startForwarding();
    pair.upstream().startForwarding();
    if (pair.client().ended()) {
      pair.upstream().shutdownOutput(); // the client ended while we connected
    }
  }

  @Override
  public Connection spliceTarget(Leg from) {
    return SpliceForward.target(from);
  }

  @Override
  public void onEnded(Leg leg) {
    if (leg.pair().forwarding()) {
      leg.peer().shutdownOutput(); // once its pending bytes are flushed
    }
  }
}
