package dev.lvg.bench;

import dev.lvg.VertxInstances;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The heaviest requests the bounds allow one tenant, at full concurrency, for {@code
 * bench/noisy-neighbour.sh}: a closed loop of CONNECTIONS requests at a time until SECONDS have
 * passed (or the file named by {@code -Dlvg.noise.stop} appears), then one {@code LVG-NOISE} line
 * with the requests sent a second and their statuses.
 *
 * <pre>
 * NoisyNeighbour API PATTERN CONNECTIONS SECONDS KEY [KEY ...]
 *   pulls    POST /v1/events from the oldest event, page-size 1000, 100 ids and 32 types that
 *            match nothing, so each page scans the most it may
 *   pages    POST /v1/events from the oldest event, page-size 1000, no filter (the largest page),
 *            and POST version/list with limit 1000 on a table of 1,000 versions, in turn
 *   tails    GET /v1/events/stream held open on CONNECTIONS connections, spread over the keys,
 *            while the first key creates a namespace every 50 ms (so every tail reads)
 *   lists    GET namespace/{id}/table/list and /v1/table with limit 1000 over 1,000 tables
 *   batches  POST /v1/table/version/batch-create of 1,000 entries (a table each; connection c
 *            owns tables noisy$bC-0..999 and commits their next version each time; record mode)
 *   declares POST /v1/table/batch-commit of 1,000 declare_table operations, new tables each time
 *   whoami   GET /v1/whoami, which asks nothing of the database: what any neighbour's requests cost
 *            at that concurrency on the same cores (the floor under the other patterns)
 * </pre>
 */
public final class NoisyNeighbour {
  private final HttpClientAgent client;
  private final Vertx vertx;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Map<Integer, AtomicLong> statuses = new TreeMap<>();
  private final AtomicLong sent = new AtomicLong();

  private NoisyNeighbour(Vertx vertx, URI api, int connections) {
    this.vertx = vertx;
    this.client =
        vertx.createHttpClient(
            new HttpClientOptions()
                .setDefaultHost(api.getHost())
                .setDefaultPort(api.getPort())
                .setKeepAlive(true)
                .setIdleTimeout(0),
            new PoolOptions().setHttp1MaxSize(connections + 4).setMaxWaitQueueSize(-1));
  }

  public static void main(String[] args) throws Exception {
    URI api = URI.create(args[0]);
    String pattern = args[1];
    int connections = Integer.parseInt(args[2]);
    int seconds = Integer.parseInt(args[3]);
    List<String> keys = List.of(args).subList(4, args.length);
    Vertx vertx = Vertx.vertx();
    try {
      NoisyNeighbour noise = new NoisyNeighbour(vertx, api, connections);
      long started = System.nanoTime();
      List<Future<?>> loops = new ArrayList<>();
      for (int c = 0; c < connections; c++) {
        String key = keys.get(c % keys.size());
        loops.add(
            switch (pattern) {
              case "pulls" -> noise.loop(key, i -> noise.post(key, "/v1/events", pulls()));
              case "pages" ->
                  noise.loop(
                      key,
                      i ->
                          i % 2 == 0
                              ? noise.post(key, "/v1/events", "{\"page-size\":1000}")
                              : noise.post(
                                  key, "/v1/table/noisy%24long/version/list?limit=1000", "{}"));
              case "tails" -> noise.tail(key);
              case "lists" ->
                  noise.loop(
                      key,
                      i ->
                          noise.request(
                              HttpMethod.GET,
                              key,
                              i % 2 == 0
                                  ? "/v1/namespace/noisy/table/list?limit=1000"
                                  : "/v1/table?limit=1000",
                              null));
              case "batches" -> noise.batches(key, c);
              case "declares" -> noise.declares(key, c);
              case "whoami" ->
                  noise.loop(key, i -> noise.request(HttpMethod.GET, key, "/v1/whoami", null));
              default -> throw new IllegalArgumentException(pattern);
            });
      }
      if (pattern.equals("tails")) {
        loops.add(noise.commits(keys.get(0)));
      }
      vertx.setTimer(TimeUnit.SECONDS.toMillis(seconds), done -> noise.running.set(false));
      String stop = System.getProperty("lvg.noise.stop");
      if (stop != null) {
        vertx.setPeriodic(
            100,
            check -> {
              if (java.nio.file.Files.exists(java.nio.file.Path.of(stop))) {
                noise.running.set(false);
              }
            });
      }
      Future.all(loops)
          .toCompletionStage()
          .toCompletableFuture()
          .get(seconds + 120L, TimeUnit.SECONDS);
      double elapsed = (System.nanoTime() - started) / 1e9;
      StringJoiner codes = new StringJoiner(",");
      noise.statuses.forEach((status, count) -> codes.add(status + ":" + count.get()));
      System.out.printf(
          "LVG-NOISE pattern=%s connections=%d requests/s=%.0f statuses=%s%n",
          pattern, connections, noise.sent.get() / elapsed, codes);
    } finally {
      VertxInstances.close(vertx);
    }
  }

