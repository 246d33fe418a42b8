package dev.sluice.bench.child;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.bench.harness.Impl;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.Test;

class NettyTransportTest {

  @Test
  void eachNettyArmHasItsTransportAndOtherArmsNone() {
    assertThat(NettyTransport.of(Impl.NETTY)).isEqualTo(NettyTransport.NIO);
    assertThat(NettyTransport.of(Impl.NETTY_OPENSSL)).isEqualTo(NettyTransport.NIO);
    assertThat(NettyTransport.of(Impl.NETTY_EPOLL)).isEqualTo(NettyTransport.EPOLL);
    assertThat(NettyTransport.NIO.socketChannel()).isEqualTo(NioSocketChannel.class);
    assertThat(NettyTransport.EPOLL.socketChannel()).isEqualTo(EpollSocketChannel.class);
    assertThatThrownBy(() -> NettyTransport.of(Impl.HAPROXY))
        .hasMessage("haproxy is not a Netty arm");
  }

  @Test
  void anUnknownTransportSaysWhatIsAccepted() {
    assertThat(NettyTransport.parse("epoll")).isEqualTo(NettyTransport.EPOLL);
    assertThatThrownBy(() -> NettyTransport.parse("kqueue"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--transport is nio or epoll, got 'kqueue'");
  }

  /** The bench ships the linux-x86_64 native library, so on this platform the arm must load. */
  @Test
  void theNativeEpollTransportLoadsFromTheBenchDependencies() {
    assertThat(Epoll.unavailabilityCause()).isNull();
    NettyTransport.requireEpoll();
    NettySupport.shutdown(NettySupport.group(NettyTransport.EPOLL, 1));
  }
}
