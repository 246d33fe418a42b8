package dev.sluice.proxy.config;

import dev.sluice.net.Timeouts;
import dev.sluice.net.Transport;
import dev.sluice.proxy.config.ClusterConfig.UpstreamConfig;
import dev.sluice.proxy.config.ListenerTls.Certificate;
import dev.sluice.proxy.config.ListenerTls.ClientAuthMode;
import dev.sluice.proxy.config.YamlNode.Problems;
import dev.sluice.proxy.http.ForwardedFor;
import dev.sluice.proxy.http.HeadReader;
import dev.sluice.proxy.http.HeaderEdits;
import dev.sluice.proxy.http.HeaderRewrite;
import dev.sluice.proxy.http.HttpRoute;
import dev.sluice.proxy.http.HttpRoutes;
import dev.sluice.proxy.proxyprotocol.FingerprintTlvs;
import dev.sluice.proxy.proxyprotocol.ProxyHeader;
import dev.sluice.proxy.proxyprotocol.ProxyHeaderParser;
import dev.sluice.tls.CipherPolicy;
import dev.sluice.tls.KeyMaterial;
import dev.sluice.tls.KeyMaterialException;
import dev.sluice.tls.OcspStapling;
import dev.sluice.tls.TlsClient;
import dev.sluice.tls.TlsEngineKind;
import dev.sluice.tls.TlsProfile;
import dev.sluice.tls.TrustMaterial;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import javax.security.auth.x500.X500Principal;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.Node;

/**
 * Reads one YAML file into a {@link ProxyConfig}, or fails with every problem it found, each naming
 * file, line and field path. Unknown fields are errors; relative file paths are resolved against
 * the file's directory; certificates and keys are loaded, so a configuration that reads here also
 * starts. The fields, their defaults and their units are documented in the reference configuration
 * ({@code sluice-proxy/config/reference.yaml}).
 */
public final class ConfigReader {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");
  private static final Pattern HOST_NAME =
      Pattern.compile("(\\*\\.)?([a-z0-9]([a-z0-9-]*[a-z0-9])?\\.)*[a-z0-9]([a-z0-9-]*[a-z0-9])?");
  private static final long MIN_BYTES_IN_FLIGHT = 64 * 1024;

  /** The timeouts a listener may set for its pairs (the fields of {@link TimeoutSettings}). */
  private static final String[] PAIR_TIMEOUTS = {
    "connect",
    "idle",
    "handshake",
    "halfClose",
    "maxConnectionDuration",
    "writeStall",
    "requestHead",
    "keepAlive",
    "responseHead"
  };

  /** The global timeouts: a pair's, and the drain's. */
  private static final String[] GLOBAL_TIMEOUTS =
      java.util.stream.Stream.concat(
              java.util.Arrays.stream(PAIR_TIMEOUTS), java.util.stream.Stream.of("drain"))
          .toArray(String[]::new);

  private static final int DEFAULT_CLIENT_HELLO_BYTES = 16 * 1024;

  private final String file;
  private final Path baseDir;
  private final Problems problems;

  // Every file the configuration names, readable or not (see ConfigException.files).
  private final java.util.Set<Path> namedFiles = new java.util.LinkedHashSet<>();

  private ConfigReader(String file, Path baseDir) {
    this.file = file;
    this.baseDir = baseDir;
    this.problems = new Problems(file);
  }

  /** Reads and validates {@code path}. */
  public static ProxyConfig read(Path path) throws ConfigException {
    String text;
    try {
      text = Files.readString(path);
    } catch (IOException e) {
      throw new ConfigException(
          List.of(new Problem(path.toString(), 0, "", "cannot read the file: " + e.getMessage())));
    }
    Path dir = path.toAbsolutePath().getParent();
    return read(text, path.toString(), dir);
  }

  /**
   * Reads and validates YAML {@code text} named {@code file} in messages, resolving relative paths
   * against {@code baseDir}.
   */
  public static ProxyConfig read(String text, String file, Path baseDir) throws ConfigException {
    return new ConfigReader(file, baseDir).parse(text);
  }

  private ProxyConfig parse(String text) throws ConfigException {
    Node root;
    try {
      root =
          new Compose(LoadSettings.builder().setLabel(file).build())
              .composeString(text)
              .orElse(null);
    } catch (MarkedYamlEngineException e) {
      int line = e.getProblemMark().map(m -> m.getLine() + 1).orElse(0);
      throw new ConfigException(
          List.of(new Problem(file, line, "", "not valid YAML: " + e.getProblem())));
    } catch (YamlEngineException e) {
      throw new ConfigException(List.of(new Problem(file, 0, "", "not valid YAML: " + e)));
    }
    if (root == null) {
      throw new ConfigException(
          List.of(new Problem(file, 0, "", "the file is empty: it needs listeners and clusters")));
    }
    ProxyConfig config = proxy(new YamlNode(root, "", problems));
    if (!problems.list().isEmpty()) {
      throw new ConfigException(problems.list(), namedFiles);
    }
    return config;
  }

  private ProxyConfig proxy(YamlNode root) {
    Map<String, YamlNode> f =
        root.fields(
            "listeners",
            "clusters",
            "timeouts",
            "buffers",
            "admin",
            "accessLog",
            "transport",
            "splice");
    Map<String, YamlNode> t =
        f.containsKey("timeouts") ? f.get("timeouts").fields(GLOBAL_TIMEOUTS) : Map.of();
    TimeoutSettings timeouts = timeouts(t, TimeoutSettings.DEFAULTS);
    Duration drain = timeout(t, "drain", Duration.ofSeconds(30));
    GlobalBuffers buffers = buffers(f.get("buffers"));

    List<ClusterConfig> clusters = new ArrayList<>();
    Map<String, YamlNode> clusterNodes = new HashMap<>();
    YamlNode clusterList = require(root, f, "clusters");
    if (clusterList != null) {
      for (YamlNode item : clusterList.items()) {
        ClusterConfig cluster = cluster(item);
        if (cluster != null) {
          if (clusterNodes.putIfAbsent(cluster.name(), item) != null) {
            item.problem("a second cluster named '" + cluster.name() + "'");
          }
          clusters.add(cluster);
        }
      }
    }

    List<ListenerConfig> listeners = new ArrayList<>();
    Set<String> listenerNames = new HashSet<>();
    BindAddresses binds = new BindAddresses();
    YamlNode listenerList = require(root, f, "listeners");
    if (listenerList != null) {
      List<YamlNode> items = listenerList.items();
      if (items.isEmpty() && listenerList.isSequence()) {
        listenerList.problem("needs at least one listener");
      }
      for (YamlNode item : items) {
        ListenerConfig listener = listener(item, timeouts, buffers, clusterNodes.keySet());
        if (listener == null) {
          continue;
        }
        if (!listenerNames.add(listener.name())) {
          item.problem("a second listener named '" + listener.name() + "'");
        }
        binds.claim(
            "listener '" + listener.name() + "'", listener.address(), item.field("address"));
        listeners.add(listener);
      }
    }
    AdminConfig admin = f.containsKey("admin") ? admin(f.get("admin"), binds) : null;
    AccessLogTarget accessLog = f.containsKey("accessLog") ? accessLog(f.get("accessLog")) : null;
    Transport transport =
        f.containsKey("transport")
            ? choice(f.get("transport"), Transport.class, Transport.AUTO)
            : Transport.AUTO;
    SpliceMode splice =
        f.containsKey("splice")
            ? choice(f.get("splice"), SpliceMode.class, SpliceMode.AUTO)
            : SpliceMode.AUTO;
    return new ProxyConfig(
        listeners,
        clusters,
        buffers.maxBytesInFlight,
        drain,
        admin,
        accessLog,
        file,
        transport,
        splice);
  }

