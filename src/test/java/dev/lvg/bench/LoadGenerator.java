package dev.lvg.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lvg.storage.Manifests;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Load for {@code version/create} as Lance writers produce it, for the benchmarks in {@code
 * bench/}. Runs as its own process on one event loop, against any server speaking the namespace API
 * (the gateway, or the upstream reference server).
 *
 * <pre>
 * LoadGenerator URL KEY|- TABLES MODE SECONDS WARMUP WORKLOAD [PREFIX]
 *   MODE      closed:CONNECTIONS | open:RATE
 *   WORKLOAD  record | finalize | fresh
 * </pre>
 *
 * <ul>
 *   <li>{@code record}: request i commits version i / TABLES + 1 of table i mod TABLES, with the
 *       final path as the manifest path; nothing touches storage.
 *   <li>{@code finalize}: the same order, but each request first writes a real staging manifest
 *       into the table's {@code _versions/} (from the location {@code declare} returned).
 *   <li>{@code fresh}: every request commits version 1 of a table of its own (declared up front),
 *       with a staging manifest, so a shed request leaves no gap that turns later ones into 409s.
 * </ul>
 *
 * Closed loop: CONNECTIONS requests in flight, the next sent when one answers. Open loop: requests
 * start on a fixed schedule whatever the answers, and latency counts from each request's scheduled
 * start (no coordinated omission). The warm-up runs the same load unrecorded. Prints one line:
 * {@code LVG-LOAD key=value ...}, with goodput as 200s per second of wall time from the first
 * request to the last answer.
 */
public final class LoadGenerator {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final byte[] MANIFEST = new byte[400];

  private final Vertx vertx;
  private final HttpClientAgent client;
  private final URI base;
  private final String key;
  private final String workload;
  private final List<String> tables = new ArrayList<>();
  private final List<Path> versionDirs = new ArrayList<>();
  private long issued;
  private boolean recording;
  private final Map<Integer, Long> statuses = new TreeMap<>();
  private long[] latencies = new long[1 << 16];
  private int recorded;
  private long firstStart;
  private long lastAnswer;
  private ProcessCpu.Sample cpuAtStart;

  private LoadGenerator(Vertx vertx, URI base, String key, String workload, int connections) {
    this.vertx = vertx;
    this.base = base;
    this.key = key;
    this.workload = workload;
    this.client =
        vertx.createHttpClient(
            new HttpClientOptions()
                .setDefaultHost(base.getHost())
                .setDefaultPort(base.getPort())
                .setKeepAlive(true)
                .setIdleTimeout(0),
            new PoolOptions().setHttp1MaxSize(connections).setMaxWaitQueueSize(-1));
  }

