package dev.sluice.proxy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Listener and upstream addresses: host:port, [v6]:port and unix:/path, and what is refused. */
class EndpointTest {

  @Test
  void parsesHostAndPort() {
    assertThat(Endpoint.parse("127.0.0.1:7000")).isEqualTo(new Endpoint.Tcp("127.0.0.1", 7000));
    assertThat(Endpoint.parse("localhost:0")).isEqualTo(new Endpoint.Tcp("localhost", 0));
    assertThat(Endpoint.parse("upstream.example.com:65535"))
        .isEqualTo(new Endpoint.Tcp("upstream.example.com", 65535));
    assertThat(Endpoint.parse(" 127.0.0.1:7000 ")).isEqualTo(new Endpoint.Tcp("127.0.0.1", 7000));
  }

  @Test
  void parsesABracketedIpv6Address() {
    assertThat(Endpoint.parse("[::1]:7000")).isEqualTo(new Endpoint.Tcp("::1", 7000));
    assertThat(Endpoint.parse("[2001:db8::17]:443"))
        .isEqualTo(new Endpoint.Tcp("2001:db8::17", 443));
  }

  @Test
  void parsesAUnixSocketPath() {
    assertThat(Endpoint.parse("unix:/run/sluice/upstream.sock"))
        .isEqualTo(new Endpoint.Unix(Path.of("/run/sluice/upstream.sock")));
    assertThat(Endpoint.parse("unix:relative.sock"))
        .isEqualTo(new Endpoint.Unix(Path.of("relative.sock")));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "127.0.0.1:7000",
        "localhost:0",
        "[::1]:7000",
        "[2001:db8::17]:443",
        "unix:/run/sluice/upstream.sock"
      })
  void toStringIsTheConfigurationSpellingAndParsesBack(String text) {
    Endpoint endpoint = Endpoint.parse(text);
    assertThat(endpoint).hasToString(text);
    assertThat(Endpoint.parse(endpoint.toString())).isEqualTo(endpoint);
  }

  @Test
  void socketAddressesAreOfTheRightKind() {
    assertThat(Endpoint.parse("127.0.0.1:7000").socketAddress())
        .isEqualTo(new InetSocketAddress("127.0.0.1", 7000));
    assertThat(Endpoint.parse("[::1]:7000").socketAddress())
        .isEqualTo(new InetSocketAddress("::1", 7000));
    assertThat(Endpoint.parse("unix:/run/sluice/upstream.sock").socketAddress())
        .isEqualTo(UnixDomainSocketAddress.of("/run/sluice/upstream.sock"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"127.0.0.1", "localhost", "127.0.0.1:", ":7000", "", "   "})
  void anAddressWithoutHostOrPortIsRefused(String text) {
    assertThatThrownBy(() -> Endpoint.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + text + "' is not an address")
        .hasMessageContaining("host:port, [ipv6]:port or unix:/path");
  }

  @ParameterizedTest
  @ValueSource(strings = {"localhost:http", "localhost:7000x", "localhost:70 00", "[::1]:port"})
  void aPortThatIsNotANumberIsRefused(String text) {
    assertThatThrownBy(() -> Endpoint.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no port number");
  }

  @ParameterizedTest
  @ValueSource(strings = {"localhost:70000", "localhost:65536", "localhost:-1", "[::1]:99999"})
  void aPortOutOfRangeIsRefused(String text) {
    assertThatThrownBy(() -> Endpoint.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("port must be 0..65535");
  }

  @ParameterizedTest
  @ValueSource(strings = {"::1", "::1:7000", "2001:db8::17:443", "fe80::1%eth0:80"})
  void aBareIpv6AddressIsRefusedAskingForBrackets(String text) {
    assertThatThrownBy(() -> Endpoint.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("in brackets")
        .hasMessageContaining("[::1]:7000");
  }

  @Test
  void aBracketedIpv6AddressWithoutAPortIsRefusedForTheMissingPort() {
    // "[::1]" is written in brackets already: the message must not ask for brackets.
    assertThatThrownBy(() -> Endpoint.parse("[::1]"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("port")
        .hasMessageNotContaining("in brackets");
  }

  @Test
  void emptyBracketsAreNoHost() {
    // ":7000" is refused for having no host; "[]:7000" has none either.
    assertThatThrownBy(() -> Endpoint.parse("[]:7000"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'[]:7000'");
  }

  @ParameterizedTest
  @ValueSource(strings = {"unix:", " unix: "})
  void aUnixAddressWithoutAPathIsRefused(String text) {
    assertThatThrownBy(() -> Endpoint.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("names no socket file");
  }
}
