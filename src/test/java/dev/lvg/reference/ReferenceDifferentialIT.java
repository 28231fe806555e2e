package dev.lvg.reference;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.ManifestFiles;
import dev.lvg.TestGateway;
import dev.lvg.bench.ReferenceServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.lance.namespace.RestAdapter;

/**
 * One scripted sequence of namespace, table and version operations against the gateway and against
 * the upstream reference server (lance-core's RestAdapter over a DirectoryNamespace). Where the
 * reference follows the spec, both must answer alike: both 2xx, or the same status and error code.
 * Where the gateway deliberately differs (listed in the README), both sides' answers are asserted.
 * Both finalize real staging manifests on local disk; where both succeed, their bodies agree on
 * version numbers, names, manifest file names and sizes.
 */
class ReferenceDifferentialIT {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /**
   * A server under test: where it listens, what headers it needs, where its staging manifests go.
   */
  private interface Target {
    String baseUrl();

    Map<String, String> headers();

    /** A staging manifest path for {@code ns1$t}, as a writer would send it. */
    String stagingManifest(String name) throws IOException;
  }

  private record Answer(int status, Integer code) {
    static Answer of(HttpResponse<String> response) {
      JsonNode body = bodyOf(response);
      Integer code = body != null && body.has("code") ? body.get("code").intValue() : null;
      return new Answer(response.statusCode(), code);
    }

    boolean success() {
      return status >= 200 && status < 300;
    }
  }

  private static JsonNode bodyOf(HttpResponse<String> response) {
    try {
      return response.body().isEmpty() ? null : MAPPER.readTree(response.body());
    } catch (IOException notJson) {
      return null;
    }
  }

  /** The fields both servers must agree on, where both send them. */
  private static final Set<String> COMPARED =
      Set.of("version", "versions", "manifest_path", "manifest_size", "namespaces", "tables");

  /**
   * A body reduced to what both servers must agree on: version numbers, names, manifest file names
   * (their directories differ) and sizes.
   */
  private static JsonNode normalized(JsonNode node) {
    if (node == null) {
      return null;
    }
    if (node.isArray()) {
      ArrayNode items = MAPPER.createArrayNode();
      node.forEach(item -> items.add(normalized(item)));
      return items;
    }
    if (!node.isObject()) {
      return node;
    }
    ObjectNode kept = MAPPER.createObjectNode();
    node.fieldNames()
        .forEachRemaining(
            name -> {
              if (!COMPARED.contains(name)) {
                return;
              }
              JsonNode value = node.get(name);
              if (name.equals("manifest_path")) {
                String path = value.asText();
                kept.put(name, path.substring(path.lastIndexOf('/') + 1));
              } else {
                kept.set(name, normalized(value));
              }
            });
    return kept;
  }

  /** The fields of {@code ours} and {@code theirs} that both carry, side by side. */
  private static void assertSameWhereBothAnswer(JsonNode ours, JsonNode theirs, String what) {
    if (ours == null || theirs == null || !ours.isObject() || !theirs.isObject()) {
      return;
    }
    ObjectNode left = MAPPER.createObjectNode();
    ObjectNode right = MAPPER.createObjectNode();
    ours.fieldNames()
        .forEachRemaining(
            name -> {
              if (theirs.has(name)) {
                left.set(name, ours.get(name));
                right.set(name, theirs.get(name));
              }
            });
    assertThat(left).as(what).isEqualTo(right);
  }

  /** What a step expects: the two servers agree, or a documented difference. */
  private record Step(
      String name,
      String method,
      String path,
      Function<Target, String> body,
      Answer gatewayDiffers,
      Answer referenceDiffers) {}

  private static Step same(String name, String method, String path, Function<Target, String> body) {
    return new Step(name, method, path, body, null, null);
  }

  private static Step differs(
      String name, String path, Function<Target, String> body, Answer gateway, Answer reference) {
    return new Step(name, "POST", path, body, gateway, reference);
  }

  private static Function<Target, String> json(String body) {
    return target -> body;
  }

