package dev.lvg.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lvg.ManifestFiles;
import dev.lvg.VertxInstances;
import dev.lvg.storage.Manifests;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
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
import java.util.function.Function;

/**
 * Load for {@code version/create} as Lance writers produce it, for the benchmarks in {@code
 * bench/}. Runs as its own process against any server speaking the namespace API (the gateway, or
 * the upstream reference server): set-up calls and closed loops on {@link #LANES} event loops, open
 * loops on one thread of their own ({@link OpenLoop}).
 *
 * <pre>
 * LoadGenerator URL KEY|- TABLES MODE SECONDS WARMUP WORKLOAD [PREFIX]
 *   MODE      closed:CONNECTIONS | open:RATE
 *   WORKLOAD  record | finalize | fresh
 * </pre>
 *
 * <ul>
 *   <li>{@code record}: versions in order with the final path as the manifest path; nothing touches
 *       storage.
 *   <li>{@code finalize}: versions in order, each with a real staging manifest written into the
 *       table's {@code _versions/} (from the location {@code declare} returned) just before.
 *   <li>{@code fresh} (open loop only): every request commits version 1 of a table of its own, with
 *       a staging manifest written before the measured run, so a refused request leaves no gap that
 *       turns later ones into 409s and the run measures the server, not file writes. Its warm-up
 *       runs the finalize workload on TABLES tables of its own, then {@value #AT_RATE_WARM_UP} s at
 *       the measured rate on more tables of its own.
 * </ul>
 *
 * Closed loop: writer c owns tables c, c + C, ... and commits their versions in turn, one at a
 * time; like a Lance writer it tries a version again after a 503 (5 ms later). Open loop: request n
 * starts at its scheduled time whatever the answers (version n / TABLES + 1 of table n mod TABLES,
 * or fresh), and latency counts from that time (no coordinated omission). The warm-up runs the same
 * load, its answers recorded and then forgotten. Prints one line, {@code LVG-LOAD key=value ...};
 * goodput is 200s per second of wall time from the first request to the last answer.
 */
public final class LoadGenerator {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /**
   * Seconds a fresh workload runs at the measured rate before it is measured. At 4x of saturation,
   * after 2 s the JIT compiler still took 32% of the gateway's CPU samples in the measured run;
   * after 12 s, 22%.
   */
  private static final int AT_RATE_WARM_UP = 10;

  /** What a staging manifest carries before its message, so each is about 400 bytes. */
  private static final byte[] PADDING = new byte[300];

  /** The size of every staging manifest: each names a transaction of its own, of one length. */
  private static final int MANIFEST_SIZE =
      ManifestFiles.manifest(PADDING, "0-" + UUID.randomUUID() + ".txn", null).length;

  private static final int LANES = 2;

  /** The most connections the open loop keeps, each carrying one request at a time. */
  private static final int OPEN_CONNECTIONS = Integer.getInteger("lvg.open.connections", 2048);

  private final String key;
  private final String host;
  private final AnswerLog answers = AnswerLog.fromProperty("lvg.answers");
  private final OpenLoop openLoop;
  private final Lane[] lanes;

  /** Tables of one kind of workload, their staging manifests and next versions. */
  private static final class Workload {
    final String kind;
    final List<String> tables = new ArrayList<>();
    final List<Path> versionDirs = new ArrayList<>();
    final List<String> staged = new ArrayList<>();
    long[] nextVersion = new long[0];

    Workload(String kind) {
      this.kind = kind;
    }

    boolean fresh() {
      return kind.equals("fresh");
    }
  }