  // ---- the operator surface ----

  private AdminConfig admin(YamlNode node, BindAddresses binds) {
    Map<String, YamlNode> f = node.fields("address");
    YamlNode address = require(node, f, "address");
    Endpoint endpoint = bindAddress(address);
    if (endpoint == null) {
      return null;
    }
    if (!(endpoint instanceof Endpoint.Tcp tcp)) {
      address.problem("the admin listener needs a TCP address (host:port)");
      return null;
    }
    binds.claim("the admin listener", tcp, address);
    return new AdminConfig(tcp);
  }

  private AccessLogTarget accessLog(YamlNode node) {
    if (node.isScalar()) {
      String text = node.text().orElse("");
      if (text.equals("stdout")) {
        return new AccessLogTarget.Stdout();
      }
      node.problem("'" + text + "' is not stdout; write {path: FILE} for a file");
      return null;
    }
    Map<String, YamlNode> f = node.fields("path");
    YamlNode path = require(node, f, "path");
    String text = path == null ? null : path.text().orElse(null);
    if (text == null) {
      return null;
    }
    if (text.isBlank()) {
      path.problem("is empty");
      return null;
    }
    Path file = baseDir.resolve(text).normalize();
    Path dir = file.getParent();
    if (Files.isDirectory(file)) {
      path.problem(file + " is a directory");
      return null;
    }
    if (dir != null && !Files.isDirectory(dir)) {
      path.problem("no directory " + dir + " to write the access log in");
      return null;
    }
    if (Files.exists(file) ? !Files.isWritable(file) : dir != null && !Files.isWritable(dir)) {
      path.problem("cannot write " + file + " (permissions)");
      return null;
    }
    return new AccessLogTarget.File(file);
  }

  // ---- listeners ----

  private ListenerConfig listener(
      YamlNode node,
      TimeoutSettings globalTimeouts,
      GlobalBuffers globalBuffers,
      Set<String> clusters) {
    Map<String, YamlNode> f =
        node.fields(
            "name",
            "address",
            "cluster",
            "sni",
            "tls",
            "maxConnections",
            "limits",
            "timeouts",
            "buffers",
            "proxyProtocol",
            "protocol",
            "http");
    String name = name(node, f);
    Endpoint address = bindAddress(require(node, f, "address"));
    ListenerTls tls = f.containsKey("tls") ? listenerTls(f.get("tls")) : null;
    Route route = route(node, f, clusters, tls);
    int maxConnections = f.containsKey("maxConnections") ? limit(f.get("maxConnections")) : 0;
    TimeoutSettings timeouts =
        f.containsKey("timeouts")
            ? timeouts(f.get("timeouts").fields(PAIR_TIMEOUTS), globalTimeouts)
            : globalTimeouts;
    ReadSizes reads =
        f.containsKey("buffers")
            ? readSizes(
                f.get("buffers")
                    .fields("readBufferSize", "clientReadBufferSize", "upstreamReadBufferSize"),
                globalBuffers.reads)
            : globalBuffers.reads;
    Limits limits = f.containsKey("limits") ? limits(f.get("limits"), tls) : Limits.NONE;
    ListenerProxyProtocol proxyProtocol =
        f.containsKey("proxyProtocol") ? acceptProxyProtocol(f.get("proxyProtocol")) : null;
    ListenerHttp http = http(node, f, route, tls, clusters);
    if (name == null || address == null || route == null) {
      return null;
    }
    return new ListenerConfig(
        name, address, route, tls, maxConnections, timeouts, reads, limits, proxyProtocol, http);
  }

  // ---- the HTTP/1 path ----

  /** The listener's HTTP settings with {@code protocol: http}, else null. */
  private ListenerHttp http(
      YamlNode listener,
      Map<String, YamlNode> f,
      Route route,
      ListenerTls tls,
      Set<String> clusters) {
    YamlNode protocol = f.get("protocol");
    String kind = protocol == null ? "tcp" : protocol.text().orElse("tcp");
    if (!kind.equals("tcp") && !kind.equals("http")) {
      protocol.problem("'" + kind + "' is not a protocol: tcp (the default) or http");
      return null;
    }
    YamlNode node = f.get("http");
    if (kind.equals("tcp")) {
      if (node != null) {
        node.problem("http settings are for a listener with protocol: http");
      }
      return null;
    }
    if (tls instanceof ListenerTls.Passthrough) {
      protocol.problem("an HTTP listener reads requests: it cannot pass TLS through unread");
    }
    if (route instanceof Route.BySni) {
      listener.problem(
          "an HTTP listener routes each request by host and path (http.routes), with cluster: for"
              + " the rest; sni rules are for tcp listeners");
    }
    String defaultCluster = route instanceof Route.ToCluster to ? to.cluster() : null;
    Map<String, YamlNode> h =
        node == null
            ? Map.of()
            : node.fields(
                "routes",
                "forwardedFor",
                "requestHeaders",
                "responseHeaders",
                "maxHeaderBytes",
                "upstreamPool");
    List<HttpRoute> rules = new ArrayList<>();
    if (h.containsKey("routes")) {
      for (YamlNode rule : h.get("routes").items()) {
        Map<String, YamlNode> r = rule.fields("host", "pathPrefix", "cluster");
        YamlNode target = require(rule, r, "cluster");
        String cluster = target == null ? null : clusterReference(target, clusters);
        String host = r.containsKey("host") ? r.get("host").text().orElse(null) : null;
        String prefix =
            r.containsKey("pathPrefix") ? r.get("pathPrefix").text().orElse(null) : null;
        if (cluster == null) {
          continue;
        }
        try {
          rules.add(new HttpRoute(host, prefix, cluster));
        } catch (IllegalArgumentException e) {
          rule.problem(e.getMessage());
        }
      }
    }
    ForwardedFor forwardedFor = ForwardedFor.REPLACE;
    if (h.containsKey("forwardedFor")) {
      YamlNode mode = h.get("forwardedFor");
      String text = mode.text().orElse("");
      switch (text) {
        case "replace" -> forwardedFor = ForwardedFor.REPLACE;
        case "append" -> forwardedFor = ForwardedFor.APPEND;
        case "off" -> forwardedFor = ForwardedFor.OFF;
        default ->
            mode.problem("'" + text + "' is not a forwardedFor mode: replace, append or off");
      }
    }
    HeaderEdits request = headerEdits(h.get("requestHeaders"));
    HeaderEdits response = headerEdits(h.get("responseHeaders"));
    int maxHeaderBytes =
        h.containsKey("maxHeaderBytes")
            ? (int)
                sizeIn(
                    h.get("maxHeaderBytes"),
                    HeadReader.MIN_MAX_HEAD_BYTES,
                    1024 * 1024,
                    ListenerHttp.DEFAULT_MAX_HEADER_BYTES)
            : ListenerHttp.DEFAULT_MAX_HEADER_BYTES;
    ListenerHttp.UpstreamPool pool = upstreamPool(h.get("upstreamPool"));
    if (defaultCluster == null) {
      return null;
    }
    return new ListenerHttp(
        new HttpRoutes(rules, defaultCluster),
        new HeaderRewrite(forwardedFor, request, response),
        maxHeaderBytes,
        pool);
  }

