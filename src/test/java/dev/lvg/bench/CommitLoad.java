package dev.lvg.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lvg.Gateway;
import dev.lvg.config.GatewayConfig;
import dev.lvg.storage.Manifests;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.lance.namespace.RestAdapter;

/**
 * Load for {@code version/create} with real staging manifests, the way Lance writers commit: write
 * a staging manifest into the table's {@code _versions/}, then ask the server to commit it. Runs
 * against the gateway (finalize mode, in this process, on the PostgreSQL given) or against the
 * upstream reference server (lance-core's RestAdapter), both finalizing on local disk.
 *
 * <pre>
 * CommitLoad gateway|reference DB_URL TABLES CLIENTS SECONDS [RATE]
 * </pre>
 *
 * Without RATE the load is a closed loop of CLIENTS writers, each committing its own tables one
 * version at a time; with RATE (requests per second) requests start on a fixed schedule whatever
 * the answers (open loop), and latency counts from the scheduled start. Both targets first get
 * {@link #WARM_UP_SECONDS} of the same load, unrecorded (the gateway's JIT compiles then). Prints
 * one line of results.
 */
public final class CommitLoad {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String KEY = "bench-key";
  private static final byte[] MANIFEST = new byte[400];
  private static final int WARM_UP_SECONDS = 5;

  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final String baseUrl;
  private final Map<String, String> headers;
  private final List<Path> versionDirs = new ArrayList<>();
  private final long[] nextVersion;
  private final ConcurrentHashMap<Integer, Long> statuses = new ConcurrentHashMap<>();
  private final List<Long> latencies = java.util.Collections.synchronizedList(new ArrayList<>());
  private volatile boolean recording;

  private CommitLoad(String baseUrl, Map<String, String> headers, int tables) {
    this.baseUrl = baseUrl;
    this.headers = headers;
    this.nextVersion = new long[tables];
    Arrays.fill(nextVersion, 1);
  }

  public static void main(String[] args) throws Exception {
    String target = args[0];
    String dbUrl = args[1];
    int tables = Integer.parseInt(args[2]);
    int clients = Integer.parseInt(args[3]);
    int seconds = Integer.parseInt(args[4]);
    double rate = args.length > 5 ? Double.parseDouble(args[5]) : 0;
    Path root = Files.createTempDirectory("lvg-bench-");
    AutoCloseable server;
    CommitLoad load;
    if (target.equals("gateway")) {
      Map<String, String> settings = new HashMap<>();
      settings.put("LVG_HOST", "127.0.0.1");
      settings.put("LVG_PORT", "2435");
      settings.put("LVG_MANAGEMENT_PORT", "2436");
      settings.put("LVG_DB_URL", dbUrl);
      settings.put("LVG_DB_POOL_SIZE", "32");
      settings.put("LVG_DATA_DIR", root.toString());
      settings.put("LVG_BOOTSTRAP_TENANT", "bench");
      settings.put("LVG_BOOTSTRAP_API_KEY", KEY);
      System.getenv()
          .forEach(
              (name, value) -> {
                if (name.startsWith("LVG_")) {
                  settings.put(name, value);
                }
              });
      Gateway gateway = Gateway.start(GatewayConfig.fromSettings(settings));
      server = gateway;
      load = new CommitLoad("http://127.0.0.1:2435", Map.of("x-api-key", KEY), tables);
    } else {
      RestAdapter adapter =
          new RestAdapter(
              "dir",
              Map.of(
                  "root",
                  root.toString(),
                  "manifest_enabled",
                  "true",
                  "table_version_tracking_enabled",
                  "true"),
              "127.0.0.1",
              0);
      adapter.start();
      server = adapter::stop;
      load = new CommitLoad("http://127.0.0.1:" + adapter.getPort(), Map.of(), tables);
    }
    try {
      load.declare(tables);
      load.run(clients, WARM_UP_SECONDS, rate);
      load.recording = true;
      long started = System.nanoTime();
      load.run(clients, seconds, rate);
      load.report(
          target,
          rate > 0 ? "open " + (long) rate + "/s" : "closed " + clients,
          (System.nanoTime() - started) / 1e9);
    } finally {
      server.close();
    }
  }

