package dev.sluice.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MessageTest {

  @Test
  void roundTripsFieldsWithSpacesAndSymbols() {
    Message sent =
        Message.of("DONE", "wallMs", 12.5, "detail", "wrong byte at 4096: a=b & c", "empty", "");
    Message read = Message.parse(sent.format());
    assertThat(read).isEqualTo(sent);
    assertThat(read.number("wallMs")).isEqualTo(12.5);
    assertThat(sent.format()).doesNotContain("\n");
  }

  @Test
  void aMissingFieldNamesTheMessage() {
    assertThatThrownBy(() -> Message.parse("READY port=1").field("sha256"))
        .hasMessageContaining("sha256")
        .hasMessageContaining("READY");
  }

  @Test
  void rejectsAMalformedLine() {
    assertThatThrownBy(() -> Message.parse("DONE notakeyvalue"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