  /** {@code {maxIdlePerUpstream: N, idle: DURATION}}, or the defaults. */
  private ListenerHttp.UpstreamPool upstreamPool(YamlNode node) {
    ListenerHttp.UpstreamPool fallback = ListenerHttp.UpstreamPool.DEFAULT;
    if (node == null) {
      return fallback;
    }
    Map<String, YamlNode> f = node.fields("maxIdlePerUpstream", "idle");
    int max =
        f.containsKey("maxIdlePerUpstream")
            ? intIn(
                f.get("maxIdlePerUpstream"),
                0,
                ListenerHttp.UpstreamPool.MAX_IDLE_PER_UPSTREAM,
                fallback.maxIdlePerUpstream())
            : fallback.maxIdlePerUpstream();
    Duration idle = timeout(f, "idle", fallback.idle());
    if (idle.isZero()) {
      f.get("idle").problem("idle must be above 0 (maxIdlePerUpstream: 0 keeps no connection)");
      idle = fallback.idle();
    }
    return new ListenerHttp.UpstreamPool(max, idle);
  }

  /** {@code {set: {Name: value}, remove: [Name]}}, or none. */
  private HeaderEdits headerEdits(YamlNode node) {
    if (node == null) {
      return HeaderEdits.NONE;
    }
    Map<String, YamlNode> f = node.fields("set", "remove");
    Map<String, String> set = new java.util.LinkedHashMap<>();
    if (f.containsKey("set")) {
      for (Map.Entry<String, YamlNode> e : f.get("set").fields().entrySet()) {
        set.put(e.getKey(), e.getValue().text().orElse(""));
      }
    }
    List<String> remove = f.containsKey("remove") ? strings(f.get("remove")) : List.of();
    try {
      return HeaderEdits.of(set, remove);
    } catch (IllegalArgumentException e) {
      node.problem(e.getMessage());
      return HeaderEdits.NONE;
    }
  }

  private ListenerProxyProtocol acceptProxyProtocol(YamlNode node) {
    Map<String, YamlNode> f =
        node.fields("trustedSources", "timeout", "versions", "maxHeaderBytes", "optional");
    YamlNode trusted = require(node, f, "trustedSources");
    List<Cidr> sources = trusted == null ? List.of() : networks(trusted);
    if (trusted != null && trusted.isSequence() && trusted.items().isEmpty()) {
      trusted.problem(
          "needs the networks of the load balancers that send headers (0.0.0.0/0 and ::/0 trust"
              + " everyone)");
    }
    Duration timeout = timeout(f, "timeout", ListenerProxyProtocol.DEFAULT_TIMEOUT);
    Set<ProxyHeader.Version> versions = EnumSet.allOf(ProxyHeader.Version.class);
    if (f.containsKey("versions")) {
      YamlNode list = f.get("versions");
      versions = EnumSet.noneOf(ProxyHeader.Version.class);
      for (YamlNode item : list.items()) {
        ProxyHeader.Version version = proxyVersion(item);
        if (version != null) {
          versions.add(version);
        }
      }
      if (list.isSequence() && list.items().isEmpty()) {
        list.problem("needs at least one version: v1, v2");
      }
      if (versions.isEmpty()) {
        versions = EnumSet.allOf(ProxyHeader.Version.class);
      }
    }
    int maxHeaderBytes =
        f.containsKey("maxHeaderBytes")
            ? (int)
                sizeIn(
                    f.get("maxHeaderBytes"),
                    ProxyHeaderParser.MIN_MAX_BYTES,
                    ProxyHeaderParser.V2_MAX_BYTES,
                    ListenerProxyProtocol.DEFAULT_MAX_HEADER_BYTES)
            : ListenerProxyProtocol.DEFAULT_MAX_HEADER_BYTES;
    if (f.containsKey("maxHeaderBytes") && !versions.contains(ProxyHeader.Version.V2)) {
      f.get("maxHeaderBytes")
          .problem("maxHeaderBytes is for v2 headers (a v1 line is at most 107 B)");
    }
    boolean optional = f.containsKey("optional") && bool(f.get("optional"));
    return new ListenerProxyProtocol(sources, timeout, versions, maxHeaderBytes, optional);
  }

  private ProxyHeader.Version proxyVersion(YamlNode node) {
    String text = node.text().orElse(null);
    if (text == null) {
      return null;
    }
    for (ProxyHeader.Version version : ProxyHeader.Version.values()) {
      if (version.label().equals(text)) {
        return version;
      }
    }
    node.problem("'" + text + "' is not a PROXY protocol version: v1 or v2");
    return null;
  }