  private HttpResponse<String> post(String path, String body) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(baseUrl + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    headers.forEach(request::header);
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private void declare(int tables) throws Exception {
    post("/v1/namespace/bench/create", "{}");
    for (int t = 0; t < tables; t++) {
      JsonNode declared =
          MAPPER.readTree(post("/v1/table/bench%24t" + t + "/declare", "{}").body());
      String location = declared.get("location").asText();
      Path dir =
          (location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location))
              .resolve("_versions");
      Files.createDirectories(dir);
      versionDirs.add(dir);
    }
  }

  /** Writes a staging manifest for the table's next version and commits it; returns the status. */
  private int commit(int table) throws Exception {
    long version;
    synchronized (nextVersion) {
      version = nextVersion[table]++;
    }
    Path staging =
        versionDirs
            .get(table)
            .resolve(Manifests.finalName(version, "V2") + "-" + UUID.randomUUID());
    Files.write(staging, MANIFEST);
    String body =
        "{\"version\":"
            + version
            + ",\"manifest_path\":\""
            + staging.toString().substring(1)
            + "\",\"manifest_size\":"
            + MANIFEST.length
            + ",\"naming_scheme\":\"V2\"}";
    return post("/v1/table/bench%24t" + table + "/version/create", body).statusCode();
  }

  private void run(int clients, int seconds, double rate) throws Exception {
    if (rate > 0) {
      openLoop(rate, seconds);
    } else {
      closedLoop(clients, seconds);
    }
  }

  private void record(int status, long startedNanos) {
    if (!recording) {
      return;
    }
    latencies.add(System.nanoTime() - startedNanos);
    statuses.merge(status, 1L, Long::sum);
  }

  /**
   * Each client commits its own tables (t = client, client + clients, ...) one version at a time.
   */
  private void closedLoop(int clients, int seconds) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      int client = c;
      Thread thread =
          new Thread(
              () -> {
                int i = 0;
                List<Integer> mine = new ArrayList<>();
                for (int t = client; t < versionDirs.size(); t += clients) {
                  mine.add(t);
                }
                while (System.nanoTime() < deadline) {
                  long start = System.nanoTime();
                  try {
                    record(commit(mine.get(i++ % mine.size())), start);
                  } catch (Exception e) {
                    record(-1, start);
                  }
                }
              });
      thread.start();
      threads.add(thread);
    }
    for (Thread thread : threads) {
      thread.join();
    }
  }

  /** Requests start every 1/rate seconds, round-robin over the tables, whatever the answers. */
  private void openLoop(double rate, int seconds) throws Exception {
    long total = (long) (rate * seconds);
    long intervalNanos = (long) (1e9 / rate);
    CountDownLatch done = new CountDownLatch((int) total);
    AtomicLong issued = new AtomicLong();
    ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor();
    var workers = Executors.newCachedThreadPool();
    long first = System.nanoTime();
    clock.scheduleAtFixedRate(
        () -> {
          long n = issued.getAndIncrement();
          if (n >= total) {
            return;
          }
          long scheduled = first + n * intervalNanos;
          workers.submit(
              () -> {
                try {
                  record(commit((int) (n % versionDirs.size())), scheduled);
                } catch (Exception e) {
                  record(-1, scheduled);
                } finally {
                  done.countDown();
                }
              });
        },
        0,
        intervalNanos,
        TimeUnit.NANOSECONDS);
    done.await(seconds + 120L, TimeUnit.SECONDS);
    clock.shutdownNow();
    workers.shutdown();
  }

  private void report(String target, String mode, double elapsedSeconds) {
    long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
    long ok = statuses.getOrDefault(200, 0L);
    System.out.printf(
        "LVG-LOAD target=%s mode=%s commits/s=%.0f ok=%d statuses=%s p50=%.2f p90=%.2f p99=%.2f p99.9=%.2f%n",
        target,
        mode.replace(' ', '_'),
        ok / elapsedSeconds,
        ok,
        statuses,
        percentile(sorted, 50),
        percentile(sorted, 90),
        percentile(sorted, 99),
        percentile(sorted, 99.9));
  }

  private static double percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    int index = (int) Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1);
    return sorted[Math.max(0, index)] / 1e6;
  }
}
