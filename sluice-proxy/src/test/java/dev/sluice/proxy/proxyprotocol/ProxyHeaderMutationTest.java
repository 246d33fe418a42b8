package dev.sluice.proxy.proxyprotocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.proxyprotocol.ProxyHeaderParser.Invalid;
import dev.sluice.proxy.proxyprotocol.ProxyHeaderParser.NeedMore;
import dev.sluice.proxy.proxyprotocol.ProxyHeaderParser.Parsed;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A seeded mutation fuzz of the parser, the same every run (the coverage-guided one, with Jazzer,
 * is {@code ProxyHeaderFuzzTest}): valid headers of every kind, mutated a few times each, with
 * bytes after them, read by each kind of parser; every invariant of {@link HeaderChecks} holds.
 */
class ProxyHeaderMutationTest {
  private static final int ITERATIONS = 30_000;

  @Test
  void mutatedHeadersKeepEveryInvariant() {
    List<byte[]> seeds = Seeds.headers();
    Random random = new Random(0x9E0_2025L);
    int[] outcomes = new int[3];
    for (int i = 0; i < ITERATIONS; i++) {
      byte[] input = seeds.get(random.nextInt(seeds.size()));
      for (int m = random.nextInt(4); m > 0; m--) {
        input = mutate(input, random);
      }
      if (random.nextBoolean()) {
        input = concat(input, noise(random, random.nextInt(8)));
      }
      ProxyHeaderParser parser = Seeds.PARSERS.get(random.nextInt(Seeds.PARSERS.size()));
      ProxyHeaderParser.Result result;
      try {
        result = HeaderChecks.checkAll(parser, input, random.nextInt());
      } catch (AssertionError e) {
        throw new AssertionError("iteration " + i + ": " + e.getMessage(), e);
      }
      outcomes[
          switch (result) {
            case NeedMore _ -> 0;
            case Parsed _ -> 1;
            case Invalid _ -> 2;
          }]++;
    }
    // The mutations reach all three outcomes, so every branch of the checks ran.
    assertThat(outcomes[0]).as("undecided").isPositive();
    assertThat(outcomes[1]).as("parsed").isPositive();
    assertThat(outcomes[2]).as("refused").isPositive();
  }

  private static byte[] mutate(byte[] input, Random random) {
    int n = input.length;
    int at = n == 0 ? 0 : random.nextInt(n);
    return switch (random.nextInt(8)) {
      case 0 -> { // flip a bit
        byte[] out = input.clone();
        if (n > 0) {
          out[at] ^= (byte) (1 << random.nextInt(8));
        }
        yield out;
      }
      case 1 -> { // a random byte
        byte[] out = input.clone();
        if (n > 0) {
          out[at] = (byte) random.nextInt(256);
        }
        yield out;
      }
      case 2 -> { // a byte the parser looks for
        byte[] out = input.clone();
        if (n > 0) {
          byte[] special = {' ', '\r', '\n', ':', '.', '0', '9', 0, (byte) 0xff, 0x21, 0x11};
          out[at] = special[random.nextInt(special.length)];
        }
        yield out;
      }
      case 3 -> concat(Arrays.copyOf(input, at), noise(random, 1 + random.nextInt(4)), input, at);
      case 4 -> { // delete a few bytes
        int k = Math.min(n - at, 1 + random.nextInt(4));
        byte[] out = new byte[n - k];
        System.arraycopy(input, 0, out, 0, at);
        System.arraycopy(input, at + k, out, at, n - at - k);
        yield out;
      }
      case 5 -> Arrays.copyOf(input, at); // truncate
      case 6 -> { // a v2 length field changed
        byte[] out = input.clone();
        if (n >= 16) {
          out[14 + random.nextInt(2)] = (byte) random.nextInt(256);
        }
        yield out;
      }
      default -> { // duplicate a slice (TLVs repeated, fields doubled)
        int k = Math.min(n - at, 1 + random.nextInt(12));
        byte[] slice = Arrays.copyOfRange(input, at, at + k);
        yield concat(Arrays.copyOf(input, at + k), slice, input, at + k);
      }
    };
  }

  private static byte[] noise(Random random, int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** {@code head}, then {@code middle}, then {@code rest} from {@code from} on. */
  private static byte[] concat(byte[] head, byte[] middle, byte[] rest, int from) {
    return concat(concat(head, middle), Arrays.copyOfRange(rest, from, rest.length));
  }
}
