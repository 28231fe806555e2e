package dev.lvg;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/** Real HTTP calls to a gateway with one tenant's API key. */
public final class Api {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  private final String baseUrl;
  private final String apiKey;

  public Api(String baseUrl, String apiKey) {
    this.baseUrl = baseUrl;
    this.apiKey = apiKey;
  }

  /** One response: status, body text and, when the body is JSON, its tree. */
  public record Response(int status, String text, HttpResponse<String> raw) {
    public JsonNode json() {
      try {
        return MAPPER.readTree(text);
      } catch (IOException e) {
        throw new AssertionError("response is not JSON: " + text, e);
      }
    }

    /** Asserts an error response: status, spec code and the fields every error body carries. */
    public Response assertError(int expectedStatus, int expectedCode) {
      assertThat(status).as("status of %s", text).isEqualTo(expectedStatus);
      assertThat(raw.headers().firstValue("content-type")).hasValue("application/json");
      JsonNode body = json();
      assertThat(body.path("code").isInt()).as("integer code in %s", text).isTrue();
      assertThat(body.path("code").intValue()).as("code in %s", text).isEqualTo(expectedCode);
      assertThat(body.path("status").intValue()).isEqualTo(expectedStatus);
      assertThat(body.path("error").asText()).isNotBlank();
      assertThat(body.path("detail").asText()).isNotBlank();
      assertThat(body.path("title").asText()).isNotBlank();
      assertThat(body.path("type").asText()).startsWith("/errors/");
      assertThat(body.path("instance").asText()).isEqualTo(raw.uri().getRawPath());
      assertThat(text).doesNotContain("Exception").doesNotContain("\tat ");
      return this;
    }

    /** The response's first {@code name} header, or null. */
    public String header(String name) {
      return raw.headers().firstValue(name).orElse(null);
    }

    public JsonNode assertOk() {
      assertThat(status).as("status of %s", text).isEqualTo(200);
      return json();
    }
  }

  public Response post(String path, String body) {
    return send(request(path, body).build());
  }

  /**
   * Posts {@code {}} to {@code path} every 20 ms until the answer's status is {@code expected} or
   * {@code millis} have passed; answers the last status seen.
   */
  public int statusWithin(String path, int expected, long millis) throws InterruptedException {
    long deadline = System.nanoTime() + millis * 1_000_000L;
    int status = post(path, "{}").status();
    while (status != expected && System.nanoTime() < deadline) {
      Thread.sleep(20);
      status = post(path, "{}").status();
    }
    return status;
  }

  public Response get(String path) {
    return send(builder(path).GET().build());
  }

  public CompletableFuture<Response> postAsync(String path, String body) {
    return sendAsync(request(path, body).build());
  }

  public static CompletableFuture<Response> sendAsync(HttpRequest request) {
    return CLIENT
        .sendAsync(request, HttpResponse.BodyHandlers.ofString())
        .thenApply(raw -> new Response(raw.statusCode(), raw.body(), raw));
  }

  public HttpRequest.Builder request(String path, String body) {
    HttpRequest.Builder builder = builder(path).header("Content-Type", "application/json");
    return body == null
        ? builder.POST(HttpRequest.BodyPublishers.noBody())
        : builder.POST(HttpRequest.BodyPublishers.ofString(body));
  }

  private HttpRequest.Builder builder(String path) {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(60));
    if (apiKey != null) {
      builder.header("x-api-key", apiKey);
    }
    return builder;
  }

  /** {@code method} on {@code baseUrl + path} with a JSON body (or none) and, if given, a key. */
  public static Response call(
      String baseUrl, String method, String path, String body, String apiKey) {
    return send(request(baseUrl, method, path, body, apiKey));
  }

  /** The request {@link #call} sends: a JSON body (or none), a key if given, a 60 s timeout. */
  public static HttpRequest request(
      String baseUrl, String method, String path, String body, String apiKey) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(baseUrl + path))
            .timeout(Duration.ofSeconds(60))
            .header("Content-Type", "application/json")
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (apiKey != null) {
      request.header("x-api-key", apiKey);
    }
    return request.build();
  }

  public static Response send(HttpRequest request) {
    try {
      HttpResponse<String> raw = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
      return new Response(raw.statusCode(), raw.body(), raw);
    } catch (IOException e) {
      throw new AssertionError("request failed: " + request.uri(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Creates namespace {@code ns} and declares table {@code ns$table}. */
  public void declare(String namespace, String table) {
    post("/v1/namespace/" + namespace + "/create", "{}").assertOk();
    post("/v1/table/" + namespace + "%24" + table + "/declare", "{}").assertOk();
  }

  /**
   * Commits {@code version} of {@code namespace$table}, whose location is {@code location}, in
   * finalize mode from a staging manifest written there first (one naming no transaction, after the
   * text "{@code table} version {@code version}").
   */
  public JsonNode commitStaged(String namespace, String table, Path location, long version)
      throws IOException {
    Path staging = location.resolve("_versions/" + version + ".manifest-" + UUID.randomUUID());
    Files.createDirectories(staging.getParent());
    Files.write(staging, ManifestFiles.of(table + " version " + version));
    return post(
            "/v1/table/" + namespace + "%24" + table + "/version/create",
            "{\"version\":"
                + version
                + ",\"manifest_path\":\""
                + staging.toString().substring(1)
                + "\",\"naming_scheme\":\"V1\"}")
        .assertOk();
  }

  public static String createBody(long version, String manifestPath) {
    return "{\"version\":" + version + ",\"manifest_path\":\"" + manifestPath + "\"}";
  }
}