  private LoadGenerator(Vertx vertx, URI base, String key, int connections) {
    this.key = key;
    this.host = base.getHost() + ":" + base.getPort();
    this.openLoop =
        new OpenLoop(new InetSocketAddress(base.getHost(), base.getPort()), OPEN_CONNECTIONS);
    this.lanes = new Lane[LANES];
    for (int i = 0; i < LANES; i++) {
      lanes[i] = new Lane(vertx, base, Math.max(1, connections / LANES + 1));
    }
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
    int connections = open ? LANES : (int) amount;
    boolean fresh = workload.equals("fresh");
    if (fresh && !open) {
      throw new IllegalArgumentException("the fresh workload runs open loop only");
    }
    Vertx vertx = Vertx.vertx();
    try {
      LoadGenerator load = new LoadGenerator(vertx, url, key, connections);
      Workload measured = new Workload(workload);
      await(load.declare(measured, prefix, fresh ? freshTables(amount, seconds) : tableCount));
      // Encoded (and collected) before the warm-up, so the measured run follows it at once.
      byte[][] encoded = open ? load.encode(measured, amount, seconds) : null;
      if (warmUp > 0) {
        // The same connections warm up first. A fresh workload warms up on tables of its own:
        // 16 writers committing in order (for the server's JIT), then some seconds at the
        // measured rate: for the connections that rate needs and, past saturation, for the
        // refusal path, which the closed loop never takes and the JIT compiles only once it runs.
        if (fresh) {
          Workload ordered = new Workload("finalize");
          await(load.declare(ordered, prefix + "w", tableCount));
          await(load.closed(ordered, 16, warmUp));
          Workload atRate = new Workload("fresh");
          await(load.declare(atRate, prefix + "r", freshTables(amount, AT_RATE_WARM_UP)));
          // Two generators overlap here too, so the server has run their load together (and
          // compiled what it runs only then) before the measured run.
          byte[][] leadIn = load.encode(atRate, amount, AT_RATE_WARM_UP);
          together(".lead-in");
          await(load.open(leadIn, amount));
        } else {
          await(load.run(measured, open, amount, connections, warmUp));
        }
      }
      together("");
      // The warm-up's answers went through the same bookkeeping, so that the measured run's first
      // answers do not send it through code the JIT compiled without it; forgotten now.
      load.forgetAnswers();
      ProcessCpu.Sample cpu = ProcessCpu.sample();
      long started = System.nanoTime();
      await(open ? load.open(encoded, amount) : load.closed(measured, connections, seconds));
      System.out.println(
          load.report(measured, mode, seconds, started, ProcessCpu.sample().minus(cpu)));
      load.openLoop.close();
      if (load.answers != null) {
        load.answers.write();
      }
    } finally {
      VertxInstances.close(vertx);
    }
  }

