package dev.sluice.bench.harness;

/** What a child JVM runs: one side of one workload, sequenced by the harness. */
@FunctionalInterface
public interface ChildProgram {
  /**
   * Runs to completion. Returning ends the child normally; throwing reports the failure to the
   * harness.
   */
  void run(ChildControl control) throws Exception;
}
