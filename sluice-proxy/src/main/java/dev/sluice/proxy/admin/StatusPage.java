package dev.sluice.proxy.admin;

import dev.sluice.memory.MemoryStats;
import dev.sluice.proxy.config.Units;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;

/**
 * The status page: one HTML document drawn on the server from a {@link Status}, in the spirit of
 * HAProxy's stats page. No JavaScript; a meta refresh reloads it every few seconds.
 */
public final class StatusPage {
  /** Seconds between refreshes. */
  public static final int REFRESH_SECONDS = 5;

  private static final String STYLE =
      """
      :root { --ink:#1d2433; --dim:#6b7385; --line:#e3e6ee; --band:#f6f7fb; --up:#1a7f4b;
              --down:#c62828; --warn:#b26a00; --accent:#2f5bd3; }
      * { box-sizing: border-box; }
      body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
             color:var(--ink); background:#eef0f5; }
      header { background:#172033; color:#fff; padding:14px 24px; display:flex;
               align-items:baseline; gap:18px; flex-wrap:wrap; }
      header h1 { font-size:20px; margin:0; letter-spacing:.5px; }
      header .meta { color:#b8c1d6; font-size:13px; }
      header .ready { margin-left:auto; font-weight:600; padding:3px 10px; border-radius:12px; }
      .ready.yes { background:#1a7f4b; } .ready.no { background:#c62828; }
      main { padding:18px 24px; display:grid; gap:18px; }
      section { background:#fff; border:1px solid var(--line); border-radius:8px;
                padding:14px 16px; overflow-x:auto; }
      h2 { font-size:15px; margin:0 0 10px; color:#33405c; text-transform:uppercase;
           letter-spacing:.6px; }
      h3 { font-size:14px; margin:14px 0 6px; }
      table { border-collapse:collapse; width:100%; }
      th { text-align:right; font-weight:600; color:var(--dim); font-size:12px;
           border-bottom:2px solid var(--line); padding:5px 8px; white-space:nowrap; }
      td { text-align:right; padding:5px 8px; border-bottom:1px solid var(--line);
           font-variant-numeric:tabular-nums; white-space:nowrap; }
      th:first-child, td:first-child, td.text, th.text { text-align:left; }
      tr:nth-child(even) td { background:var(--band); }
      .badge { display:inline-block; min-width:62px; text-align:center; border-radius:10px;
               padding:1px 8px; font-size:12px; font-weight:600; color:#fff; }
      .up { background:var(--up); } .down { background:var(--down); }
      .ejected, .unresolved { background:var(--warn); } .draining { background:var(--dim); }
      .bar { position:relative; height:16px; background:var(--band); border:1px solid var(--line);
             border-radius:4px; min-width:160px; }
      .bar span { position:absolute; left:0; top:0; bottom:0; background:var(--accent);
                  border-radius:3px; }
      .bar.hot span { background:var(--down); }
      .grid { display:grid; grid-template-columns:repeat(auto-fit,minmax(190px,1fr)); gap:10px; }
      .tile { border:1px solid var(--line); border-radius:6px; padding:8px 10px; }
      .tile b { display:block; font-size:18px; font-variant-numeric:tabular-nums; }
      .tile small { color:var(--dim); }
      .problem { color:var(--down); }
      .dim { color:var(--dim); }
      footer { color:var(--dim); font-size:12px; padding:0 24px 18px; }
      """;

  private StatusPage() {}