  public static void main(String[] args) throws Exception {
    URI url = URI.create(args[0]);
    String key = args[1].equals("-") ? null : args[1];
    int tableCount = Integer.parseInt(args[2]);
    String mode = args[3];
    int seconds = Integer.parseInt(args[4]);
    int warmUp = Integer.parseInt(args[5]);
    String workload = args[6];
    String prefix = args.length > 7 ? args[7] : "t" + Long.toHexString(System.nanoTime());
    boolean open = mode.startsWith("open:");
    double amount = Double.parseDouble(mode.substring(mode.indexOf(':') + 1));
    int connections = open ? 1024 : (int) amount;
    Vertx vertx = Vertx.vertx();
    try {
      LoadGenerator load = new LoadGenerator(vertx, url, key, workload, connections);
      int needed =
          workload.equals("fresh")
              ? (int) Math.ceil(amount * (seconds + warmUp) * 1.2)
              : tableCount;
      Promise<String> result = Promise.promise();
      // Everything runs on one event loop, so the bookkeeping needs no locks.
      vertx
          .getOrCreateContext()
          .runOnContext(
              start ->
                  load.declare(prefix, needed)
                      .compose(
                          declared ->
                              warmUp == 0
                                  ? Future.succeededFuture()
                                  : load.run(open, amount, connections, warmUp))
                      .compose(
                          warm -> {
                            load.recording = true;
                            load.cpuAtStart = ProcessCpu.sample();
                            return load.run(open, amount, connections, seconds);
                          })
                      .map(done -> load.report(mode, seconds))
                      .onComplete(result));
      System.out.println(await(result.future()));
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  private Future<Void> run(boolean open, double amount, int connections, int seconds) {
    return open ? open(amount, seconds) : closed(connections, seconds);
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.MINUTES);
  }

  private Future<JsonNode> post(String path, String body) {
    RequestOptions options =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setURI(path)
            .putHeader("Content-Type", "application/json");
    if (key != null) {
      options.putHeader("x-api-key", key);
    }
    return client
        .request(options)
        .compose(request -> request.send(body))
        .compose(response -> response.body().map(bytes -> toJson(response.statusCode(), bytes)));
  }

  private static JsonNode toJson(int status, Buffer bytes) {
    try {
      JsonNode node =
          bytes.length() == 0 ? MAPPER.createObjectNode() : MAPPER.readTree(bytes.getBytes());
      return MAPPER.createObjectNode().put("status", status).set("body", node);
    } catch (IOException e) {
      return MAPPER.createObjectNode().put("status", status);
    }
  }

  /**
   * Declares the namespace and {@code count} tables, 500 per batch, remembering their locations.
   */
  private Future<Void> declare(String prefix, int count) {
    Future<Void> chain = post("/v1/namespace/" + prefix + "/create", "{}").mapEmpty();
    for (int start = 0; start < count; start += 500) {
      int from = start;
      int to = Math.min(count, start + 500);
      chain =
          chain.compose(
              done -> {
                List<Future<JsonNode>> declared = new ArrayList<>();
                for (int t = from; t < to; t++) {
                  String id = prefix + "%24t" + t;
                  tables.add(id);
                  declared.add(post("/v1/table/" + id + "/declare", "{}"));
                }
                return Future.all(declared)
                    .map(
                        all -> {
                          for (int i = 0; i < declared.size(); i++) {
                            versionDirs.add(versionsDir(declared.get(i).result()));
                          }
                          return null;
                        });
              });
    }
    return chain;
  }

  private Path versionsDir(JsonNode declared) {
    if (workload.equals("record")) {
      return null;
    }
    String location = declared.path("body").path("location").asText();
    Path table = location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
    Path dir = table.resolve("_versions");
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return dir;
  }

  /** The body of request {@code n}, with its staging manifest written first when there is one. */
  private String nextRequest(long n, String[] path) {
    int table = workload.equals("fresh") ? (int) n : (int) (n % tables.size());
    long version = workload.equals("fresh") ? 1 : n / tables.size() + 1;
    path[0] = "/v1/table/" + tables.get(table) + "/version/create";
    String finalName = Manifests.finalName(version, "V2");
    String manifest;
    if (workload.equals("record")) {
      manifest = "bench/" + tables.get(table) + "/_versions/" + finalName;
    } else {
      Path staging = versionDirs.get(table).resolve(finalName + "-" + UUID.randomUUID());
      try {
        Files.write(staging, MANIFEST);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      manifest = staging.toString().substring(1);
    }
    return "{\"version\":"
        + version
        + ",\"manifest_path\":\""
        + manifest
        + "\",\"manifest_size\":"
        + MANIFEST.length
        + ",\"e_tag\":\"e-"
        + version
        + "\",\"naming_scheme\":\"V2\"}";
  }

  private Future<Void> send(long scheduledNanos) {
    String[] path = new String[1];
    String body = nextRequest(issued++, path);
    return post(path[0], body)
        .map(answer -> answer.get("status").intValue())
        .otherwise(-1)
        .map(
            status -> {
              record(status, scheduledNanos);
              return null;
            });
  }

  private void record(int status, long scheduledNanos) {
    long now = System.nanoTime();
    if (!recording) {
      return;
    }
    lastAnswer = Math.max(lastAnswer, now);
    statuses.merge(status, 1L, Long::sum);
    if (recorded == latencies.length) {
      latencies = Arrays.copyOf(latencies, recorded * 2);
    }
    latencies[recorded++] = now - scheduledNanos;
  }

  private Future<Void> closed(int connections, int seconds) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    firstStart = System.nanoTime();
    List<Future<Void>> users = new ArrayList<>();
    for (int c = 0; c < connections; c++) {
      Promise<Void> done = Promise.promise();
      users.add(done.future());
      loop(deadline, done);
    }
    return Future.all(users).mapEmpty();
  }

  private void loop(long deadline, Promise<Void> done) {
    if (System.nanoTime() >= deadline) {
      done.complete();
      return;
    }
    send(System.nanoTime()).onComplete(next -> loop(deadline, done));
  }

  /** Requests start every 1/rate seconds, checked every millisecond, whatever the answers. */
  private Future<Void> open(double rate, int seconds) {
    long total = (long) (rate * seconds);
    double intervalNanos = 1e9 / rate;
    Promise<Void> finished = Promise.promise();
    long[] started = {0};
    long[] answered = {0};
    firstStart = System.nanoTime();
    vertx.setPeriodic(
        1,
        timer -> {
          long now = System.nanoTime();
          while (started[0] < total && firstStart + (long) (started[0] * intervalNanos) <= now) {
            long scheduled = firstStart + (long) (started[0] * intervalNanos);
            started[0]++;
            send(scheduled)
                .onComplete(
                    done -> {
                      if (++answered[0] == total) {
                        finished.complete();
                      }
                    });
          }
          if (started[0] == total) {
            vertx.cancelTimer(timer);
          }
        });
    return finished.future();
  }

  private String report(String mode, int seconds) {
    long[] sorted = Arrays.copyOf(latencies, recorded);
    Arrays.sort(sorted);
    double wall = (lastAnswer - firstStart) / 1e9;
    long ok = statuses.getOrDefault(200, 0L);
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("mode", mode);
    fields.put("workload", workload);
    fields.put("seconds", Integer.toString(seconds));
    fields.put("requests", Integer.toString(recorded));
    fields.put("offered/s", String.format("%.0f", recorded / (double) seconds));
    fields.put("goodput/s", String.format("%.0f", ok / wall));
    fields.put("wall_s", String.format("%.2f", wall));
    StringBuilder counts = new StringBuilder();
    statuses.forEach(
        (status, count) ->
            counts
                .append(counts.length() == 0 ? "" : ",")
                .append(status)
                .append(':')
                .append(count));
    fields.put("statuses", counts.toString());
    fields.put("p50", ms(sorted, 50));
    fields.put("p90", ms(sorted, 90));
    fields.put("p99", ms(sorted, 99));
    fields.put("p99.9", ms(sorted, 99.9));
    fields.put("max", ms(sorted, 100));
    ProcessCpu.Sample cpu = ProcessCpu.sample().minus(cpuAtStart);
    long answered = recorded == 0 ? 1 : recorded;
    fields.put("server_cpu_ms/req", String.format("%.3f", cpu.serverMillis() / answered));
    fields.put("postgres_cpu_ms/req", String.format("%.3f", cpu.postgresMillis() / answered));
    fields.put("server_cores", String.format("%.2f", cpu.serverMillis() / 1000 / wall));
    fields.put("postgres_cores", String.format("%.2f", cpu.postgresMillis() / 1000 / wall));
    fields.put("server_rss_mib", Long.toString(ProcessCpu.serverRssMib()));
    StringBuilder line = new StringBuilder("LVG-LOAD");
    fields.forEach((name, value) -> line.append(' ').append(name).append('=').append(value));
    return line.toString();
  }

  private static String ms(long[] sorted, double p) {
    if (sorted.length == 0) {
      return "0";
    }
    int index = (int) Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1);
    return String.format("%.2f", sorted[Math.max(0, index)] / 1e6);
  }
}
