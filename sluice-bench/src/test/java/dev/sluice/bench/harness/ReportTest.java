package dev.sluice.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.testing.JsonReader;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReportTest {
  private static final List<Field> FIELDS =
      List.of(
          new Field("heldBytes", Unit.BYTES, "held"),
          new Field("points.4096", Unit.MIB_PER_SEC, "a point"));
  private static final Params PARAMS = Params.of(Map.of("size", "1400"));
  private static final List<String> FLAGS = List.of("-XX:+UseSerialGC", "-Xmx256m");

  private static ArmSummary arm(Impl impl, boolean ok, double... held) {
    List<RunResult> runs =
        java.util.Arrays.stream(held)
            .mapToObj(h -> RunResult.of(Map.of("heldBytes", h, "points.4096", h / 10), ok, "bad"))
            .toList();
    return ArmSummary.of(impl, FIELDS, runs);
  }

  @Test
  void oneArmPutsItsMediansAtTopLevel() {
    Report report =
        new Report(
            "retention",
            PARAMS,
            FLAGS,
            FIELDS,
            List.of(arm(Impl.NETTY, true, 30, 10, 20)),
            Map.of());
    Map<String, Object> json = JsonReader.object(report.json());
    assertThat(json)
        .containsEntry("workload", "retention")
        .containsEntry("impl", "netty")
        .containsEntry("runs", 3.0)
        .containsEntry("integrity", "OK")
        .containsEntry("heldBytes", 20.0)
        .containsEntry("points", Map.of("4096", 2.0))
        .containsEntry("min", Map.of("heldBytes", 10.0, "points", Map.of("4096", 1.0)))
        .containsEntry("max", Map.of("heldBytes", 30.0, "points", Map.of("4096", 3.0)))
        .containsEntry("params", Map.of("size", "1400"))
        .containsEntry("jvmFlags", List.of("-XX:+UseSerialGC", "-Xmx256m"))
        .doesNotContainKeys("arms", "ratios");
  }

  @Test
  @SuppressWarnings("unchecked")
  void twoArmsNestUnderArmsWithSluiceOverNettyRatios() {
    Report report =
        new Report(
            "retention",
            PARAMS,
            FLAGS,
            FIELDS,
            List.of(arm(Impl.SLUICE, true, 10, 10, 10), arm(Impl.NETTY, true, 40, 40, 40)),
            Map.of(Impl.SLUICE, Map.of("cliffs", List.of())));
    Map<String, Object> json = JsonReader.object(report.json());
    assertThat(json).containsEntry("integrity", "OK").containsEntry("runs", 3.0);
    Map<String, Object> arms = (Map<String, Object>) json.get("arms");
    assertThat(arms).containsOnlyKeys("sluice", "netty");
    Map<String, Object> sluice = (Map<String, Object>) arms.get("sluice");
    assertThat(sluice)
        .containsEntry("impl", "sluice")
        .containsEntry("integrity", "OK")
        .containsEntry("heldBytes", 10.0)
        .containsEntry("cliffs", List.of());
    assertThat((Map<String, Object>) arms.get("netty")).containsEntry("heldBytes", 40.0);
    assertThat(json.get("ratios"))
        .isEqualTo(Map.of("netty", Map.of("heldBytes", 0.25, "points", Map.of("4096", 0.25))));
  }

  @Test
  @SuppressWarnings("unchecked")
  void threeArmsCarryEveryArmAndSluiceOverEachOther() {
    ArmSummary openSsl =
        ArmSummary.of(
            Impl.NETTY_OPENSSL,
            FIELDS,
            List.of(
                RunResult.ok(Map.of("heldBytes", 20.0, "points.4096", 8.0))
                    .withNotes(Map.of("tlsLibrary", "BoringSSL"))));
    Report report =
        new Report(
            "tlsretention",
            PARAMS,
            FLAGS,
            FIELDS,
            List.of(arm(Impl.SLUICE, true, 10), arm(Impl.NETTY, true, 40), openSsl),
            Map.of());
    Map<String, Object> json = JsonReader.object(report.json());
    Map<String, Object> arms = (Map<String, Object>) json.get("arms");
    assertThat(arms.keySet()).containsExactly("sluice", "netty", "netty-openssl");
    assertThat((Map<String, Object>) arms.get("netty-openssl"))
        .containsEntry("impl", "netty-openssl")
        .containsEntry("heldBytes", 20.0)
        .containsEntry("tlsLibrary", "BoringSSL");
    assertThat(json.get("ratios"))
        .isEqualTo(
            Map.of(
                "netty", Map.of("heldBytes", 0.25, "points", Map.of("4096", 0.25)),
                "netty-openssl", Map.of("heldBytes", 0.5, "points", Map.of("4096", 0.125))));

    List<String> lines = report.table().lines().toList();
    String header = lines.stream().filter(l -> l.startsWith("field")).findFirst().orElseThrow();
    assertThat(header)
        .containsSubsequence(
            "Sluice", "Netty", "Netty OpenSSL", "Sluice/Netty", "Sluice/Netty OpenSSL");
    String held = lines.stream().filter(l -> l.startsWith("heldBytes")).findFirst().orElseThrow();
    assertThat(held).containsSubsequence("10 B [10 B .. 10 B]", "40 B", "20 B", "0.25", "0.50");
    assertThat(held.indexOf("0.25")).isEqualTo(header.indexOf("Sluice/Netty "));
    assertThat(report.table())
        .contains("Netty OpenSSL tlsLibrary: BoringSSL")
        .contains("integrity: Sluice OK, Netty OK, Netty OpenSSL OK");
  }

  @Test
  void withoutSluiceThereAreNoRatios() {
    Report report =
        new Report(
            "tlsidle",
            PARAMS,
            FLAGS,
            FIELDS,
            List.of(arm(Impl.NETTY, true, 40), arm(Impl.NETTY_OPENSSL, true, 20)),
            Map.of());
    assertThat(JsonReader.object(report.json())).containsKey("arms").doesNotContainKey("ratios");
    assertThat(report.table()).doesNotContain("Sluice/");
  }

  @Test
  @SuppressWarnings("unchecked")
  void oneFailedArmFailsTheWholeReportAndListsWhy() {
    Report report =
        new Report(
            "bulk",
            PARAMS,
            FLAGS,
            FIELDS,
            List.of(arm(Impl.SLUICE, true, 1), arm(Impl.NETTY, false, 1)),
            Map.of());
    assertThat(report.integrityOk()).isFalse();
    Map<String, Object> json = JsonReader.object(report.json());
    assertThat(json).containsEntry("integrity", "FAIL");
    Map<String, Object> netty =
        (Map<String, Object>) ((Map<String, Object>) json.get("arms")).get("netty");
    assertThat(netty).containsEntry("integrity", "FAIL").containsEntry("failures", List.of("bad"));
    assertThat(report.table()).contains("Netty FAIL");
  }

  @Test
  void theTableShowsMedianMinMaxAndTheRatio() {
    Report report =
        new Report(
            "retention",
            PARAMS,
            FLAGS,
            FIELDS,
            List.of(arm(Impl.SLUICE, true, 1024, 2048, 3072), arm(Impl.NETTY, true, 4096)),
            Map.of());
    String table = report.table();
    assertThat(table)
        .contains("2.0 KiB [1.0 KiB .. 3.0 KiB]")
        .contains("0.50")
        .contains("-XX:+UseSerialGC -Xmx256m")
        .contains("Sluice OK, Netty OK");
  }

  @Test
  void jsonEscapesTextAndWritesIntegralNumbersPlainly() {
    assertThat(Json.write(Map.of("s", "a\"b\\c\nd"))).isEqualTo("{\"s\":\"a\\\"b\\\\c\\nd\"}");
    assertThat(Json.write(List.of(28000000.0, 0.5, 1.0 / 3, Double.NaN)))
        .isEqualTo("[28000000,0.5,0.333333,null]");
  }
}