  private Route route(
      YamlNode listener, Map<String, YamlNode> f, Set<String> clusters, ListenerTls tls) {
    YamlNode cluster = f.get("cluster");
    YamlNode sni = f.get("sni");
    if (cluster != null && sni != null) {
      listener.problem("has both cluster and sni: give one (sni rules can end with a default)");
      return null;
    }
    if (cluster == null && sni == null) {
      listener.problem("needs a route: cluster: NAME, or sni: [rules]");
      return null;
    }
    if (cluster != null) {
      String name = clusterReference(cluster, clusters);
      return name == null ? null : new Route.ToCluster(name);
    }
    if (tls == null) {
      sni.problem(
          "routing by server name needs tls on the listener (certificates to terminate, or"
              + " passthrough: true)");
    }
    List<Route.SniRule> rules = new ArrayList<>();
    String defaultCluster = null;
    for (YamlNode rule : sni.items()) {
      Map<String, YamlNode> r = rule.fields("match", "cluster", "default");
      if (r.containsKey("default")) {
        if (r.size() > 1) {
          rule.problem("a default rule has only default: CLUSTER");
        }
        if (defaultCluster != null) {
          rule.problem("a second default rule");
        }
        defaultCluster = clusterReference(r.get("default"), clusters);
        continue;
      }
      YamlNode match = require(rule, r, "match");
      YamlNode target = require(rule, r, "cluster");
      String pattern = match == null ? null : match.text().orElse(null);
      if (pattern != null && !HOST_NAME.matcher(pattern.toLowerCase(Locale.ROOT)).matches()) {
        match.problem(
            "'"
                + pattern
                + "' is not a server name: an exact name, or *. and a domain (one label)");
        pattern = null;
      }
      String name = target == null ? null : clusterReference(target, clusters);
      if (pattern != null && name != null) {
        rules.add(new Route.SniRule(pattern, name));
      }
    }
    if (rules.isEmpty() && defaultCluster == null && sni.isSequence()) {
      sni.problem("needs at least one rule");
    }
    return new Route.BySni(rules, defaultCluster);
  }

  private Limits limits(YamlNode node, ListenerTls tls) {
    Map<String, YamlNode> f =
        node.fields(
            "connectionsPerSecond",
            "burst",
            "perSourceAddress",
            "allow",
            "deny",
            "requireSni",
            "ja3Blocklist",
            "ja4Blocklist");
    int rate =
        f.containsKey("connectionsPerSecond")
            ? intIn(f.get("connectionsPerSecond"), 1, 10_000_000, 0)
            : 0;
    int burst = f.containsKey("burst") ? intIn(f.get("burst"), 1, 10_000_000, rate) : rate;
    if (f.containsKey("burst") && rate == 0) {
      f.get("burst").problem("a burst goes with connectionsPerSecond");
    }
    int perSource =
        f.containsKey("perSourceAddress") ? intIn(f.get("perSourceAddress"), 1, 10_000_000, 0) : 0;
    List<Cidr> allow = f.containsKey("allow") ? networks(f.get("allow")) : List.of();
    List<Cidr> deny = f.containsKey("deny") ? networks(f.get("deny")) : List.of();
    boolean requireSni = f.containsKey("requireSni") && bool(f.get("requireSni"));
    if (requireSni && tls == null) {
      f.get("requireSni").problem("requireSni needs tls on the listener");
    }
    List<String> ja3 = fingerprints(f.get("ja3Blocklist"), JA3, "a JA3 is 32 hex digits");
    List<String> ja4 =
        fingerprints(
            f.get("ja4Blocklist"),
            JA4,
            "a JA4 is like t13d1516h2_8daaf6152771_e5627efa2ab1 (hashes in lower-case hex)");
    for (String key : List.of("ja3Blocklist", "ja4Blocklist")) {
      if (f.containsKey(key) && tls == null) {
        f.get(key).problem(key + " needs tls on the listener");
      }
    }
    return new Limits(rate, burst, perSource, allow, deny, requireSni, ja3, ja4);
  }

  private static final Pattern JA3 = Pattern.compile("[0-9a-fA-F]{32}");
  private static final Pattern JA4 =
      Pattern.compile(
          "[tqd](1[0-3]|s[23]|d[1-3]|00)[di][0-9]{4}[0-9A-Za-z]{2}_[0-9a-f]{12}_[0-9a-f]{12}");

  /** A blocklist's entries, JA3 in lower case; an entry that is not a fingerprint is a problem. */
  private List<String> fingerprints(YamlNode node, Pattern form, String expected) {
    if (node == null) {
      return List.of();
    }
    List<String> entries = new ArrayList<>();
    for (YamlNode item : node.items()) {
      String text = item.text().orElse(null);
      if (text == null) {
        continue;
      }
      if (!form.matcher(text).matches()) {
        item.problem("'" + text + "' is not a fingerprint: " + expected);
      } else {
        entries.add(form == JA3 ? text.toLowerCase(Locale.ROOT) : text);
      }
    }
    return entries;
  }

  private List<Cidr> networks(YamlNode node) {
    List<Cidr> networks = new ArrayList<>();
    for (YamlNode item : node.items()) {
      Cidr cidr = parsed(item, Cidr::parse);
      if (cidr != null) {
        networks.add(cidr);
      }
    }
    return networks;
  }

  private String clusterReference(YamlNode node, Set<String> clusters) {
    String name = node.text().orElse(null);
    if (name != null && !clusters.contains(name)) {
      node.problem(
          "no cluster named '"
              + name
              + "'"
              + (clusters.isEmpty() ? "" : " (clusters: " + String.join(", ", clusters) + ")"));
      return null;
    }
    return name;
  }

  /** A terminating TLS listener's options: none of them means anything on a passthrough one. */
  private static final List<String> TERMINATING_TLS_KEYS =
      List.of(
          "certificates",
          "alpn",
          "clientAuth",
          "clientCa",
          "protocols",
          "profile",
          "ciphers",
          "cipherSuites",
          "groups",
          "ocsp",
          "sessionCache",
          "sessionTickets",
          "engine");

