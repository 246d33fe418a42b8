package dev.sluice.bench.child;

import dev.sluice.testing.PatternVerifier;
import java.util.Map;

/**
 * A measured side's integrity verdict: the first failure of any check (warm-up included), or OK.
 * Any thread may record; the verdict travels to the harness in the DONE message.
 */
public final class Integrity {
  private String failure;

  /** Records {@code verifier}'s failure, if any, under {@code where}. */
  public synchronized boolean check(PatternVerifier verifier, String where) {
    if (!verifier.ok()) {
      fail(where + ": " + verifier.failure());
    }
    return verifier.ok();
  }

  /** Records a failure; the first one is kept. */
  public synchronized void fail(String detail) {
    if (failure == null) {
      failure = detail;
    }
  }

  /** Whether nothing failed. */
  public synchronized boolean ok() {
    return failure == null;
  }

  /** Adds the protocol fields {@code integrity=OK|FAIL} and {@code integrityDetail}. */
  public synchronized Map<String, Object> addTo(Map<String, Object> fields) {
    fields.put("integrity", failure == null ? "OK" : "FAIL");
    fields.put("integrityDetail", failure == null ? "" : failure);
    return fields;
  }
}