  /** The page for {@code s}, with the runtime {@code dump} at its end. */
  public static String render(Status s, String dump) {
    StringBuilder h = new StringBuilder(16_384);
    h.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">");
    h.append("<meta http-equiv=\"refresh\" content=\"").append(REFRESH_SECONDS).append("\">");
    h.append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
    h.append("<title>Sluice status</title><style>").append(STYLE).append("</style></head><body>");
    header(h, s);
    h.append("<main>");
    memory(h, s.memory());
    listeners(h, s);
    errors(h, s);
    clusters(h, s);
    loops(h, s);
    h.append("<section><h2>Runtime</h2><pre style=\"margin:0;font-size:12px\">");
    text(h, dump);
    h.append("</pre></section>");
    h.append("</main><footer>Refreshes every ").append(REFRESH_SECONDS);
    h.append(" s. Rates are per second over the last 10 s. Also: ");
    h.append(
        "<a href=\"/metrics\">/metrics</a> &middot; <a href=\"/metrics.json\">/metrics.json</a>");
    h.append(" &middot; <a href=\"/dump\">/dump</a> &middot; <a href=\"/ready\">/ready</a>");
    h.append(" &middot; <a href=\"/live\">/live</a></footer></body></html>");
    return h.toString();
  }

  private static void header(StringBuilder h, Status s) {
    h.append("<header><h1>Sluice</h1><span class=\"meta\">");
    text(h, "version " + s.version() + " · transport " + s.transport() + " · config " + s.config());
    text(h, " · up " + Units.formatNanos((s.nowMillis() - s.startedMillis()) * 1_000_000));
    Status.Reloads r = s.reloads();
    text(h, " · reloads " + r.ok() + " ok, " + r.failed() + " failed");
    text(h, " · " + Instant.ofEpochMilli(s.nowMillis()).toString().replace('T', ' '));
    h.append("</span>");
    boolean ready = s.readiness().ready();
    h.append("<span class=\"ready ").append(ready ? "yes" : "no").append("\">");
    h.append(ready ? "READY" : "NOT READY").append("</span></header>");
    if (!ready || r.lastError() != null) {
      h.append("<main style=\"padding-bottom:0\"><section>");
      for (String reason : s.readiness().reasons()) {
        h.append("<div class=\"problem\">");
        text(h, reason);
        h.append("</div>");
      }
      if (r.lastError() != null) {
        h.append("<div class=\"problem\">Last reload rejected: ");
        text(h, r.lastError());
        h.append("</div>");
      }
      h.append("</section></main>");
    }
  }

  private static void memory(StringBuilder h, Status.Memory m) {
    h.append("<section><h2>Memory</h2>");
    double used = m.inFlightLimit() == 0 ? 0 : (double) m.inFlight() / m.inFlightLimit();
    h.append("<h3>Bytes in flight against the budget</h3><div style=\"display:flex;gap:12px;");
    h.append("align-items:center\"><div class=\"bar").append(used > 0.8 ? " hot" : "");
    h.append("\" style=\"flex:1\"><span style=\"width:");
    h.append(String.format(Locale.ROOT, "%.1f", Math.min(100, used * 100)))
        .append("%\"></span></div>");
    h.append("<span>");
    text(h, Units.formatBytes(m.inFlight()) + " of " + Units.formatBytes(m.inFlightLimit()));
    text(h, " · peak " + Units.formatBytes(m.inFlightPeak()));
    h.append("</span></div><div class=\"grid\" style=\"margin-top:12px\">");
    MemoryStats c = m.core();
    tile(h, "Read slabs reserved", Units.formatBytes(c.slabBytesReserved()), "native, per loop");
    tile(
        h,
        "Handed off",
        Units.formatBytes(c.handedOffBytes()),
        c.handedOffChunks() + " chunks held by code");
    tile(h, "Pending writes", Units.formatBytes(c.pendingWriteBytes()), "queued by reference");
    tile(h, "Pending copies", Units.formatBytes(c.pendingCopyBytes()), "copied, not yet sent");
    tile(
        h,
        "TLS",
        Units.formatBytes(c.tlsBufferBytes() + c.tlsHeldCiphertextBytes()),
        Units.formatBytes(c.tlsHeldCiphertextBytes()) + " ciphertext held");
    tile(
        h,
        "Heap",
        Units.formatBytes(m.heapUsed()),
        "of " + (m.heapMax() > 0 ? Units.formatBytes(m.heapMax()) : "no limit"));
    tile(h, "Direct buffers", Units.formatBytes(m.directUsed()), "JDK buffer pool");
    tile(h, "Resident set", Units.formatBytes(m.residentBytes()), "the whole process");
    h.append("</div></section>");
  }

  private static void listeners(StringBuilder h, Status s) {
    h.append("<section><h2>Listeners</h2><table><tr><th>Name</th><th class=\"text\">Address</th>");
    h.append("<th class=\"text\">Mode</th><th>Active</th><th>Limit</th><th>Accepted</th>");
    h.append("<th>Conn/s</th><th>Max conn/s</th><th>From clients</th><th>To clients</th>");
    h.append("<th>In/s</th><th>Out/s</th><th>Errors</th><th>Accept backoffs</th></tr>");
    for (Status.ListenerStatus l : s.listeners()) {
      h.append("<tr><td><b>");
      text(h, l.name());
      h.append("</b>").append(l.bound() ? "" : " <span class=\"badge down\">unbound</span>");
      h.append("</td><td class=\"text\">");
      text(h, l.address());
      h.append("</td><td class=\"text\">").append(l.mode());
      if (l.tlsEngine() != null) {
        h.append(" (").append(l.tlsEngine()).append(')');
      }
      h.append("</td>");
      cell(h, Long.toString(l.active()));
      cell(h, l.maxConnections() == 0 ? "&ndash;" : Integer.toString(l.maxConnections()));
      cell(h, Long.toString(l.accepted()));
      cell(h, rate(l.acceptRate()));
      cell(h, rate(l.maxAcceptRate()));
      cell(h, Units.formatBytes(l.bytesFromClients()));
      cell(h, Units.formatBytes(l.bytesFromUpstreams()));
      cell(h, Units.formatBytes(l.bytesFromClientsRate()) + "/s");
      cell(h, Units.formatBytes(l.bytesFromUpstreamsRate()) + "/s");
      long errors = l.errors();
      cell(h, errors == 0 ? "0" : "<span class=\"problem\">" + errors + "</span>");
      cell(h, Long.toString(l.acceptBackoffs()));
      h.append("</tr>");
    }
    h.append("</table></section>");
  }

  private static void errors(StringBuilder h, Status s) {
    h.append("<section><h2>Pairs ended, by reason</h2>");
    boolean any = false;
    StringBuilder rows = new StringBuilder();
    for (Status.ListenerStatus l : s.listeners()) {
      for (Map.Entry<String, Long> e : l.closed().entrySet()) {
        if (e.getValue() == 0) {
          continue;
        }
        any = true;
        boolean orderly = e.getKey().equals("client_eof") || e.getKey().equals("upstream_eof");
        rows.append("<tr><td>");
        text(rows, l.name());
        rows.append("</td><td class=\"text").append(orderly ? " dim" : " problem").append("\">");
        text(rows, e.getKey());
        rows.append("</td>");
        cell(rows, Long.toString(e.getValue()));
        rows.append("</tr>");
      }
    }
    if (any) {
      h.append("<table><tr><th>Listener</th><th class=\"text\">Reason</th><th>Pairs</th></tr>");
      h.append(rows).append("</table>");
    } else {
      h.append("<div class=\"dim\">No pair has ended yet.</div>");
    }
    h.append("</section>");
  }

  private static void clusters(StringBuilder h, Status s) {
    h.append("<section><h2>Clusters</h2>");
    for (Status.ClusterStatus c : s.clusters()) {
      h.append("<h3>");
      text(h, c.name());
      h.append(" <span class=\"dim\">");
      text(h, c.balance() + " · " + c.available() + " of " + c.upstreams().size() + " available");
      h.append("</span></h3><table><tr><th>Upstream</th><th class=\"text\">State</th>");
      h.append("<th>Weight</th><th>Active</th><th>Connects</th><th>Failures</th>");
      h.append("<th>Ejections</th><th>Sent</th><th>Received</th>");
      h.append("<th class=\"text\">Last problem</th></tr>");
      for (Status.UpstreamStatus u : c.upstreams()) {
        h.append("<tr><td>");
        text(h, u.name());
        h.append("</td><td class=\"text\"><span class=\"badge ").append(u.state()).append("\">");
        h.append(u.state().toUpperCase(Locale.ROOT)).append("</span>");
        if (u.draining()) {
          h.append(" <span class=\"badge draining\">DRAINING</span>");
        }
        h.append("</td>");
        cell(h, Integer.toString(u.weight()));
        cell(h, Long.toString(u.active()));
        cell(h, Long.toString(u.connects()));
        cell(
            h,
            u.connectFailures() == 0
                ? "0"
                : "<span class=\"problem\">" + u.connectFailures() + "</span>");
        cell(h, Long.toString(u.ejections()));
        cell(h, Units.formatBytes(u.bytesSent()));
        cell(h, Units.formatBytes(u.bytesReceived()));
        h.append("<td class=\"text dim\">");
        text(h, u.lastProblem() == null ? "" : u.lastProblem());
        h.append("</td></tr>");
      }
      h.append("</table>");
    }
    h.append("</section>");
  }

  private static void loops(StringBuilder h, Status s) {
    h.append("<section><h2>Event loops</h2><table><tr><th>Loop</th><th>Pairs</th>");
    h.append("<th class=\"text\">Longest turn (10 s)</th><th>Slabs</th><th>Handed off</th>");
    h.append("<th>Pending writes</th></tr>");
    for (Status.LoopStatus l : s.loops()) {
      double ms = l.longestTurnNanos() / 1e6;
      // The bar is full at 100 ms: a turn that long delays every connection on the loop.
      double share = Math.min(1, ms / 100);
      h.append("<tr><td>");
      text(h, l.name());
      h.append("</td>");
      cell(h, Integer.toString(l.pairs()));
      h.append("<td class=\"text\"><div style=\"display:flex;gap:8px;align-items:center\">");
      h.append("<div class=\"bar").append(ms >= 50 ? " hot" : "").append("\"><span style=\"width:");
      h.append(String.format(Locale.ROOT, "%.1f", share * 100)).append("%\"></span></div>");
      text(h, Units.formatNanos(l.longestTurnNanos()));
      h.append("</div></td>");
      cell(h, Units.formatBytes(l.memory().slabBytesReserved()));
      cell(h, Units.formatBytes(l.memory().handedOffBytes()));
      cell(h, Units.formatBytes(l.memory().pendingWriteBytes()));
      h.append("</tr>");
    }
    h.append("</table></section>");
  }

  private static void tile(StringBuilder h, String label, String value, String note) {
    h.append("<div class=\"tile\"><small>");
    text(h, label);
    h.append("</small><b>");
    text(h, value);
    h.append("</b><small>");
    text(h, note);
    h.append("</small></div>");
  }

  private static void cell(StringBuilder h, String html) {
    h.append("<td>").append(html).append("</td>");
  }

  private static String rate(double perSecond) {
    return perSecond < 10
        ? String.format(Locale.ROOT, "%.1f", perSecond)
        : String.format(Locale.ROOT, "%.0f", perSecond);
  }

  /** Appends {@code s}, escaped for HTML text and attribute values. */
  static void text(StringBuilder h, String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> h.append("&lt;");
        case '>' -> h.append("&gt;");
        case '&' -> h.append("&amp;");
        case '"' -> h.append("&quot;");
        case '\'' -> h.append("&#39;");
        default -> h.append(c);
      }
    }
  }
}
