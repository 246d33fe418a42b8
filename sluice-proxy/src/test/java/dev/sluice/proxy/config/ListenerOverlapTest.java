package dev.sluice.proxy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Two listeners of one configuration never bind overlapping addresses: TCP listeners set
 * SO_REUSEPORT, so both would bind and the kernel would split connections between them (one address
 * spelled twice, 127.0.0.1:P and localhost:P, once split 30 connections 18/12 between two
 * clusters). Addresses are compared resolved, a wildcard overlaps every address on its port, and
 * each refusal names both listeners, with file, line and field.
 */
class ListenerOverlapTest {
  private static final String FILE = "sluice.yaml";

  @TempDir Path dir;

  private ProxyConfig read(String first, String second) throws ConfigException {
    return ConfigReader.read(yaml(first, second), FILE, dir);
  }

  private static String yaml(String first, String second) {
    return """
        listeners:
          - name: a
            address: "%s"
            cluster: one
          - name: b
            address: "%s"
            cluster: two
        clusters:
          - {name: one, upstreams: [{address: "127.0.0.1:7101"}]}
          - {name: two, upstreams: [{address: "127.0.0.1:7102"}]}
        """
        .formatted(first, second);
  }

  private List<Problem> problems(String yaml) {
    ConfigException e =
        catchThrowableOfType(ConfigException.class, () -> ConfigReader.read(yaml, FILE, dir));
    assertThat(e).as("refused:\n%s", yaml).isNotNull();
    return e.problems();
  }

  @ParameterizedTest(name = "{0} and {1} overlap")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          127.0.0.1:7000 | localhost:7000          | both are 127.0.0.1:7000
          127.0.0.1:7000 | 127.0.0.1:7000          | both are 127.0.0.1:7000
          127.0.0.1:7000 | [::ffff:127.0.0.1]:7000 | both are 127.0.0.1:7000
          [::1]:7000     | [0:0::1]:7000           | both are [::1]:7000
          0.0.0.0:7000   | 127.0.0.1:7000          | a wildcard address takes port 7000
          127.0.0.1:7000 | 0.0.0.0:7000            | a wildcard address takes port 7000
          [::]:7000      | 127.0.0.1:7000          | a wildcard address takes port 7000
          [::]:7000      | [::1]:7000              | a wildcard address takes port 7000
          0.0.0.0:7000   | [::1]:7000              | a wildcard address takes port 7000
          [::]:7000      | 0.0.0.0:7000            | a wildcard address takes port 7000
          0.0.0.0:7000   | 0.0.0.0:7000            | both are 0.0.0.0:7000
          """)
  void twoListenersOnOneAddressAndPortAreRefusedNamingBoth(
      String first, String second, String why) {
    assertThat(problems(yaml(first, second)))
        .singleElement()
        .hasToString(
            FILE
                + ":6: listeners[1].address: listener 'b' on "
                + Endpoint.parse(second)
                + " overlaps listener 'a' on "
                + Endpoint.parse(first)
                + " (line 3): "
                + why
                + (why.startsWith("both")
                    ? ": give each its own address or port"
                    : " on every local address, IPv4 and IPv6: give each its own port"));
  }

  @ParameterizedTest(name = "{0} and {1} are distinct")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          127.0.0.1:7000 | 127.0.0.1:7001
          localhost:7000 | localhost:7001
          127.0.0.1:7000 | 127.0.0.2:7000
          127.0.0.1:7000 | [::1]:7000
          0.0.0.0:7000   | 0.0.0.0:7001
          [::]:7000      | 127.0.0.1:7001
          127.0.0.1:0    | localhost:0
          0.0.0.0:0      | 127.0.0.1:0
          unix:a.sock    | unix:b.sock
          unix:a.sock    | 127.0.0.1:7000
          """)
  void distinctAddressesOrPortsAreAllowed(String first, String second) throws Exception {
    assertThat(read(first, second).listeners()).hasSize(2);
  }

  @Test
  void twoSpellingsOfOneSocketFileAreRefused() {
    Path socket = dir.resolve("app.sock");
    String[][] spellings = {
      {"unix:app.sock", "unix:" + socket},
      {"unix:" + socket, "unix:" + dir.resolve("sub/../app.sock")},
      {"unix:./app.sock", "unix:app.sock"},
    };
    for (String[] pair : spellings) {
      assertThat(problems(yaml(pair[0], pair[1])))
          .singleElement()
          .hasToString(
              FILE
                  + ":6: listeners[1].address: listener 'b' on unix:"
                  + socket
                  + " overlaps listener 'a' on unix:"
                  + socket
                  + " (line 3): one socket file");
    }
  }

  @Test
  void theAdminListenerMayNotOverlapAListenerEither() {
    String yaml = yaml("127.0.0.1:7000", "127.0.0.1:7001") + "admin: {address: localhost:7000}\n";
    assertThat(problems(yaml))
        .singleElement()
        .hasToString(
            FILE
                + ":11: admin.address: the admin listener on localhost:7000 overlaps listener 'a'"
                + " on 127.0.0.1:7000 (line 3): both are 127.0.0.1:7000: give each its own"
                + " address or port");
  }

  @Test
  void aListenerHostThatDoesNotResolveIsRefusedWhereItIsWritten() {
    assertThat(problems(yaml("127.0.0.1:7000", "no-such-host.invalid:7000")))
        .singleElement()
        .hasToString(
            FILE
                + ":6: listeners[1].address: the host 'no-such-host.invalid' does not resolve:"
                + " nothing to listen on");
  }
}