  private ListenerTls listenerTls(YamlNode node) {
    List<String> keys = new ArrayList<>(TERMINATING_TLS_KEYS);
    keys.addAll(List.of("passthrough", "maxClientHelloBytes"));
    Map<String, YamlNode> f = node.fields(keys.toArray(String[]::new));
    boolean passthrough = f.containsKey("passthrough") && bool(f.get("passthrough"));
    if (passthrough) {
      for (String key : TERMINATING_TLS_KEYS) {
        if (f.containsKey(key)) {
          f.get(key).problem("a passthrough listener does not terminate TLS: remove " + key);
        }
      }
      int max =
          f.containsKey("maxClientHelloBytes")
              ? (int) sizeIn(f.get("maxClientHelloBytes"), 512, 1 << 20, DEFAULT_CLIENT_HELLO_BYTES)
              : DEFAULT_CLIENT_HELLO_BYTES;
      return new ListenerTls.Passthrough(max);
    }
    if (f.containsKey("maxClientHelloBytes")) {
      f.get("maxClientHelloBytes").problem("only for passthrough: true");
    }
    List<Certificate> certificates = new ArrayList<>();
    YamlNode certs = require(node, f, "certificates");
    if (certs != null) {
      for (YamlNode item : certs.items()) {
        Certificate files = certificate(item);
        if (files != null) {
          certificates.add(files);
        }
      }
      if (certs.isSequence() && certs.items().isEmpty()) {
        certs.problem("needs at least one certificate");
      }
    }
    List<String> alpn = f.containsKey("alpn") ? strings(f.get("alpn")) : List.of();
    TlsProfile profile =
        f.containsKey("profile")
            ? choice(f.get("profile"), TlsProfile.class, TlsProfile.INTERMEDIATE)
            : TlsProfile.INTERMEDIATE;
    List<String> protocols =
        f.containsKey("protocols") ? protocols(f.get("protocols")) : profile.protocols();
    CipherPolicy ciphers = TlsPolicyReader.ciphers(node, f, profile, protocols);
    boolean staple = f.containsKey("ocsp") && ocspStaple(f.get("ocsp"), certificates);
    ClientAuthMode clientAuth =
        f.containsKey("clientAuth")
            ? choice(f.get("clientAuth"), ClientAuthMode.class, ClientAuthMode.NONE)
            : ClientAuthMode.NONE;
    Path clientCa = null;
    if (f.containsKey("clientCa")) {
      clientCa = readableFile(f.get("clientCa"));
      if (clientCa != null) {
        try {
          TrustMaterial.fromPem(clientCa);
        } catch (KeyMaterialException e) {
          f.get("clientCa").problem(e.getMessage());
        }
      }
    } else if (clientAuth != ClientAuthMode.NONE) {
      node.problem(
          "clientAuth " + clientAuth.name().toLowerCase(Locale.ROOT) + " needs clientCa: FILE");
    }
    ListenerTls.SessionCache sessionCache =
        f.containsKey("sessionCache")
            ? sessionCache(f.get("sessionCache"))
            : ListenerTls.SessionCache.DEFAULT;
    Path ticketKeys =
        f.containsKey("sessionTickets") ? ticketKeyFile(f.get("sessionTickets")) : null;
    TlsEngineKind engine =
        f.containsKey("engine")
            ? tlsEngine(f.get("engine"), ticketKeys != null)
            : TlsEngineKind.defaultKind();
    if (ticketKeys != null && engine != TlsEngineKind.JDK) {
      String reason = TlsEngineKind.openSslUnavailableReason();
      if (reason != null) {
        f.get("sessionTickets")
            .problem(
                "a ticket key file needs the OpenSSL engine, which cannot run here: " + reason);
      }
    }
    return new ListenerTls.Terminate(
        certificates,
        alpn,
        clientAuth,
        clientCa,
        protocols,
        profile,
        ciphers,
        staple,
        sessionCache,
        engine,
        ticketKeys);
  }

  /** {@code sessionTickets: {keyFile: FILE}}: the file must hold valid keys now. */
  private Path ticketKeyFile(YamlNode node) {
    Map<String, YamlNode> f = node.fields("keyFile");
    YamlNode keyFile = require(node, f, "keyFile");
    if (keyFile == null) {
      return null;
    }
    Path file = readableFile(keyFile);
    if (file != null) {
      try {
        dev.sluice.tls.TlsServerConfig.checkSessionTicketKeys(file);
      } catch (java.security.GeneralSecurityException e) {
        keyFile.problem(e.getMessage());
      }
    }
    return file;
  }

  /** {@code engine: auto | openssl | jdk}: openssl must load here. */
  private TlsEngineKind tlsEngine(YamlNode node, boolean ticketKeys) {
    TlsEngineKind engine = choice(node, TlsEngineKind.class, TlsEngineKind.AUTO);
    if (engine == TlsEngineKind.JDK && ticketKeys) {
      node.problem("sessionTickets.keyFile needs the OpenSSL engine: use auto or openssl");
    }
    if (engine == TlsEngineKind.OPENSSL) {
      String reason = TlsEngineKind.openSslUnavailableReason();
      if (reason != null) {
        node.problem("the OpenSSL engine cannot run here: " + reason + " (use auto or jdk)");
      }
    }
    return engine;
  }

  private ListenerTls.SessionCache sessionCache(YamlNode node) {
    Map<String, YamlNode> f = node.fields("size", "timeout");
    ListenerTls.SessionCache fallback = ListenerTls.SessionCache.DEFAULT;
    int size =
        f.containsKey("size")
            ? intIn(f.get("size"), 1, Integer.MAX_VALUE, fallback.size())
            : fallback.size();
    Duration timeout = timeout(f, "timeout", fallback.timeout());
    YamlNode timeoutNode = f.get("timeout");
    if (timeoutNode != null
        && (timeout.compareTo(ListenerTls.SessionCache.MAX_TIMEOUT) > 0
            || timeout.toSeconds() < 1
            || timeout.toNanos() % 1_000_000_000L != 0)) {
      timeoutNode.problem(
          "a session timeout is whole seconds from 1s to 7d (the longest a TLS 1.3 ticket lives)");
      timeout = fallback.timeout();
    }
    return new ListenerTls.SessionCache(size, timeout);
  }

  /** {@code ocsp: {staple: true}}: each certificate must name a responder and carry its issuer. */
  private boolean ocspStaple(YamlNode node, List<Certificate> certificates) {
    Map<String, YamlNode> f = node.fields("staple");
    boolean staple = f.containsKey("staple") && bool(f.get("staple"));
    if (staple) {
      for (Certificate certificate : certificates) {
        try {
          String why = OcspStapling.whyNot(certificate.load());
          if (why != null) {
            f.get("staple").problem(why + " (" + certificate.files().get(0) + ")");
          }
        } catch (KeyMaterialException e) {
          // reported with the certificate
        }
      }
    }
    return staple;
  }

  private Certificate certificate(YamlNode node) {
    return certificate(node, node.fields("cert", "key", "p12", "password"));
  }