  /** The pull that scans the most a page may: filters that match none of the events. */
  private static String pulls() {
    StringJoiner ids = new StringJoiner(",", "[", "]");
    for (int i = 0; i < 100; i++) {
      ids.add("[\"nothing-" + i + "\",\"t\"]");
    }
    StringJoiner types = new StringJoiner(",", "[", "]");
    for (int i = 0; i < 32; i++) {
      types.add("\"io.lance.table.version.created\"");
    }
    return "{\"page-size\":1000,\"catalog-objects-by-name\":"
        + ids
        + ",\"operation-types\":"
        + types
        + "}";
  }

  /** Sends requests one after another while running; each is made by {@code next}. */
  private Future<Void> loop(String key, java.util.function.IntFunction<Future<Integer>> next) {
    Promise<Void> done = Promise.promise();
    step(next, 0, done);
    return done.future();
  }

  private void step(
      java.util.function.IntFunction<Future<Integer>> next, int i, Promise<Void> done) {
    if (!running.get()) {
      done.complete();
      return;
    }
    next.apply(i)
        .onComplete(
            answered -> {
              count(answered.succeeded() ? answered.result() : 0);
              // After a refusal a client waits a little, as Lance's retries do.
              long pause = answered.succeeded() && answered.result() == 503 ? 5 : 0;
              if (pause > 0) {
                vertx.setTimer(pause, fired -> step(next, i + 1, done));
              } else {
                vertx.runOnContext(go -> step(next, i + 1, done));
              }
            });
  }

  private synchronized void count(int status) {
    sent.incrementAndGet();
    statuses.computeIfAbsent(status, s -> new AtomicLong()).incrementAndGet();
  }

  private Future<Integer> post(String key, String path, String body) {
    return request(HttpMethod.POST, key, path, body);
  }

  private Future<Integer> request(HttpMethod method, String key, String path, String body) {
    RequestOptions options =
        new RequestOptions().setMethod(method).setURI(path).putHeader("x-api-key", key);
    if (body != null) {
      options.putHeader("Content-Type", "application/json");
    }
    return client
        .request(options)
        .compose(request -> body == null ? request.send() : request.send(body))
        .compose(response -> response.body().map(drained -> response.statusCode()));
  }

  /** A live tail held open (opened again if it ends) while running. */
  private Future<Void> tail(String key) {
    return loop(
        key,
        i ->
            client
                .request(
                    new RequestOptions()
                        .setMethod(HttpMethod.GET)
                        .setURI("/v1/events/stream?continuation-token=now")
                        .putHeader("x-api-key", key))
                .compose(request -> request.send())
                .compose(
                    response -> {
                      if (response.statusCode() != 200) {
                        return response.body().map(drained -> response.statusCode());
                      }
                      Promise<Integer> ended = Promise.promise();
                      response.handler(chunk -> {});
                      response.endHandler(end -> ended.tryComplete(200));
                      response.exceptionHandler(failure -> ended.tryComplete(0));
                      long timer =
                          vertx.setPeriodic(
                              100,
                              check -> {
                                if (!running.get()) {
                                  response.request().connection().close();
                                  ended.tryComplete(200);
                                }
                              });
                      return ended.future().andThen(done -> vertx.cancelTimer(timer));
                    }));
  }

  /** A namespace created every 50 ms while running, so every tail has an event to read. */
  private Future<Void> commits(String key) {
    Promise<Void> done = Promise.promise();
    AtomicLong n = new AtomicLong();
    vertx.setPeriodic(
        50,
        id -> {
          if (!running.get()) {
            vertx.cancelTimer(id);
            done.tryComplete();
            return;
          }
          post(key, "/v1/namespace/tick" + n.incrementAndGet() + "/create", "{}");
        });
    return done.future();
  }

  /** Batch commits declaring 1,000 new tables each. */
  private Future<Void> declares(String key, int connection) {
    return loop(
        key,
        i -> {
          StringJoiner operations = new StringJoiner(",", "[", "]");
          for (int t = 0; t < 1000; t++) {
            operations.add(
                "{\"declare_table\":{\"id\":[\"noisy\",\"d"
                    + connection
                    + "-"
                    + i
                    + "-"
                    + t
                    + "\"]}}");
          }
          return post(key, "/v1/table/batch-commit", "{\"operations\":" + operations + "}");
        });
  }

  /** Batches of 1,000 version creates, each on tables of its own connection. */
  private Future<Void> batches(String key, int connection) {
    long[] version = {0};
    return loop(
        key,
        i -> {
          long next = ++version[0];
          StringJoiner entries = new StringJoiner(",", "[", "]");
          for (int t = 0; t < 1000; t++) {
            entries.add(
                "{\"id\":[\"noisy\",\"b"
                    + connection
                    + "-"
                    + t
                    + "\"],\"version\":"
                    + next
                    + ",\"manifest_path\":\"noisy/b"
                    + connection
                    + "-"
                    + t
                    + "/"
                    + next
                    + "\"}");
          }
          return post(key, "/v1/table/version/batch-create", "{\"entries\":" + entries + "}")
              .andThen(
                  answered -> {
                    if (answered.succeeded() && answered.result() != 200) {
                      version[0]--;
                    }
                  });
        });
  }
}
