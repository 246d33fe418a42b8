package dev.sluice.bench.harness;

import java.util.Arrays;
import java.util.Collection;

/**
 * Median, minimum and maximum of one field over a set of runs.
 *
 * @param median the middle value, or the mean of the two middle values for an even count
 * @param min the smallest value
 * @param max the largest value
 */
public record Stats(double median, double min, double max) {

  /**
   * Summarises {@code values}.
   *
   * @throws IllegalArgumentException when there are none
   */
  public static Stats of(Collection<Double> values) {
    if (values.isEmpty()) {
      throw new IllegalArgumentException("no values to summarise");
    }
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(sorted);
    int n = sorted.length;
    double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    return new Stats(median, sorted[0], sorted[n - 1]);
  }
}