  /**
   * Two generators start their measured runs, and their lead-ins at the measured rate, together:
   * one waits for the file named by {@code -Dlvg.start.await} (plus {@code suffix}), the other
   * creates the file named by {@code -Dlvg.start.signal} (plus {@code suffix}).
   */
  private static void together(String suffix) throws Exception {
    String awaited = System.getProperty("lvg.start.await");
    if (awaited != null) {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
      while (!Files.exists(Path.of(awaited + suffix))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the other generator never started");
        }
        Thread.sleep(10);
      }
    }
    String signal = System.getProperty("lvg.start.signal");
    if (signal != null) {
      Files.writeString(Path.of(signal + suffix), "started");
    }
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.MINUTES);
  }

  /** One event loop of the generator: its connections and its own bookkeeping. */
  private final class Lane {
    final Context context;
    final HttpClientAgent client;
    final Map<Integer, Long> statuses = new TreeMap<>();
    final Latencies all = new Latencies();
    final Latencies admitted = new Latencies();
    final Latencies shed = new Latencies();
    long lastAnswer;

    Lane(Vertx vertx, URI base, int connections) {
      this.context = vertx.getOrCreateContext();
      this.client =
          vertx.createHttpClient(
              new HttpClientOptions()
                  .setDefaultHost(base.getHost())
                  .setDefaultPort(base.getPort())
                  .setKeepAlive(true)
                  .setIdleTimeout(0),
              new PoolOptions().setHttp1MaxSize(connections).setMaxWaitQueueSize(-1));
    }

    private RequestOptions options(String path) {
      RequestOptions options =
          new RequestOptions()
              .setMethod(HttpMethod.POST)
              .setURI(path)
              .putHeader("Content-Type", "application/json");
      if (key != null) {
        options.putHeader("x-api-key", key);
      }
      return options;
    }

    Future<Integer> post(String path, String body) {
      return client
          .request(options(path))
          .compose(request -> request.send(body))
          .compose(response -> response.body().map(drained -> response.statusCode()));
    }

    /** A setup call, tried again while the server says 503. */
    Future<JsonNode> postForJson(String path, String body) {
      return postOnce(path, body)
          .compose(
              answer ->
                  answer.path("code").asInt(0) == 17
                      ? Future.<Void>future(
                              wait -> context.owner().setTimer(100, fired -> wait.complete()))
                          .compose(waited -> postForJson(path, body))
                      : Future.succeededFuture(answer));
    }

    private Future<JsonNode> postOnce(String path, String body) {
      return client
          .request(options(path))
          .compose(request -> request.send(body))
          .compose(response -> response.body())
          .map(
              bytes -> {
                try {
                  return MAPPER.readTree(bytes.getBytes());
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    }

    /** Commits {@code version} of {@code table}; records the answer; runs on this lane. */
    Future<Integer> commit(Workload workload, int table, long version, long scheduledNanos) {
      String[] path = new String[1];
      String body = body(workload, table, version, path);
      return post(path[0], body)
          .otherwise(-1)
          .map(
              status -> {
                record(status, scheduledNanos);
                return status;
              });
    }

    void record(int status, long scheduledNanos) {
      long now = System.nanoTime();
      lastAnswer = Math.max(lastAnswer, now);
      statuses.merge(status, 1L, Long::sum);
      long latency = now - scheduledNanos;
      if (answers != null) {
        answers.add(scheduledNanos, latency, status);
      }
      all.add(latency);
      if (status == 200) {
        admitted.add(latency);
      } else if (status == 503) {
        shed.add(latency);
      }
    }

    void forget() {
      statuses.clear();
      all.clear();
      admitted.clear();
      shed.clear();
      lastAnswer = 0;
    }

    <T> Future<T> on(Function<Lane, Future<T>> work) {
      Promise<T> done = Promise.promise();
      context.runOnContext(start -> work.apply(this).onComplete(done));
      return done.future();
    }
  }

  /**
   * Declares the namespace and {@code count} tables, 500 at a time (one batch-commit each on the
   * gateway, single declares elsewhere), remembering their locations.
   */
  private Future<Void> declare(Workload workload, String prefix, int count) {
    Lane lane = lanes[0];
    return lane.on(
        l -> {
          Future<Void> chain =
              l.postForJson("/v1/namespace/" + prefix + "/create", "{}").mapEmpty();
          for (int start = 0; start < count; start += 500) {
            int from = start;
            int to = Math.min(count, start + 500);
            chain =
                chain.compose(
                    done ->
                        key == null
                            ? declareOneByOne(workload, l, prefix, from, to)
                            : declareInBatch(workload, l, prefix, from, to));
          }
          // Staging writes and syncs files: a worker's job, not the lane's event loop's.
          return chain.compose(
              declared ->
                  l.context
                      .owner()
                      .executeBlocking(
                          () -> {
                            stageAhead(workload);
                            return null;
                          }));
        });
  }

  private Future<Void> declareOneByOne(
      Workload workload, Lane lane, String prefix, int from, int to) {
    List<Future<JsonNode>> declared = new ArrayList<>();
    for (int t = from; t < to; t++) {
      workload.tables.add(prefix + "%24t" + t);
      declared.add(lane.postForJson("/v1/table/" + prefix + "%24t" + t + "/declare", "{}"));
    }
    return Future.all(declared)
        .map(
            all -> {
              declared.forEach(
                  answer -> workload.versionDirs.add(versionsDir(workload, answer.result())));
              return null;
            });
  }

  private Future<Void> declareInBatch(
      Workload workload, Lane lane, String prefix, int from, int to) {
    StringBuilder operations = new StringBuilder("{\"operations\":[");
    for (int t = from; t < to; t++) {
      workload.tables.add(prefix + "%24t" + t);
      operations
          .append(t == from ? "" : ",")
          .append("{\"declare_table\":{\"id\":[\"")
          .append(prefix)
          .append("\",\"t")
          .append(t)
          .append("\"]}}");
    }
    return lane.postForJson("/v1/table/batch-commit", operations.append("]}").toString())
        .map(
            answer -> {
              for (JsonNode result : answer.path("results")) {
                workload.versionDirs.add(versionsDir(workload, result.path("declare_table")));
              }
              if (workload.versionDirs.size() != workload.tables.size()) {
                throw new IllegalStateException("declaring tables failed: " + answer);
              }
              return null;
            });
  }

  private static Path versionsDir(Workload workload, JsonNode declared) {
    if (workload.kind.equals("record")) {
      return null;
    }
    String location = declared.path("location").asText();
    Path table = location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
    Path dir = table.resolve("_versions");
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return dir;
  }

  /** Tables a fresh workload at {@code rate} per second needs for {@code seconds}, with room. */
  private static int freshTables(double rate, int seconds) {
    return (int) Math.ceil(rate * seconds * 1.05) + 100;
  }

  /** Versions start at 1; a fresh workload writes all its staging manifests now. */
  private static void stageAhead(Workload workload) {
    workload.nextVersion = new long[workload.tables.size()];
    Arrays.fill(workload.nextVersion, 1);
    if (workload.fresh()) {
      for (int table = 0; table < workload.tables.size(); table++) {
        workload.staged.add(stage(workload, table, 1));
      }
      writeBack();
    }
  }

  /**
   * Writes back what was staged ahead, now: left dirty, the kernel writes it back about 30 s later,
   * in the middle of the measured run, where it would compete with the server's syncs.
   */
  private static void writeBack() {
    try {
      int status = new ProcessBuilder("sync").inheritIO().start().waitFor();
      if (status != 0) {
        throw new IllegalStateException("sync exited with " + status);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String stage(Workload workload, int table, long version) {
    Path staging =
        workload
            .versionDirs
            .get(table)
            .resolve(Manifests.finalName(version, "V2") + "-" + UUID.randomUUID());
    try {
      Files.write(
          staging, ManifestFiles.manifest(PADDING, "0-" + UUID.randomUUID() + ".txn", null));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return staging.toString().substring(1);
  }

  /** The body committing {@code version} of {@code table}, its staging manifest written first. */
  private static String body(Workload workload, int table, long version, String[] path) {
    path[0] = "/v1/table/" + workload.tables.get(table) + "/version/create";
    String manifest;
    if (workload.kind.equals("record")) {
      manifest =
          "bench/"
              + workload.tables.get(table)
              + "/_versions/"
              + Manifests.finalName(version, "V2");
    } else if (workload.fresh()) {
      manifest = workload.staged.get(table);
    } else {
      manifest = stage(workload, table, version);
    }
    return "{\"version\":"
        + version
        + ",\"manifest_path\":\""
        + manifest
        + "\",\"manifest_size\":"
        + MANIFEST_SIZE
        + ",\"e_tag\":\"e-"
        + version
        + "\",\"naming_scheme\":\"V2\"}";
  }

  private Future<Void> run(
      Workload workload, boolean open, double amount, int connections, int seconds) {
    return open
        ? open(encode(workload, amount, seconds), amount)
        : closed(workload, connections, seconds);
  }

  private Future<Void> closed(Workload workload, int connections, int seconds) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    List<Future<Void>> writers = new ArrayList<>();
    for (int c = 0; c < Math.min(connections, workload.tables.size()); c++) {
      int first = c;
      writers.add(
          lanes[c % LANES].on(
              lane -> {
                Promise<Void> done = Promise.promise();
                write(workload, lane, first, connections, deadline, done);
                return done.future();
              }));
    }
    return Future.all(writers).mapEmpty();
  }

  private void write(
      Workload workload, Lane lane, int table, int connections, long deadline, Promise<Void> done) {
    if (System.nanoTime() >= deadline) {
      done.complete();
      return;
    }
    lane.commit(workload, table, workload.nextVersion[table], System.nanoTime())
        .onComplete(
            answer -> {
              if (answer.result() == 503) {
                lane.context
                    .owner()
                    .setTimer(
                        5, retry -> write(workload, lane, table, connections, deadline, done));
                return;
              }
              workload.nextVersion[table]++;
              int next =
                  table + connections < workload.tables.size()
                      ? table + connections
                      : table % connections;
              write(workload, lane, next, connections, deadline, done);
            });
  }

  /**
   * The requests of an open-loop run, encoded before the first leaves: request n commits version 1
   * of table n (fresh), or version n / TABLES + 1 of table n mod TABLES (record).
   */
  private byte[][] encode(Workload workload, double rate, int seconds) {
    if (!workload.fresh() && !workload.kind.equals("record")) {
      throw new IllegalArgumentException("the open loop runs the fresh or record workload");
    }
    int total = (int) (rate * seconds);
    int tableCount = workload.tables.size();
    byte[][] requests = new byte[total][];
    String[] path = new String[1];
    for (int n = 0; n < total; n++) {
      int table = workload.fresh() ? n : n % tableCount;
      long version = workload.fresh() ? 1 : n / tableCount + 1;
      String body = body(workload, table, version, path);
      requests[n] = OpenLoop.post(host, path[0], key, body);
    }
    // Tens of megabytes of requests, just allocated and alive until the run ends: left in the
    // young generation, the first collection during the run copies them all, a pause of 50-170 ms
    // in which no request leaves and no answer is read. Moved to the old generation now, before
    // any request leaves, they cost the run's collections nothing.
    System.gc();
    return requests;
  }

  /**
   * {@code requests} at {@code rate} per second from {@link OpenLoop}, on the calling thread. The
   * answers go into the first lane's bookkeeping, from the calling thread: while the open loop
   * runs, nothing else records there.
   */
  private Future<Void> open(byte[][] requests, double rate) {
    try {
      // Connections enough for answers within 100 ms at the rate, open before the first request.
      // Otherwise the first run opens one per request until answers come back: at 4x, 2,048 in
      // the lead-in's first 1.6 s, while the gateway answered its first requests on them after a
      // second and admitted 45-206 a second; the loop, 12,000 requests behind, then sent them at
      // once, so the lead-in was a connection storm and a burst, not the rate it stands for.
      openLoop.connect((int) Math.ceil(rate / 10));
      openLoop.run(rate, requests.length, n -> requests[(int) n], lanes[0]::record);
    } catch (IOException e) {
      return Future.failedFuture(e);
    }
    return Future.succeededFuture();
  }

  /** Latencies of one kind of answer, in nanoseconds. */
  private static final class Latencies {
    private long[] values = new long[1 << 16];
    private int count;

    void add(long nanos) {
      if (count == values.length) {
        values = Arrays.copyOf(values, count * 2);
      }
      values[count++] = nanos;
    }

    void clear() {
      count = 0;
    }

    void addAll(Latencies other) {
      for (int i = 0; i < other.count; i++) {
        add(other.values[i]);
      }
    }

    String ms(double p) {
      if (count == 0) {
        return "-";
      }
      long[] sorted = Arrays.copyOf(values, count);
      Arrays.sort(sorted);
      int index = (int) Math.min(count - 1, Math.ceil(p / 100 * count) - 1);
      return String.format("%.2f", sorted[Math.max(0, index)] / 1e6);
    }
  }

  /** Forgets every answer so far; called with no request in flight. */
  private void forgetAnswers() {
    for (Lane lane : lanes) {
      lane.forget();
    }
    if (answers != null) {
      answers.clear();
    }
  }

  private String report(
      Workload workload, String mode, int seconds, long started, ProcessCpu.Sample cpu) {
    Map<Integer, Long> statuses = new TreeMap<>();
    Latencies all = new Latencies();
    Latencies admitted = new Latencies();
    Latencies shed = new Latencies();
    long lastAnswer = started;
    for (Lane lane : lanes) {
      lane.statuses.forEach((status, count) -> statuses.merge(status, count, Long::sum));
      all.addAll(lane.all);
      admitted.addAll(lane.admitted);
      shed.addAll(lane.shed);
      lastAnswer = Math.max(lastAnswer, lane.lastAnswer);
    }
    double wall = (lastAnswer - started) / 1e9;
    long ok = statuses.getOrDefault(200, 0L);
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("mode", mode);
    fields.put("workload", workload.kind);
    fields.put("seconds", Integer.toString(seconds));
    fields.put("requests", Integer.toString(all.count));
    fields.put("offered/s", String.format("%.0f", all.count / (double) seconds));
    fields.put("goodput/s", String.format("%.0f", ok / wall));
    fields.put("shed/s", String.format("%.0f", statuses.getOrDefault(503, 0L) / wall));
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
    fields.put("p50", all.ms(50));
    fields.put("p90", all.ms(90));
    fields.put("p99", all.ms(99));
    fields.put("p99.9", all.ms(99.9));
    fields.put("max", all.ms(100));
    fields.put("ok_p50", admitted.ms(50));
    fields.put("ok_p99", admitted.ms(99));
    fields.put("shed_p99", shed.ms(99));
    Latencies late = new Latencies();
    for (long nanos : openLoop.lateness()) {
      late.add(nanos);
    }
    fields.put("send_late_p99", late.ms(99));
    long answered = Math.max(1, all.count);
    fields.put("server_cpu_ms/req", String.format("%.3f", cpu.serverMillis() / answered));
    fields.put("postgres_cpu_ms/req", String.format("%.3f", cpu.postgresMillis() / answered));
    fields.put("server_cores", String.format("%.2f", cpu.serverMillis() / 1000 / wall));
    fields.put("postgres_cores", String.format("%.2f", cpu.postgresMillis() / 1000 / wall));
    fields.put("generator_cores", String.format("%.2f", cpu.generatorMillis() / 1000 / wall));
    fields.put("idle_cores", String.format("%.2f", cpu.idleMillis() / 1000 / wall));
    fields.put("stolen_cores", String.format("%.2f", cpu.stolenMillis() / 1000 / wall));
    fields.put("server_rss_mib", Long.toString(ProcessCpu.serverRssMib()));
    StringBuilder line = new StringBuilder("LVG-LOAD");
    fields.forEach((name, value) -> line.append(' ').append(name).append('=').append(value));
    return line.toString();
  }
}
