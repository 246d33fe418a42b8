package dev.sluice.tls.openssl;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The server_name extension read from a ClientHello, by OpenSSL's rules. */
class ServerNameExtensionTest {

  /** A server_name extension body holding {@code entries}, each a type and a name. */
  private static MemorySegment body(Object... entries) {
    ByteArrayOutputStream list = new ByteArrayOutputStream();
    for (int i = 0; i < entries.length; i += 2) {
      byte[] name = ((String) entries[i + 1]).getBytes(StandardCharsets.ISO_8859_1);
      list.write((Integer) entries[i]);
      list.write(name.length >> 8);
      list.write(name.length);
      list.writeBytes(name);
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.write(list.size() >> 8);
    body.write(list.size());
    body.writeBytes(list.toByteArray());
    return MemorySegment.ofArray(body.toByteArray());
  }

  @Test
  void readsTheHostNameAsSent() {
    assertThat(ServerNameExtension.parse(body(0, "Other.Test")))
        .isEqualTo(new ServerNameExtension.Name("Other.Test"));
  }

  @Test
  void refusesWhatOpensslRefuses() {
    assertThat(ServerNameExtension.parse(MemorySegment.ofArray(new byte[] {0})))
        .isInstanceOf(ServerNameExtension.Malformed.class);
    assertThat(ServerNameExtension.parse(MemorySegment.ofArray(new byte[] {0, 0})))
        .as("an empty list")
        .isInstanceOf(ServerNameExtension.Malformed.class);
    assertThat(ServerNameExtension.parse(body(1, "localhost")))
        .as("not a host_name")
        .isInstanceOf(ServerNameExtension.Malformed.class);
    assertThat(ServerNameExtension.parse(body(0, "a.test", 0, "b.test")))
        .as("two names")
        .isInstanceOf(ServerNameExtension.Malformed.class);
    assertThat(ServerNameExtension.parse(body(0, "")))
        .as("an empty name")
        .isInstanceOf(ServerNameExtension.Malformed.class);
    assertThat(ServerNameExtension.parse(body(0, "a\0.test")))
        .as("a NUL")
        .isInstanceOf(ServerNameExtension.Malformed.class);
    assertThat(ServerNameExtension.parse(body(0, "a".repeat(256))))
        .as("256 bytes")
        .isInstanceOf(ServerNameExtension.Malformed.class);
    MemorySegment truncated = body(0, "localhost");
    assertThat(ServerNameExtension.parse(truncated.asSlice(0, truncated.byteSize() - 1)))
        .as("truncated")
        .isInstanceOf(ServerNameExtension.Malformed.class);
  }
}
