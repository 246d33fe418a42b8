package dev.sluice.proxy.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.config.ListenerConfig;
import dev.sluice.proxy.config.ProxyConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * The Kustomize base in deploy/kubernetes, rendered by the real {@code kubectl kustomize} (offline)
 * and checked against the configuration it ships: the probes reach the admin listener, the grace
 * period outlasts the pause and the drain, the Service and the PodDisruptionBudget select the pods,
 * and the ConfigMap's sluice.yaml is one {@code sluice check} accepts.
 */
class KubernetesBaseTest {
  private static final Path BASE = Path.of("..", "deploy", "kubernetes");

  @TempDir static Path dir;

  private static List<Tree> rendered;
  private static ProxyConfig config;

  @BeforeAll
  static void render() throws Exception {
    Path err = dir.resolve("kubectl.err");
    Process kubectl;
    try {
      kubectl =
          new ProcessBuilder("kubectl", "kustomize", BASE.toString())
              .redirectError(err.toFile())
              .start();
    } catch (IOException e) {
      throw new IllegalStateException(
          "rendering the Kubernetes base needs 'kubectl' on PATH (Debian: kubernetes-client)", e);
    }
    String yaml = new String(kubectl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(kubectl.waitFor(60, TimeUnit.SECONDS)).as("kubectl kustomize finished").isTrue();
    assertThat(kubectl.exitValue()).as("kubectl kustomize: %s", Files.readString(err)).isZero();
    Load load = new Load(LoadSettings.builder().build());
    List<Tree> docs = new java.util.ArrayList<>();
    for (Object doc : load.loadAllFromString(yaml)) {
      docs.add(new Tree("doc" + docs.size(), doc));
    }
    rendered = List.copyOf(docs);
    config =
        ConfigReader.read(only("ConfigMap").at("data", "sluice.yaml").text(), "sluice.yaml", dir);
  }

  private static Tree only(String kind) {
    List<Tree> of = rendered.stream().filter(d -> d.at("kind").text().equals(kind)).toList();
    assertThat(of).as("%s resources rendered", kind).hasSize(1);
    Tree doc = of.getFirst();
    return new Tree(kind, doc.value());
  }

  private static Tree pod() {
    return only("Deployment").at("spec", "template");
  }

  private static Tree container() {
    List<Tree> containers = pod().at("spec", "containers").list();
    assertThat(containers).hasSize(1);
    return containers.getFirst();
  }

  /** A probe's or a Service's port: a number, or the name of one of the container's ports. */
  private static int containerPort(Tree port) {
    if (port.value() instanceof String name) {
      return container().at("ports").find("name", name).at("containerPort").integer();
    }
    return port.integer();
  }

  @Test
  void theConfigMapHoldsAConfigurationThatPassesCheck() {
    assertThat(config.listeners()).isNotEmpty();
    assertThat(config.admin()).as("an admin listener, for the probes").isNotNull();
  }

  @Test
  void theProbesReachTheAdminListenerOnThePodsAddress() {
    Endpoint.Tcp admin = config.admin().address();
    assertThat(admin.host()).as("admin must listen beyond loopback").isIn("0.0.0.0", "::");
    Tree readiness = container().at("readinessProbe", "httpGet");
    Tree liveness = container().at("livenessProbe", "httpGet");
    assertThat(readiness.at("path").text()).isEqualTo("/ready");
    assertThat(liveness.at("path").text()).isEqualTo("/live");
    assertThat(containerPort(readiness.at("port"))).isEqualTo(admin.port());
    assertThat(containerPort(liveness.at("port"))).isEqualTo(admin.port());
  }

  @Test
  void theGracePeriodOutlastsThePauseAndTheDrain() {
    int pause = container().at("lifecycle", "preStop", "sleep", "seconds").integer();
    assertThat(pause).as("a pause so endpoints drop before SIGTERM").isPositive();
    int grace = pod().at("spec", "terminationGracePeriodSeconds").integer();
    assertThat((long) grace).isGreaterThan(config.drainTimeout().toSeconds() + pause);
  }

  @Test
  void thePodRunsUnprivileged() {
    assertThat(pod().at("spec", "securityContext", "runAsNonRoot").value()).isEqualTo(true);
    Tree security = container().at("securityContext");
    assertThat(security.at("readOnlyRootFilesystem").value()).isEqualTo(true);
    assertThat(security.at("allowPrivilegeEscalation").value()).isEqualTo(false);
    assertThat(security.at("capabilities", "drop").list()).extracting(Tree::value).contains("ALL");
    assertThat(container().has("resources")).isTrue();
    assertThat(container().at("resources", "requests").labels()).containsKeys("cpu", "memory");
    assertThat(container().at("resources", "limits").labels()).containsKey("memory");
  }

  @Test
  void replicasAreSelectedByTheServiceAndTheDisruptionBudget() {
    Tree deployment = only("Deployment");
    assertThat(deployment.at("spec", "replicas").integer()).isGreaterThanOrEqualTo(2);
    var podLabels = pod().at("metadata", "labels").labels();
    assertThat(podLabels)
        .containsAllEntriesOf(deployment.at("spec", "selector", "matchLabels").labels());
    assertThat(podLabels)
        .containsAllEntriesOf(
            only("PodDisruptionBudget").at("spec", "selector", "matchLabels").labels());
    assertThat(podLabels).containsAllEntriesOf(only("Service").at("spec", "selector").labels());
  }

  @Test
  void theServiceSendsClientsToTheConfiguredListeners() {
    Set<Integer> listenerPorts =
        config.listeners().stream()
            .map(ListenerConfig::address)
            .filter(a -> a instanceof Endpoint.Tcp)
            .map(a -> ((Endpoint.Tcp) a).port())
            .collect(Collectors.toSet());
    Set<Integer> targets =
        only("Service").at("spec", "ports").list().stream()
            .map(p -> containerPort(p.at("targetPort")))
            .collect(Collectors.toSet());
    assertThat(targets).isEqualTo(listenerPorts);
  }

  @Test
  void theConfigMapIsMountedAsADirectoryUnderAFixedName() throws IOException {
    String name = only("ConfigMap").at("metadata", "name").text();
    Tree kustomization =
        new Tree(
            "kustomization",
            new Load(LoadSettings.builder().build())
                .loadFromString(Files.readString(BASE.resolve("kustomization.yaml"))));
    // The name as written, no hash suffix: an edit reloads in place instead of rolling out.
    assertThat(name)
        .isEqualTo(kustomization.at("configMapGenerator").list().getFirst().at("name").text());
    Tree volume =
        pod().at("spec", "volumes").list().stream()
            .filter(v -> v.has("configMap") && v.at("configMap", "name").value().equals(name))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no volume of ConfigMap " + name));
    Tree mount = container().at("volumeMounts").find("name", volume.at("name").text());
    assertThat(mount.has("subPath")).as("a subPath mount is never updated").isFalse();
    List<Object> command = container().at("command").list().stream().map(Tree::value).toList();
    assertThat(command)
        .containsSubsequence("run", "--config", mount.at("mountPath").text() + "/sluice.yaml");
  }

  @Test
  void theImageIsTheProjectsVersion() throws IOException {
    Matcher version =
        Pattern.compile("<artifactId>sluice-parent</artifactId>\\s*<version>([^<]+)</version>")
            .matcher(Files.readString(Path.of("..", "pom.xml")));
    assertThat(version.find()).isTrue();
    assertThat(container().at("image").text()).isEqualTo("sluice:" + version.group(1));
  }
}
