package dev.sluice.proxy.proxyprotocol;

import com.code_intelligence.jazzer.junit.DictionaryFile;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Coverage-guided fuzzing of the PROXY header parser with Jazzer: every input keeps every invariant
 * of {@link HeaderChecks} (no exception, no undecided header at the size limit, a reason for every
 * refusal, a parsed header that re-encodes to itself and is undecided when cut short, prefixes
 * decided only as the whole is). The build fuzzes for {@code fuzz.duration} (30 s) in a JVM of its
 * own, starting from the seeds in {@code ProxyHeaderFuzzTestInputs}; {@code -Dfuzz.duration=30m}
 * fuzzes longer. The first input byte picks the parser (both versions, v1 only, v2 only at the
 * smallest limit), the second where the prefix check cuts, the rest is what the client sent.
 */
class ProxyHeaderFuzzTest {
  @FuzzTest(maxDuration = "30s")
  @DictionaryFile(resourcePath = "proxy-header.dict")
  void parse(byte[] data) {
    if (data.length < 2) {
      HeaderChecks.checkAll(Seeds.PARSERS.getFirst(), data, 0);
      return;
    }
    ProxyHeaderParser parser = Seeds.PARSERS.get((data[0] & 0xff) % Seeds.PARSERS.size());
    byte[] input = java.util.Arrays.copyOfRange(data, 2, data.length);
    int cut = (data[1] & 0xff) * (input.length + 1) / 256;
    HeaderChecks.checkAll(parser, input, cut);
  }
}
