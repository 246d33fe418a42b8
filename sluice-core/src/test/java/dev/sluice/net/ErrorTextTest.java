package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.testing.ChildJvm;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The transport's callers classify its errors by their text ("Connection reset", "Broken pipe",
 * "Too many open files", "refused"): on a server whose locale asks for German, the C library's
 * strerror says them in German. The epoll transport words its socket errors in English whatever the
 * locale; NIO's texts are the JDK's own.
 */
class ErrorTextTest {
  @Test
  void aPeersResetAndARefusedConnectAreToldInEnglishUnderAGermanLocale() throws Exception {
    ChildJvm.Run run =
        ChildJvm.run(
            Duration.ofMinutes(1),
            Map.of("LANG", "C.UTF-8", "LANGUAGE", "de"),
            List.of("--enable-native-access=ALL-UNNAMED"),
            ErrorTextProbe.class);
    assertThat(run.exitCode()).as("%s", run).isZero();
    assumeTrue(
        !run.results().get("cText").startsWith("Connection reset"),
        "this machine's C library has no German texts (Debian: libc-l10n)");
    assumeTrue(run.results().get("transport").equals("EPOLL"), "NIO's texts are the JDK's");

    assertThat(run.results().get("refused")).as("%s", run).contains("Connection refused");
    assertThat(run.results().get("reset")).as("%s", run).startsWith("PeerReset");
  }
}