  private Certificate certificate(YamlNode node, Map<String, YamlNode> f) {
    String password = f.containsKey("password") ? f.get("password").text().orElse(null) : null;
    Certificate certificate;
    if (f.containsKey("p12")) {
      if (f.containsKey("cert") || f.containsKey("key")) {
        node.problem("give cert and key (PEM) or p12 (PKCS#12), not both");
        return null;
      }
      if (password == null) {
        node.problem("a p12 file needs its password");
        return null;
      }
      Path p12 = readableFile(f.get("p12"));
      if (p12 == null) {
        return null;
      }
      certificate = new ListenerTls.Pkcs12(p12, password);
    } else {
      Path cert = readableFile(require(node, f, "cert"));
      Path key = readableFile(require(node, f, "key"));
      if (cert == null || key == null) {
        return null;
      }
      certificate = new ListenerTls.Pem(cert, key, password);
    }
    try {
      KeyMaterial material = certificate.load();
      if (serverNames(material.certificate()).isEmpty()) {
        node.problem("the certificate names no host (no DNS subject alternative name, no CN)");
      }
    } catch (KeyMaterialException e) {
      node.problem(e.getMessage());
      return null;
    }
    return certificate;
  }

  /** The DNS names a certificate is for: its subject alternative names, else its CN. */
  public static List<String> serverNames(X509Certificate certificate) {
    Set<String> names = new LinkedHashSet<>();
    try {
      if (certificate.getSubjectAlternativeNames() != null) {
        for (List<?> san : certificate.getSubjectAlternativeNames()) {
          if (san.size() >= 2 && Integer.valueOf(2).equals(san.get(0))) {
            names.add(String.valueOf(san.get(1)).toLowerCase(Locale.ROOT));
          }
        }
      }
    } catch (CertificateParsingException e) {
      // fall back to the CN
    }
    if (names.isEmpty()) {
      String dn = certificate.getSubjectX500Principal().getName(X500Principal.RFC2253);
      for (String part : dn.split(",")) {
        if (part.startsWith("CN=")) {
          names.add(part.substring(3).toLowerCase(Locale.ROOT));
        }
      }
    }
    return List.copyOf(names);
  }

  // ---- clusters ----

  private ClusterConfig cluster(YamlNode node) {
    Map<String, YamlNode> f =
        node.fields(
            "name",
            "upstreams",
            "balance",
            "healthCheck",
            "passive",
            "retries",
            "slowStart",
            "resolveInterval",
            "tls",
            "proxyProtocol",
            "proxyProtocolTlvs");
    String name = name(node, f);
    List<UpstreamConfig> upstreams = new ArrayList<>();
    YamlNode list = require(node, f, "upstreams");
    if (list != null) {
      for (YamlNode item : list.items()) {
        Map<String, YamlNode> u = item.fields("address", "weight");
        Endpoint address = endpoint(require(item, u, "address"));
        int weight = u.containsKey("weight") ? intIn(u.get("weight"), 1, 1000, 1) : 1;
        if (address != null) {
          if (upstreams.stream().anyMatch(known -> known.address().equals(address))) {
            item.problem(
                "upstream " + address + " is listed twice (use weight for a larger share)");
          }
          upstreams.add(new UpstreamConfig(address, weight));
        }
      }
      if (list.isSequence() && list.items().isEmpty()) {
        list.problem("needs at least one upstream");
      }
    }
    ClusterConfig.Balance balance =
        f.containsKey("balance")
            ? choice(
                f.get("balance"), ClusterConfig.Balance.class, ClusterConfig.Balance.ROUNDROBIN)
            : ClusterConfig.Balance.ROUNDROBIN;
    ClusterConfig.UpstreamTls tls = f.containsKey("tls") ? upstreamTls(f.get("tls")) : null;
    ClusterConfig.HealthCheck check =
        f.containsKey("healthCheck") ? healthCheck(f.get("healthCheck"), tls != null) : null;
    ClusterConfig.PassiveHealth passive = ClusterConfig.PassiveHealth.DEFAULTS;
    if (f.containsKey("passive")) {
      Map<String, YamlNode> p =
          f.get("passive").fields("failures", "backoff", "maxBackoff", "maxEjectedPercent");
      passive =
          new ClusterConfig.PassiveHealth(
              p.containsKey("failures") ? intIn(p.get("failures"), 0, 1000, 3) : 3,
              timeout(p, "backoff", passive.backoff()),
              timeout(p, "maxBackoff", passive.maxBackoff()),
              maxEjectedPercent(p.get("maxEjectedPercent")));
      if (passive.maxBackoff().compareTo(passive.backoff()) < 0) {
        f.get("passive").problem("maxBackoff is shorter than backoff");
      }
    }
    ClusterConfig.Retries retries = ClusterConfig.Retries.DEFAULTS;
    if (f.containsKey("retries")) {
      Map<String, YamlNode> r = f.get("retries").fields("tries", "within");
      retries =
          new ClusterConfig.Retries(
              r.containsKey("tries") ? intIn(r.get("tries"), 1, 100, 3) : 3,
              timeout(r, "within", retries.within()));
    }
    Duration slowStart = timeout(f, "slowStart", Duration.ZERO);
    Duration resolve = timeout(f, "resolveInterval", Duration.ZERO);
    ProxyHeader.Version proxyProtocol =
        f.containsKey("proxyProtocol") ? proxyVersion(f.get("proxyProtocol")) : null;
    FingerprintTlvs fingerprintTlvs = FingerprintTlvs.DEFAULTS;
    if (f.containsKey("proxyProtocolTlvs")) {
      YamlNode tlvs = f.get("proxyProtocolTlvs");
      if (proxyProtocol != ProxyHeader.Version.V2) {
        tlvs.problem("TLVs are sent in PROXY protocol v2 headers: set proxyProtocol: v2");
      }
      Map<String, YamlNode> t = tlvs.fields("ja3", "ja4");
      int ja3 = FingerprintTlvs.DEFAULTS.ja3();
      int ja4 = FingerprintTlvs.DEFAULTS.ja4();
      fingerprintTlvs =
          new FingerprintTlvs(
              t.containsKey("ja3") ? tlvType(t.get("ja3"), ja3) : ja3,
              t.containsKey("ja4") ? tlvType(t.get("ja4"), ja4) : ja4);
    }
    return name == null
        ? null
        : new ClusterConfig(
            name,
            upstreams,
            balance,
            check,
            passive,
            retries,
            slowStart,
            resolve,
            tls,
            proxyProtocol,
            fingerprintTlvs);
  }

