package dev.sluice.proxy.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file watcher: a change of a watched file is reported once its burst of writes is over. */
class ConfigWatcherTest {
  @TempDir Path dir;

  @Test
  void anEditIsReportedWhileAnotherFileInTheDirectoryKeepsChanging() throws Exception {
    Path config = Files.writeString(dir.resolve("sluice.yaml"), "before\n");
    Path accessLog = dir.resolve("access.log");
    AtomicInteger changes = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger appended = new AtomicInteger();
    ConfigWatcher watcher =
        ConfigWatcher.start(
            Set.of(config.toAbsolutePath()), Duration.ofMillis(500), changes::incrementAndGet);
    // An access log next to the configuration, written every 100 ms, as under steady traffic.
    Thread writer =
        Thread.ofPlatform()
            .start(
                () -> {
                  while (!stop.get()) {
                    try {
                      Files.writeString(
                          accessLog,
                          "a line\n",
                          StandardOpenOption.CREATE,
                          StandardOpenOption.APPEND);
                      appended.incrementAndGet();
                      Thread.sleep(100);
                    } catch (IOException e) {
                      throw new UncheckedIOException(e);
                    } catch (InterruptedException e) {
                      return;
                    }
                  }
                });
    try {
      Await.until(() -> appended.get() >= 3, () -> "the access log to be written");
      Files.writeString(config, "after\n");
      Await.until(
          () -> changes.get() >= 1, () -> "the edit reported while the access log is written");
      assertThat(writer.isAlive()).as("the access log was written all along").isTrue();
    } finally {
      stop.set(true);
      writer.join();
      watcher.close();
    }
  }
}
