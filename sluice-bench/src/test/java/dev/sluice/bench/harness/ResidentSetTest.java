package dev.sluice.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ResidentSetTest {
  private static final String STATUS =
      """
      Name:\tjava
      VmHWM:\t  201234 kB
      VmRSS:\t  187654 kB
      RssAnon:\t  150000 kB
      RssFile:\t   37000 kB
      RssShmem:\t     654 kB
      Threads:\t19
      """;

  @Test
  void readsTheSplitInBytesAndTheThreads() {
    ResidentSet rss = ResidentSet.parse(STATUS);
    assertThat(rss.vmRssBytes()).isEqualTo(187654L * 1024);
    assertThat(rss.anonBytes()).isEqualTo(150000L * 1024);
    assertThat(rss.fileBytes()).isEqualTo(37000L * 1024);
    assertThat(rss.shmemBytes()).isEqualTo(654L * 1024);
    assertThat(rss.threads()).isEqualTo(19);
  }

  @Test
  void aMissingLineIsAClearError() {
    assertThatThrownBy(() -> ResidentSet.parse(STATUS.replace("RssFile:\t   37000 kB\n", "")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("RssFile");
  }

  @Test
  void aTreeAddsUpTheProcessAndItsChildren() throws Exception {
    Process shell = new ProcessBuilder("sh", "-c", "sleep 30 & sleep 30 & wait").start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (shell.descendants().count() < 2 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      ResidentSet alone = ResidentSet.of(shell.pid());
      ResidentSet tree = ResidentSet.ofTree(shell.pid());
      assertThat(tree.processes()).isEqualTo(3);
      assertThat(tree.vmRssBytes()).isGreaterThan(alone.vmRssBytes());
      assertThat(tree.threads()).isEqualTo(3);
    } finally {
      shell.descendants().forEach(ProcessHandle::destroyForcibly);
      shell.destroyForcibly();
    }
  }
}
