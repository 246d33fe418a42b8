package dev.sluice.proxy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Networks and address literals in a configuration are read strictly, never by the resolver: its
 * inet_aton short forms make {@code 127/8} 0.0.0.127/8 and {@code 192.168.1/24} 192.168.0.1/24, and
 * it looks hex-only names up in DNS. Each refusal names file, line and field.
 */
class NetworkTextTest {
  private static final String FILE = "sluice.yaml";

  @TempDir Path dir;

  private static String withNetwork(String field, String network) {
    String section =
        field.equals("trustedSources")
            ? "    proxyProtocol:\n      trustedSources: [\"%s\"]\n"
            : "    limits:\n      " + field + ": [\"%s\"]\n";
    return """
        listeners:
          - name: front
            address: 127.0.0.1:7000
            cluster: echo
        %s\
        clusters:
          - {name: echo, upstreams: [{address: "127.0.0.1:7001"}]}
        """
        .formatted(section.formatted(network));
  }

  private List<Problem> problems(String yaml) {
    ConfigException e =
        catchThrowableOfType(ConfigException.class, () -> ConfigReader.read(yaml, FILE, dir));
    assertThat(e).as("refused:\n%s", yaml).isNotNull();
    return e.problems();
  }

  @ParameterizedTest(name = "{0} is refused")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          127/8               | needs all four numbers
          192.168.1/24        | needs all four numbers
          10                  | needs all four numbers
          0x7f000001/32       | host names are not looked up
          cafe/16             | host names are not looked up
          a.b.c.d/8           | host names are not looked up
          localhost/8         | host names are not looked up
          localhost           | host names are not looked up
          +1.2.3.4/32         | host names are not looked up
          1.2.3.4.5/32        | host names are not looked up
          1:2:3:4:5:6:7:8:9/128 | host names are not looked up
          ::1::2/128          | host names are not looked up
          1.2.3.256/32        | four decimal numbers 0..255 without leading zeros
          01.2.3.4/32         | four decimal numbers 0..255 without leading zeros
          10.0.0.1/33         | the prefix length must be 0..32
          ::1/129             | the prefix length must be 0..128
          1.2.3.4/            | the prefix length is not a number 0..32
          1.2.3.4/x           | the prefix length is not a number 0..32
          1.2.3.4/+8          | the prefix length is not a number 0..32
          1.2.3.4/-1          | the prefix length is not a number 0..32
          1.2.3.4/08          | the prefix length is not a number 0..32 (no leading zeros)
          /8                  | no address before the '/'
          10.0.0.1/8          | has host bits set past the /8: write the network, 10.0.0.0/8, or one host as 10.0.0.1/32
          fd00::1/8           | has host bits set past the /8: write the network, fd00::/8, or one host as fd00::1/128
          fe80::1%eth0/64     | a zone (%name) picks an interface
          [::1]/128           | without brackets
          """)
  void aNetworkNotWrittenInFullIsRefusedWithItsPlace(String network, String why) {
    for (String field : List.of("allow", "deny", "trustedSources")) {
      String path =
          field.equals("trustedSources")
              ? "listeners[0].proxyProtocol.trustedSources[0]"
              : "listeners[0].limits." + field + "[0]";
      assertThat(problems(withNetwork(field, network)))
          .singleElement()
          .extracting(Problem::toString)
          .asString()
          .startsWith(FILE + ":6: " + path + ": '" + network + "'")
          .contains(why);
    }
  }

  @ParameterizedTest(name = "{0} holds {1}, not {2}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          127.0.0.0/8         | 127.255.0.1  | 128.0.0.1
          0.0.0.0/0           | 8.8.8.8      | ::1
          10.1.2.3            | 10.1.2.3     | 10.1.2.4
          10.1.2.2/31         | 10.1.2.3     | 10.1.2.4
          192.168.1.0/24      | 192.168.1.200 | 192.168.0.1
          ::1/128             | ::1          | ::2
          ::/0                | 2001:db8::1  | 8.8.8.8
          2001:db8::17        | 2001:db8::17 | 2001:db8::18
          FD00::/8            | fd12::1      | fe00::1
          ::ffff:10.0.0.0/104 | 10.1.2.3     | 11.0.0.1
          ::ffff:1.2.3.4      | 1.2.3.4      | 1.2.3.5
          """)
  void aNetworkWrittenInFullIsReadAsWritten(String network, String member, String stranger)
      throws Exception {
    for (String field : List.of("allow", "deny", "trustedSources")) {
      ProxyConfig config = ConfigReader.read(withNetwork(field, network), FILE, dir);
      ListenerConfig listener = config.listeners().getFirst();
      List<Cidr> read =
          switch (field) {
            case "allow" -> listener.limits().allow();
            case "deny" -> listener.limits().deny();
            default -> listener.proxyProtocol().trustedSources();
          };
      Cidr cidr = read.getFirst();
      assertThat(cidr).hasToString(network);
      assertThat(cidr.contains(InetAddress.getByName(member))).as(member).isTrue();
      assertThat(cidr.contains(InetAddress.getByName(stranger))).as(stranger).isFalse();
    }
  }

  @ParameterizedTest(name = "{0} is refused")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          127.1:7000            | 127.1 is not an IPv4 address
          0x7f000001:7000       | 0x7f000001 is not an IPv4 address
          010.0.0.1:7000        | 010.0.0.1 is not an IPv4 address
          1.2.3.256:7000        | 1.2.3.256 is not an IPv4 address
          2130706433:7000       | 2130706433 is not an IPv4 address
          [localhost]:7000      | brackets hold an IPv6 address
          [127.0.0.1]:7000      | brackets hold an IPv6 address
          """)
  void aListenerOrUpstreamAddressLiteralIsReadStrictly(String address, String why) {
    String yaml =
        """
        listeners:
          - name: front
            address: "%s"
            cluster: echo
        clusters:
          - {name: echo, upstreams: [{address: "%s"}]}
        """
            .formatted(address, address);
    assertThat(problems(yaml))
        .extracting(Problem::toString)
        .containsExactly(
            FILE + ":3: listeners[0].address: '" + address + "': " + why + suffix(why),
            FILE + ":6: clusters[0].upstreams[0].address: '" + address + "': " + why + suffix(why));
  }

  private static String suffix(String why) {
    return why.startsWith("brackets")
        ? ", as [::1]:7000 (or [fe80::1%eth0]:7000)"
        : ": write four decimal numbers 0..255 without leading zeros, as 127.0.0.1";
  }

  @Test
  void namesThatLookPartlyNumericStayNamesAndIpv6MayNameItsZone() throws Exception {
    String yaml =
        """
        listeners:
          - {name: front, address: "127.0.0.1:7000", cluster: echo}
        clusters:
          - name: echo
            upstreams:
              - {address: "cafe.be:7001"}
              - {address: "1.2.3.4.example.com:7001"}
              - {address: "0x7f.example:7001"}
              - {address: "[fe80::1%eth0]:7001"}
        """;
    assertThat(ConfigReader.read(yaml, FILE, dir).clusters().getFirst().upstreams())
        .extracting(u -> u.address().toString())
        .containsExactly(
            "cafe.be:7001", "1.2.3.4.example.com:7001", "0x7f.example:7001", "[fe80::1%eth0]:7001");
  }
}