  /** A TLV type: one byte, written 0xE0 or 224, or {@code none} for a value not sent. */
  private int tlvType(YamlNode node, int fallback) {
    String text = node.text().orElse(null);
    if (text == null) {
      return fallback;
    }
    String t = text.strip().toLowerCase(Locale.ROOT);
    if (t.equals("none")) {
      return FingerprintTlvs.NOT_SENT;
    }
    try {
      int type = t.startsWith("0x") ? Integer.parseInt(t.substring(2), 16) : Integer.parseInt(t);
      if (type >= 1 && type <= 0xff) {
        return type;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    node.problem("'" + text + "' is not a TLV type (0x01 to 0xff, or none)");
    return fallback;
  }

  /** A share of upstreams, written {@code 50%} or {@code 50}. */
  private int maxEjectedPercent(YamlNode node) {
    int fallback = ClusterConfig.PassiveHealth.DEFAULT_MAX_EJECTED_PERCENT;
    if (node == null) {
      return fallback;
    }
    String text = node.text().orElse(null);
    if (text == null || !text.strip().endsWith("%")) {
      return intIn(node, 0, 100, fallback);
    }
    String number = text.strip().substring(0, text.strip().length() - 1).strip();
    if (!number.matches("\\d{1,3}") || Integer.parseInt(number) > 100) {
      node.problem("'" + text + "' is not a share of 0% to 100%");
      return fallback;
    }
    return Integer.parseInt(number);
  }

  private ClusterConfig.HealthCheck healthCheck(YamlNode node, boolean clusterTls) {
    Map<String, YamlNode> f =
        node.fields("type", "interval", "timeout", "rise", "fall", "send", "expect");
    ClusterConfig.CheckType type =
        f.containsKey("type")
            ? choice(f.get("type"), ClusterConfig.CheckType.class, ClusterConfig.CheckType.TCP)
            : ClusterConfig.CheckType.TCP;
    Duration interval = timeout(f, "interval", Duration.ofSeconds(2));
    Duration timeout = timeout(f, "timeout", Duration.ofSeconds(1));
    if (interval.isZero()) {
      node.problem("a health check needs an interval");
    }
    if (timeout.isZero()) {
      node.problem("a health check needs a timeout");
    }
    int rise = f.containsKey("rise") ? intIn(f.get("rise"), 1, 100, 2) : 2;
    int fall = f.containsKey("fall") ? intIn(f.get("fall"), 1, 100, 3) : 3;
    String send = f.containsKey("send") ? f.get("send").text().orElse(null) : null;
    String expect = f.containsKey("expect") ? f.get("expect").text().orElse(null) : null;
    if (type == ClusterConfig.CheckType.SEND && (send == null || expect == null)) {
      node.problem("a send check needs send: and expect:");
    }
    if (type != ClusterConfig.CheckType.SEND && (send != null || expect != null)) {
      node.problem("send: and expect: are for type: send");
    }
    if (type == ClusterConfig.CheckType.TLS && !clusterTls) {
      node.problem("a tls check needs the cluster's tls: settings");
    }
    return new ClusterConfig.HealthCheck(type, interval, timeout, rise, fall, send, expect);
  }

  private ClusterConfig.UpstreamTls upstreamTls(YamlNode node) {
    Map<String, YamlNode> f =
        node.fields(
            "ca",
            "serverName",
            "alpn",
            "cert",
            "key",
            "p12",
            "password",
            "handshakeTimeout",
            "engine",
            "sessionCache");
    Path ca = null;
    if (f.containsKey("ca")) {
      ca = readableFile(f.get("ca"));
      if (ca != null) {
        try {
          TrustMaterial.fromPem(ca);
        } catch (KeyMaterialException e) {
          f.get("ca").problem(e.getMessage());
        }
      }
    }
    String serverName =
        f.containsKey("serverName") ? f.get("serverName").text().orElse(null) : null;
    List<String> alpn = f.containsKey("alpn") ? strings(f.get("alpn")) : List.of();
    Certificate certificate = null;
    if (f.containsKey("cert") || f.containsKey("key") || f.containsKey("p12")) {
      certificate = certificate(node, f);
    } else if (f.containsKey("password")) {
      f.get("password").problem("a password goes with a client certificate (cert and key, or p12)");
    }
    Duration handshakeTimeout =
        timeout(f, "handshakeTimeout", ClusterConfig.UpstreamTls.DEFAULT_HANDSHAKE_TIMEOUT);
    TlsEngineKind engine =
        f.containsKey("engine") ? tlsEngine(f.get("engine"), false) : TlsEngineKind.defaultKind();
    int sessionCacheSize =
        f.containsKey("sessionCache")
            ? upstreamSessionCacheSize(f.get("sessionCache"), engine)
            : TlsClient.DEFAULT_SESSION_CACHE_SIZE;
    return new ClusterConfig.UpstreamTls(
        ca, serverName, alpn, certificate, handshakeTimeout, engine, sessionCacheSize);
  }

  private int upstreamSessionCacheSize(YamlNode node, TlsEngineKind engine) {
    Map<String, YamlNode> f = node.fields("size");
    if (!f.containsKey("size")) {
      return TlsClient.DEFAULT_SESSION_CACHE_SIZE;
    }
    int size =
        intIn(
            f.get("size"),
            0,
            ClusterConfig.UpstreamTls.MAX_SESSION_CACHE_SIZE,
            TlsClient.DEFAULT_SESSION_CACHE_SIZE);
    // auto is the JDK for a client
    String refused =
        TlsClient.sessionCacheSizeRefusal(
            size, engine == TlsEngineKind.OPENSSL ? engine : TlsEngineKind.JDK);
    if (refused != null) {
      f.get("size").problem(refused);
      return TlsClient.DEFAULT_SESSION_CACHE_SIZE;
    }
    return size;
  }

  // ---- timeouts and buffers ----

  private TimeoutSettings timeouts(Map<String, YamlNode> f, TimeoutSettings base) {
    return new TimeoutSettings(
        timeout(f, "connect", base.connect()),
        timeout(f, "idle", base.idle()),
        timeout(f, "handshake", base.handshake()),
        timeout(f, "halfClose", base.halfClose()),
        timeout(f, "maxConnectionDuration", base.maxConnectionDuration()),
        timeout(f, "writeStall", base.writeStall()),
        timeout(f, "requestHead", base.requestHead()),
        timeout(f, "keepAlive", base.keepAlive()),
        timeout(f, "responseHead", base.responseHead()));
  }

  private Duration timeout(Map<String, YamlNode> f, String key, Duration fallback) {
    YamlNode node = f.get(key);
    if (node == null) {
      return fallback;
    }
    return node.text()
        .map(
            text -> {
              try {
                Duration value = Units.duration(text);
                if (value.compareTo(Timeouts.MAX) > 0) {
                  node.problem(
                      key
                          + " '"
                          + text
                          + "' is above the longest timeout, "
                          + Timeouts.MAX.toDays()
                          + " days");
                  return fallback;
                }
                return Timeouts.check(key, value);
              } catch (IllegalArgumentException e) {
                node.problem(e.getMessage());
                return fallback;
              }
            })
        .orElse(fallback);
  }

  private record GlobalBuffers(ReadSizes reads, long maxBytesInFlight) {}

  private GlobalBuffers buffers(YamlNode node) {
    long defaultBudget = Runtime.getRuntime().maxMemory() / 4;
    ReadSizes defaults = new ReadSizes(ReadSizes.DEFAULT, ReadSizes.DEFAULT);
    if (node == null) {
      return new GlobalBuffers(defaults, defaultBudget);
    }
    Map<String, YamlNode> f =
        node.fields(
            "readBufferSize", "clientReadBufferSize", "upstreamReadBufferSize", "maxBytesInFlight");
    long budget =
        f.containsKey("maxBytesInFlight")
            ? sizeIn(f.get("maxBytesInFlight"), MIN_BYTES_IN_FLIGHT, Long.MAX_VALUE, defaultBudget)
            : defaultBudget;
    return new GlobalBuffers(readSizes(f, defaults), budget);
  }

  private ReadSizes readSizes(Map<String, YamlNode> f, ReadSizes base) {
    int both = -1;
    if (f.containsKey("readBufferSize")) {
      both = (int) sizeIn(f.get("readBufferSize"), 1, ReadSizes.MAX, ReadSizes.DEFAULT);
    }
    int client = both > 0 ? both : base.client();
    int upstream = both > 0 ? both : base.upstream();
    if (f.containsKey("clientReadBufferSize")) {
      client = (int) sizeIn(f.get("clientReadBufferSize"), 1, ReadSizes.MAX, client);
    }
    if (f.containsKey("upstreamReadBufferSize")) {
      upstream = (int) sizeIn(f.get("upstreamReadBufferSize"), 1, ReadSizes.MAX, upstream);
    }
    return new ReadSizes(client, upstream);
  }

  // ---- values ----

  private YamlNode require(YamlNode parent, Map<String, YamlNode> fields, String key) {
    YamlNode node = fields.get(key);
    if (node == null) {
      parent.problem("missing field '" + key + "'");
    }
    return node;
  }

  private String name(YamlNode parent, Map<String, YamlNode> f) {
    YamlNode node = require(parent, f, "name");
    String name = node == null ? null : node.text().orElse(null);
    if (name != null && !NAME.matcher(name).matches()) {
      node.problem("'" + name + "' is not a name: letters, digits, '_', '.' and '-'");
      return null;
    }
    return name;
  }

  private Endpoint endpoint(YamlNode node) {
    Endpoint endpoint = node == null ? null : parsed(node, Endpoint::parse);
    if (endpoint instanceof Endpoint.Unix unix) {
      return new Endpoint.Unix(baseDir.resolve(unix.path()).normalize()); // like every file path
    }
    return endpoint;
  }

  /** An address to listen on: its host must resolve now, as the bind would need it to. */
  private Endpoint bindAddress(YamlNode node) {
    Endpoint endpoint = endpoint(node);
    if (endpoint instanceof Endpoint.Tcp tcp
        && ((java.net.InetSocketAddress) tcp.socketAddress()).isUnresolved()) {
      node.problem("the host '" + tcp.host() + "' does not resolve: nothing to listen on");
      return null;
    }
    return endpoint;
  }

  private Path readableFile(YamlNode node) {
    if (node == null) {
      return null;
    }
    String text = node.text().orElse(null);
    if (text == null) {
      return null;
    }
    Path path = baseDir.resolve(text).normalize();
    namedFiles.add(path.toAbsolutePath());
    if (!Files.isReadable(path)) {
      node.problem(
          "cannot read " + path + (Files.exists(path) ? " (permissions)" : " (no such file)"));
      return null;
    }
    return path;
  }

  private boolean bool(YamlNode node) {
    String text = node.text().orElse("");
    return switch (text) {
      case "true" -> true;
      case "false" -> false;
      default -> {
        node.problem("'" + text + "' is not true or false");
        yield false;
      }
    };
  }

  private int limit(YamlNode node) {
    if (node.text().filter("none"::equals).isPresent()) {
      return 0;
    }
    return intIn(node, 1, Integer.MAX_VALUE, 0);
  }

  private int intIn(YamlNode node, int min, int max, int fallback) {
    String text = node.text().orElse(null);
    if (text == null) {
      return fallback;
    }
    try {
      long value = Long.parseLong(text.strip());
      if (value < min || value > max) {
        node.problem(value + " is out of range " + min + ".." + max);
        return fallback;
      }
      return (int) value;
    } catch (NumberFormatException e) {
      node.problem(
          text.strip().matches("-?\\d+")
              ? "'" + text + "' is out of range " + min + ".." + max
              : "'" + text + "' is not a whole number");
      return fallback;
    }
  }

  private long sizeIn(YamlNode node, long min, long max, long fallback) {
    Long size = parsed(node, Units::size);
    if (size == null) {
      return fallback;
    }
    if (size < min || size > max) {
      node.problem(
          Units.formatSize(size)
              + " is out of range "
              + Units.formatSize(min)
              + ".."
              + (max == Long.MAX_VALUE ? "" : Units.formatSize(max)));
      return fallback;
    }
    return size;
  }

  private List<String> strings(YamlNode node) {
    List<String> values = new ArrayList<>();
    for (YamlNode item : node.items()) {
      item.text().ifPresent(values::add);
    }
    return values;
  }

  private List<String> protocols(YamlNode node) {
    List<String> values = strings(node);
    for (int i = 0; i < values.size(); i++) {
      if (!values.get(i).equals("TLSv1.3") && !values.get(i).equals("TLSv1.2")) {
        node.items()
            .get(i)
            .problem("'" + values.get(i) + "' is not a protocol: TLSv1.3 or TLSv1.2");
      }
    }
    if (values.isEmpty() && node.isSequence()) {
      node.problem("needs at least one protocol");
    }
    return values;
  }

  private <E extends Enum<E>> E choice(YamlNode node, Class<E> type, E fallback) {
    String text = node.text().orElse(null);
    if (text == null) {
      return fallback;
    }
    for (E value : type.getEnumConstants()) {
      if (value.name().equalsIgnoreCase(text)) {
        return value;
      }
    }
    List<String> names = new ArrayList<>();
    for (E value : type.getEnumConstants()) {
      names.add(value.name().toLowerCase(Locale.ROOT));
    }
    node.problem("'" + text + "' is not one of " + String.join(", ", names));
    return fallback;
  }

  private <T> T parsed(YamlNode node, Function<String, T> parser) {
    Optional<String> text = node.text();
    if (text.isEmpty()) {
      return null;
    }
    try {
      return parser.apply(text.get());
    } catch (IllegalArgumentException e) {
      node.problem(e.getMessage());
      return null;
    }
  }
}
