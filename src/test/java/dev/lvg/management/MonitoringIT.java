package dev.lvg.management;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lvg.Api;
import dev.lvg.ManifestFiles;
import dev.lvg.TestGateway;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard and the alerting rules in {@code k8s/monitoring} name only metrics a
 * running gateway exports: a renamed meter breaks this test, not an operator's pager.
 */
class MonitoringIT {
  private static final Pattern METRIC = Pattern.compile("\\b((?:lvg|vertx|jvm)_[a-z0-9_]+)\\b");

  @Test
  void everyMetricTheDashboardAndTheAlertsNameIsExported() throws Exception {
    String dashboard = Files.readString(Path.of("k8s/monitoring/dashboard.json"));
    String alerts = Files.readString(Path.of("k8s/monitoring/alerts.yaml"));
    JsonNode parsed = new ObjectMapper().readTree(dashboard);
    assertThat(parsed.path("panels").size()).isGreaterThanOrEqualTo(8);
    Set<String> named = new TreeSet<>();
    for (JsonNode panel : parsed.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        named.addAll(metrics(target.path("expr").asText()));
      }
    }
    Set<String> alerted = metrics(alerts);
    assertThat(alerted)
        .contains("lvg_dependency_outage", "lvg_http_server_requests_seconds_bucket");
    named.addAll(alerted);

    TestGateway gw = TestGateway.finalizing();
    Api api = gw.api(gw.newTenant("monitoring"));
    api.post("/v1/namespace/m/create", "{}").assertOk();
    String location = api.post("/v1/table/m%24t/declare", "{}").assertOk().get("location").asText();
    Path staging = Path.of(location, "_versions", "1.manifest-m");
    Files.createDirectories(staging.getParent());
    Files.write(staging, ManifestFiles.of("manifest"));
    api.post(
            "/v1/table/m%24t/version/create",
            "{\"version\":1,\"manifest_path\":\""
                + staging.toString().substring(1)
                + "\",\"naming_scheme\":\"V1\"}")
        .assertOk();
    String exported = scrape(gw);
    // The sinks' meters exist on a gateway with a sink configured (its broker need not answer).
    TestGateway sinking =
        TestGateway.dedicated(
            java.util.Map.of(
                "LVG_DB_URL", TestGateway.shared().databaseUrl(),
                "LVG_FEED_NATS_URL", "nats://127.0.0.1:9",
                "LVG_FEED_KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9"));
    try {
      exported += scrape(sinking);
    } finally {
      sinking.gateway.close();
    }
    Set<String> missing = new TreeSet<>();
    for (String metric : named) {
      if (!Pattern.compile("(?m)^" + metric + "[{ ]").matcher(exported).find()) {
        missing.add(metric);
      }
    }
    assertThat(missing).as("metrics named in k8s/monitoring but not exported").isEmpty();
  }

  private static String scrape(TestGateway gw) {
    return Api.send(HttpRequest.newBuilder(URI.create(gw.managementUrl + "/metrics")).GET().build())
        .text();
  }

  private static Set<String> metrics(String text) {
    Set<String> names = new TreeSet<>();
    Matcher matcher = METRIC.matcher(text);
    while (matcher.find()) {
      names.add(matcher.group(1));
    }
    return names;
  }
}
