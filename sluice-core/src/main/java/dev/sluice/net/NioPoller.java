package dev.sluice.net;

import java.io.IOException;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** The JDK's {@link Selector}: the portable transport. */
final class NioPoller implements Poller {
  private final Selector selector;
  private final Consumer<SelectionKey> onSelected = this::onSelected;
  private ReadySink sink;

  NioPoller() throws IOException {
    this.selector = Selector.open();
  }

  Selector selector() {
    return selector;
  }

  @Override
  public Transport transport() {
    return Transport.NIO;
  }

  @Override
  public void poll(long timeoutMillis, ReadySink sink) throws IOException {
    this.sink = sink;
    if (timeoutMillis == 0) {
      selector.selectNow(onSelected);
    } else if (timeoutMillis < 0) {
      selector.select(onSelected);
    } else {
      selector.select(onSelected, timeoutMillis);
    }
  }

  private void onSelected(SelectionKey key) {
    if (key.isValid() && key.attachment() instanceof Pollable pollable) {
      sink.ready(pollable, key.readyOps());
    }
  }

  @Override
  public void wakeup() {
    selector.wakeup();
  }

  @Override
  public List<Pollable> registrations() {
    List<Pollable> all = new ArrayList<>();
    for (SelectionKey key : selector.keys()) {
      if (key.attachment() instanceof Pollable pollable) {
        all.add(pollable);
      }
    }
    return all;
  }

  @Override
  public StreamSocket openStream(SocketAddress remote) throws IOException {
    return new NioStreamSocket(
        remote instanceof UnixDomainSocketAddress
            ? SocketChannel.open(StandardProtocolFamily.UNIX)
            : SocketChannel.open());
  }

  @Override
  public void close() {
    try {
      selector.close(); // closes the sockets of every cancelled key
    } catch (IOException ignored) {
      // nothing is left to watch
    }
  }
}
