package dev.sluice.bench.workload.proxy;

import dev.sluice.bench.harness.Message;

/**
 * What one wrk run reported through its Lua {@code done} hook ({@link WrkLoad}): the responses it
 * completed, how many its {@code response} hook checked and found wrong, its socket errors, and the
 * latency distribution.
 *
 * @param requests responses completed
 * @param bytes bytes read
 * @param durationUs the run's duration
 * @param errors connect, read and write errors, responses with a status of 400 or more, timeouts
 * @param checked responses the hook saw
 * @param bad responses whose status was not 200 or whose body was not the upstream's
 * @param firstBad what the first bad response was, or empty
 * @param p50Us median latency of a request
 * @param p99Us 99th percentile
 */
record WrkResult(
    long requests,
    long bytes,
    long durationUs,
    long errors,
    long checked,
    long bad,
    String firstBad,
    double p50Us,
    double p99Us) {

  /**
   * Parses the {@code WRK key=value ...} line the script prints, and the optional first-bad one.
   */
  static WrkResult parse(String output) {
    String line =
        output
            .lines()
            .filter(l -> l.startsWith("WRK "))
            .findFirst()
            .orElseThrow(
                () -> new IllegalStateException("wrk printed no WRK line; its output:\n" + output));
    Message m = Message.parse(line);
    String firstBad =
        output
            .lines()
            .filter(l -> l.startsWith("WRKFIRSTBAD "))
            .map(l -> l.substring("WRKFIRSTBAD ".length()))
            .findFirst()
            .orElse("");
    return new WrkResult(
        m.longValue("requests"),
        m.longValue("bytes"),
        m.longValue("durationUs"),
        m.longValue("connectErrors")
            + m.longValue("readErrors")
            + m.longValue("writeErrors")
            + m.longValue("statusErrors")
            + m.longValue("timeouts"),
        m.longValue("checked"),
        m.longValue("bad"),
        firstBad,
        m.number("p50Us"),
        m.number("p99Us"));
  }

  /**
   * Null when every response was checked and right, no socket failed and (for a measured run) some
   * request completed; otherwise what went wrong.
   *
   * @param measured whether this run is measured (a warm-up may complete none while the proxy's
   *     code is cold; its responses are checked all the same)
   */
  String failure(boolean measured) {
    if (measured && requests == 0) {
      return "wrk completed no request";
    }
    if (bad > 0) {
      return bad + " of " + checked + " responses were wrong; the first: " + firstBad;
    }
    if (checked != requests) {
      return "wrk completed " + requests + " responses but its check saw " + checked;
    }
    if (errors > 0) {
      return errors + " socket errors, timeouts or error statuses in wrk's summary";
    }
    return null;
  }

  /** Requests per second over the run. */
  double requestsPerSec() {
    return requests / (durationUs / 1e6);
  }
}
