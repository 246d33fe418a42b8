package dev.sluice.bench.cli;

import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.Workload;
import java.time.Duration;
import java.util.List;

/**
 * A parsed {@code bench} command.
 *
 * @param workload what to run
 * @param params its options, defaults filled in
 * @param impls the arms, in alternation order ({@link Impl}'s)
 * @param runs runs per arm
 * @param json whether to end with one line of JSON
 * @param stepTimeout how long to wait for any one step of a child
 */
public record BenchRequest(
    Workload workload,
    Params params,
    List<Impl> impls,
    int runs,
    boolean json,
    Duration stepTimeout) {}
