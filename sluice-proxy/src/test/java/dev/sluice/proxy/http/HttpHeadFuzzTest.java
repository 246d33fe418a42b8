package dev.sluice.proxy.http;

import com.code_intelligence.jazzer.junit.DictionaryFile;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Arrays;

/**
 * Coverage-guided fuzzing of the request and response head readers (and what runs on a head they
 * complete: the writer, the body readers) with Jazzer: every input keeps every invariant of {@link
 * HttpChecks} (no exception but a refusal, nothing read outside the bytes offered, the same outcome
 * however the bytes are cut, a head unchanged by what follows it, a written head read back whole).
 * One target for both readers, since Jazzer fuzzes one target per JVM: the first input byte picks
 * the reader, the second where the bytes are cut, the rest is what the peer sent. The build fuzzes
 * for {@code fuzz.duration} (30 s) in a JVM of its own, from the seeds in {@code
 * HttpHeadFuzzTestInputs}.
 */
class HttpHeadFuzzTest {
  @FuzzTest(maxDuration = "30s")
  @DictionaryFile(resourcePath = "http.dict")
  void read(byte[] data) {
    if (data.length < 2) {
      HttpChecks.checkAll(true, data, 0);
      return;
    }
    byte[] input = Arrays.copyOfRange(data, 2, data.length);
    HttpChecks.checkAll((data[0] & 1) == 0, input, (data[1] & 0xff) * (input.length + 1) / 256);
  }
}