  private static Function<Target, String> create(long version, String staging) {
    return target -> {
      try {
        return "{\"version\":"
            + version
            + ",\"manifest_path\":\""
            + target.stagingManifest(staging)
            + "\",\"manifest_size\":21,\"naming_scheme\":\"V2\"}";
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    };
  }

  private static final String CREATE = "/v1/table/ns1%24t/version/create";

  private static List<Step> script() {
    List<Step> steps = new ArrayList<>();
    steps.add(same("create namespace", "POST", "/v1/namespace/ns1/create", json("{}")));
    steps.add(same("create it again", "POST", "/v1/namespace/ns1/create", json("{}")));
    steps.add(same("describe namespace", "POST", "/v1/namespace/ns1/describe", json("{}")));
    steps.add(
        same("describe missing namespace", "POST", "/v1/namespace/nope/describe", json("{}")));
    steps.add(same("missing namespace exists?", "POST", "/v1/namespace/nope/exists", json("{}")));
    steps.add(same("list root namespaces", "GET", "/v1/namespace/%24/list", null));
    steps.add(same("declare table", "POST", "/v1/table/ns1%24t/declare", json("{}")));
    steps.add(same("declare it again", "POST", "/v1/table/ns1%24t/declare", json("{}")));
    steps.add(
        differs(
            "declare in a missing namespace",
            "/v1/table/nope%24t/declare",
            json("{}"),
            new Answer(404, 1),
            new Answer(201, null)));
    steps.add(same("describe table", "POST", "/v1/table/ns1%24t/describe", json("{}")));
    steps.add(same("table exists?", "POST", "/v1/table/ns1%24t/exists", json("{}")));
    steps.add(same("missing table exists?", "POST", "/v1/table/ns1%24zz/exists", json("{}")));
    steps.add(same("list tables", "GET", "/v1/namespace/ns1/table/list", null));
    steps.add(
        same(
            "list versions of a new table",
            "POST",
            "/v1/table/ns1%24t/version/list",
            json("null")));
    steps.add(
        same(
            "describe missing version",
            "POST",
            "/v1/table/ns1%24t/version/describe",
            json("{\"version\":9}")));
    steps.add(same("create version 1", "POST", CREATE, create(1, "1.manifest-a")));
    steps.add(
        same("claim version 1 with another manifest", "POST", CREATE, create(1, "1.manifest-b")));
    steps.add(
        differs(
            "retry the request that created version 1",
            CREATE,
            create(1, "1.manifest-a"),
            new Answer(200, null),
            new Answer(500, 18)));
    steps.add(
        differs(
            "skip to version 3",
            CREATE,
            create(3, "3.manifest-c"),
            new Answer(409, 14),
            new Answer(200, null)));
    steps.add(same("create version 2", "POST", CREATE, create(2, "2.manifest-d")));
    steps.add(
        same(
            "describe version 2",
            "POST",
            "/v1/table/ns1%24t/version/describe",
            json("{\"version\":2}")));
    steps.add(
        same(
            "describe version 1",
            "POST",
            "/v1/table/ns1%24t/version/describe",
            json("{\"version\":1}")));
    steps.add(
        differs(
            "negative version",
            CREATE,
            create(-1, "neg.manifest-e"),
            new Answer(400, 13),
            new Answer(200, null)));
    steps.add(
        differs(
            "version as a string",
            CREATE,
            json("{\"version\":\"a\",\"manifest_path\":\"x\"}"),
            new Answer(400, 13),
            new Answer(422, null)));
    steps.add(
        same(
            "create on a missing table",
            "POST",
            "/v1/table/ns1%24nope/version/create",
            json("{\"version\":1,\"manifest_path\":\"x\"}")));
    steps.add(
        differs(
            "create in a missing namespace",
            "/v1/table/zz%24nope/version/create",
            json("{\"version\":1,\"manifest_path\":\"x\"}"),
            new Answer(404, 1),
            new Answer(404, 4)));
    steps.add(same("drop a non-empty namespace", "POST", "/v1/namespace/ns1/drop", json("{}")));
    steps.add(same("deregister table", "POST", "/v1/table/ns1%24t/deregister", json("{}")));
    steps.add(
        same("describe deregistered table", "POST", "/v1/table/ns1%24t/describe", json("{}")));
    steps.add(same("drop missing namespace", "POST", "/v1/namespace/ghost/drop", json("{}")));
    steps.add(
        differs(
            "drop missing namespace with mode Skip",
            "/v1/namespace/ghost/drop",
            json("{\"mode\":\"Skip\"}"),
            new Answer(200, null),
            new Answer(404, 1)));
    steps.add(same("drop the now empty namespace", "POST", "/v1/namespace/ns1/drop", json("{}")));
    return steps;
  }

  @Test
  void gatewayAnswersLikeTheReferenceWhereTheReferenceFollowsTheSpec() throws Exception {
    TestGateway gw = TestGateway.finalizing();
    String key = gw.newTenant("differential");
    Path root = Files.createTempDirectory("lvg-reference-");
    try (RestAdapter reference = ReferenceServer.adapter(root, 0)) {
      reference.start();
      Target gateway = new FileTarget(gw.baseUrl, Map.of("x-api-key", key));
      Target upstream = new FileTarget("http://127.0.0.1:" + reference.getPort(), Map.of());

      List<String> report = new ArrayList<>();
      for (Step step : script()) {
        HttpResponse<String> ourResponse =
            send(gateway, step.method(), step.path(), bodyOf(step, gateway));
        HttpResponse<String> theirResponse =
            send(upstream, step.method(), step.path(), bodyOf(step, upstream));
        Answer ours = Answer.of(ourResponse);
        Answer theirs = Answer.of(theirResponse);
        report.add(step.name() + ": gateway " + ours + ", reference " + theirs);
        if (step.gatewayDiffers() == null) {
          if (theirs.success()) {
            assertThat(ours.success()).as("%s: %s", step.name(), report).isTrue();
            assertSameWhereBothAnswer(
                normalized(bodyOf(ourResponse)),
                normalized(bodyOf(theirResponse)),
                step.name() + " (bodies)");
          } else {
            assertThat(ours).as("%s: %s", step.name(), report).isEqualTo(theirs);
          }
        } else {
          assertThat(ours)
              .as("%s (gateway): %s", step.name(), report)
              .isEqualTo(step.gatewayDiffers());
          assertThat(theirs)
              .as("%s (reference): %s", step.name(), report)
              .isEqualTo(step.referenceDiffers());
        }
      }
    }
  }

  /**
   * A server that finalizes on local files: a staging manifest is written once, where its table
   * lives (from {@code describe}), as a writer does; a retry finds it already moved.
   */
  private static final class FileTarget implements Target {
    private final String baseUrl;
    private final Map<String, String> headers;
    private final Set<String> written = new HashSet<>();
    private Path versions;

    FileTarget(String baseUrl, Map<String, String> headers) {
      this.baseUrl = baseUrl;
      this.headers = headers;
    }

    @Override
    public String baseUrl() {
      return baseUrl;
    }

    @Override
    public Map<String, String> headers() {
      return headers;
    }

    @Override
    public String stagingManifest(String name) throws IOException {
      if (versions == null) {
        JsonNode table =
            MAPPER.readTree(send(this, "POST", "/v1/table/ns1%24t/describe", "{}").body());
        String location = table.get("location").asText();
        Path path =
            location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
        versions = path.resolve("_versions");
        Files.createDirectories(versions);
      }
      Path staging = versions.resolve(name);
      if (written.add(name)) {
        Files.write(staging, ManifestFiles.of("manifest " + name));
      }
      return staging.toString().substring(1);
    }
  }

  private static String bodyOf(Step step, Target target) {
    return step.body() == null ? null : step.body().apply(target);
  }

  private static HttpResponse<String> send(Target target, String method, String path, String body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(target.baseUrl() + path))
            .header("Content-Type", "application/json");
    target.headers().forEach(request::header);
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    try {
      return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new AssertionError(target.baseUrl() + path, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
