package dev.sluice.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ProcStatusTest {
  private static final String STATUS =
      """
      Name:\tjava
      Umask:\t0022
      State:\tS (sleeping)
      Pid:\t4242
      VmPeak:\t 4123456 kB
      VmSize:\t 4012345 kB
      VmLck:\t       0 kB
      VmHWM:\t  201234 kB
      VmRSS:\t  187654 kB
      RssAnon:\t  150000 kB
      Threads:\t19
      """;

  @Test
  void readsRssAndHwmInBytes() {
    ProcStatus status = ProcStatus.parse(STATUS);
    assertThat(status.vmRssBytes()).isEqualTo(187654L * 1024);
    assertThat(status.vmHwmBytes()).isEqualTo(201234L * 1024);
  }

  @Test
  void doesNotConfuseVmRssWithRssAnon() {
    String reordered = STATUS.replace("VmRSS:\t  187654 kB\n", "") + "VmRSS:\t 5 kB\n";
    assertThat(ProcStatus.parse(reordered).vmRssBytes()).isEqualTo(5 * 1024);
  }

  @Test
  void aMissingLineIsAClearError() {
    assertThatThrownBy(() -> ProcStatus.parse("Name:\tjava\nVmHWM:\t 1 kB\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("VmRSS");
  }

  @Test
  void anUnexpectedUnitIsAClearError() {
    assertThatThrownBy(() -> ProcStatus.parse("VmRSS:\t 1 MB\nVmHWM:\t 1 kB\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("VmRSS");
  }

  @Test
  void readsThisProcessFromProc() throws Exception {
    ProcStatus self = ProcStatus.read(ProcessHandle.current().pid());
    assertThat(self.vmRssBytes()).isPositive();
    assertThat(self.vmHwmBytes()).isGreaterThanOrEqualTo(self.vmRssBytes());
  }
}
