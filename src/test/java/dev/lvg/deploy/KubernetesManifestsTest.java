package dev.lvg.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Renders the overlays in {@code k8s/} with {@code kubectl kustomize} (offline) and reads every
 * object into the typed Kubernetes model (fabric8): ports and probe paths match the gateway's,
 * every {@code LVG_} name is a setting the gateway knows, and the pods run as a non-root user on a
 * read-only root file system with every capability dropped.
 */
class KubernetesManifestsTest {
  private static final ObjectMapper YAML =
      new YAMLMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
  private static final Map<String, Class<? extends HasMetadata>> KINDS =
      Map.of(
          "ConfigMap", ConfigMap.class,
          "Service", Service.class,
          "Deployment", Deployment.class,
          "HorizontalPodAutoscaler", HorizontalPodAutoscaler.class,
          "PodDisruptionBudget", PodDisruptionBudget.class,
          "NetworkPolicy", NetworkPolicy.class,
          "ServiceMonitor", ServiceMonitor.class,
          "PersistentVolumeClaim", PersistentVolumeClaim.class,
          "Secret", Secret.class);

  private static List<HasMetadata> render(String overlay) throws Exception {
    Process kubectl =
        new ProcessBuilder("kubectl", "kustomize", "k8s/overlays/" + overlay)
            .redirectErrorStream(true)
            .start();
    String out = new String(kubectl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(kubectl.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(kubectl.exitValue()).as(out).isZero();
    return parse(out);
  }

  private static List<HasMetadata> parse(String yaml) throws IOException {
    List<HasMetadata> objects = new ArrayList<>();
    for (JsonNode document :
        YAML.readValues(new YAMLFactory().createParser(yaml), JsonNode.class).readAll()) {
      String kind = document.path("kind").asText();
      assertThat(KINDS).as("a kind this test knows: " + kind).containsKey(kind);
      objects.add(YAML.treeToValue(document, KINDS.get(kind)));
    }
    return objects;
  }

  private static <T> T one(List<HasMetadata> objects, Class<T> type) {
    List<T> found = objects.stream().filter(type::isInstance).map(type::cast).toList();
    assertThat(found).as(type.getSimpleName()).hasSize(1);
    return found.get(0);
  }

  /** Every key of conf/gateway.properties, the secrets and the environment-only settings. */
  private static Set<String> knownSettings() throws IOException {
    Properties properties = new Properties();
    properties.load(Files.newBufferedReader(Path.of("conf/gateway.properties")));
    Set<String> known = new HashSet<>(properties.stringPropertyNames());
    known.addAll(
        Set.of(
            "LVG_BOOTSTRAP_API_KEY",
            "LVG_S3_SECRET_ACCESS_KEY",
            "LVG_ADMIN_API_KEY",
            "LVG_LOG_LEVEL",
            "LVG_LOG_FORMAT",
            "LVG_CONFIG"));
    return known;
  }

  private static Container gateway(PodSpec pod) {
    return pod.getContainers().stream()
        .filter(c -> c.getName().equals("gateway"))
        .findFirst()
        .orElseThrow();
  }

  private static void checkGatewayPod(List<HasMetadata> objects) throws IOException {
    Deployment deployment = one(objects, Deployment.class);
    PodSpec pod = deployment.getSpec().getTemplate().getSpec();
    Container gateway = gateway(pod);
    assertThat(gateway.getPorts())
        .extracting(p -> p.getName() + "=" + p.getContainerPort())
        .containsExactlyInAnyOrder("api=2333", "management=2334");
    assertThat(gateway.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/health/ready");
    assertThat(gateway.getReadinessProbe().getHttpGet().getPort().getStrVal())
        .isEqualTo("management");
    assertThat(gateway.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/health/live");
    // Longer than readiness's own 2 s deadline for PostgreSQL, and than a probe's answer while
    // the gateway sheds a flood.
    assertThat(gateway.getReadinessProbe().getTimeoutSeconds()).isGreaterThanOrEqualTo(5);
    assertThat(gateway.getLivenessProbe().getTimeoutSeconds()).isGreaterThanOrEqualTo(5);

    Set<String> known = knownSettings();
    ConfigMap config = one(objects, ConfigMap.class);
    Set<String> names = new HashSet<>(config.getData().keySet());
    names.addAll(gateway.getEnv().stream().map(EnvVar::getName).collect(Collectors.toSet()));
    assertThat(names.stream().filter(n -> n.startsWith("LVG_"))).allMatch(known::contains);
    assertThat(gateway.getEnvFrom())
        .anyMatch(
            source ->
                source.getConfigMapRef() != null
                    && source.getConfigMapRef().getName().equals(config.getMetadata().getName()));

    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    for (Container container : pod.getContainers()) {
      assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
      assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
      assertThat(container.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    }
    assertThat(gateway.getVolumeMounts()).anyMatch(m -> m.getMountPath().equals("/tmp"));
    int grace =
        gateway.getEnv().stream()
            .filter(e -> e.getName().equals("LVG_SHUTDOWN_GRACE"))
            .map(e -> Integer.parseInt(e.getValue()))
            .findFirst()
            .orElse(20);
    assertThat(pod.getTerminationGracePeriodSeconds()).isGreaterThan(grace);
  }

  @Test
  void theSharedServiceOverlayIsComplete() throws Exception {
    List<HasMetadata> objects = render("shared");
    checkGatewayPod(objects);
    Deployment deployment = one(objects, Deployment.class);
    Map<String, String> podLabels = deployment.getSpec().getTemplate().getMetadata().getLabels();
    assertThat(deployment.getSpec().getTemplate().getSpec().getTopologySpreadConstraints())
        .isNotEmpty();
    assertThat(gateway(deployment.getSpec().getTemplate().getSpec()).getEnvFrom())
        .anyMatch(
            s -> s.getSecretRef() != null && s.getSecretRef().getName().equals("lvg-secrets"));

    Service service = one(objects, Service.class);
    assertThat(podLabels).containsAllEntriesOf(service.getSpec().getSelector());
    assertThat(service.getSpec().getPorts())
        .extracting(p -> p.getName() + "=" + p.getPort())
        .containsExactlyInAnyOrder("api=2333", "management=2334");

    HorizontalPodAutoscaler hpa = one(objects, HorizontalPodAutoscaler.class);
    assertThat(hpa.getSpec().getScaleTargetRef().getName())
        .isEqualTo(deployment.getMetadata().getName());
    assertThat(hpa.getSpec().getMinReplicas()).isGreaterThanOrEqualTo(2);

    PodDisruptionBudget pdb = one(objects, PodDisruptionBudget.class);
    assertThat(podLabels).containsAllEntriesOf(pdb.getSpec().getSelector().getMatchLabels());

    NetworkPolicy policy = one(objects, NetworkPolicy.class);
    assertThat(podLabels).containsAllEntriesOf(policy.getSpec().getPodSelector().getMatchLabels());
    assertThat(policy.getSpec().getPolicyTypes()).contains("Ingress", "Egress");
    assertThat(policy.getSpec().getIngress())
        .flatExtracting(rule -> rule.getPorts())
        .extracting(port -> port.getPort().getIntVal())
        .contains(2333, 2334);
    assertThat(policy.getSpec().getEgress())
        .flatExtracting(rule -> rule.getPorts())
        .extracting(port -> port.getPort().getIntVal())
        .containsExactlyInAnyOrder(5432, 443, 53, 53);

    // The ServiceMonitor's kind exists only with the Prometheus operator: a component, added by
    // the shared-monitored overlay, and nothing else differs.
    assertThat(objects).noneMatch(ServiceMonitor.class::isInstance);
    List<HasMetadata> monitored = render("shared-monitored");
    assertThat(monitored).hasSize(objects.size() + 1);
    ServiceMonitor monitor = one(monitored, ServiceMonitor.class);
    assertThat(podLabels).containsAllEntriesOf(monitor.getSpec().getSelector().getMatchLabels());
    assertThat(monitor.getSpec().getEndpoints())
        .singleElement()
        .satisfies(
            endpoint -> {
              assertThat(endpoint.getPort()).isEqualTo("management");
              assertThat(endpoint.getPath()).isEqualTo("/metrics");
            });

    Secret example =
        (Secret) parse(Files.readString(Path.of("k8s/overlays/shared/secret-example.yaml"))).get(0);
    assertThat(example.getMetadata().getName()).isEqualTo("lvg-secrets");
    assertThat(example.getStringData().keySet()).allMatch(knownSettings()::contains);
  }

  @Test
  void theSidecarOverlayPutsAWriterBesideAGatewayOnLoopback() throws Exception {
    List<HasMetadata> objects = render("sidecar");
    checkGatewayPod(objects);
    assertThat(objects).noneMatch(Service.class::isInstance);
    PodSpec pod = one(objects, Deployment.class).getSpec().getTemplate().getSpec();
    assertThat(pod.getContainers()).extracting(Container::getName).contains("gateway", "writer");
    ConfigMap config = one(objects, ConfigMap.class);
    assertThat(config.getData())
        .containsEntry("LVG_HOST", "127.0.0.1")
        .containsEntry("LVG_MANAGEMENT_HOST", "0.0.0.0");
    String root = config.getData().get("LVG_STORAGE_ROOT");
    assertThat(root).startsWith("file://");
    for (Container container : pod.getContainers()) {
      assertThat(container.getVolumeMounts())
          .anyMatch(m -> m.getName().equals("tables") && root.equals("file://" + m.getMountPath()));
    }
    // The table volume's claim is defined beside the pod that mounts it.
    String claim =
        pod.getVolumes().stream()
            .filter(v -> v.getName().equals("tables"))
            .findFirst()
            .orElseThrow()
            .getPersistentVolumeClaim()
            .getClaimName();
    PersistentVolumeClaim defined = one(objects, PersistentVolumeClaim.class);
    assertThat(defined.getMetadata().getName()).isEqualTo(claim);
    assertThat(defined.getSpec().getAccessModes()).containsExactly("ReadWriteOnce");
  }

  @Test
  void theBaseConfigurationIsTheDefaultConfiguration() throws IOException {
    assertThat(Files.readString(Path.of("k8s/base/gateway.properties")))
        .as("k8s/base/gateway.properties must be a copy of conf/gateway.properties")
        .isEqualTo(Files.readString(Path.of("conf/gateway.properties")));
  }
}
