package dev.lvg.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Measurements of the change feed for {@code bench/feed.sh}, each printing one {@code LVG-FEED}
 * line:
 *
 * <pre>
 * FeedBench lag API KEY ADMIN_KEY TENANT WINDOW
 *   a live tail and a webhook receiver on this machine while load runs elsewhere, until stopped
 *   (SIGTERM): how long after its commit statement (the version's timestamp_millis) each version
 *   event arrived, for the versions committed in the last WINDOW seconds of commits
 * FeedBench idle API KEY TAILS SECONDS
 *   TAILS live tails opened and held idle for SECONDS
 * FeedBench catchup API KEY PAGE_SIZE
 *   one reader paging the whole feed from the start: events per second
 * </pre>
 */
public final class FeedBench {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private FeedBench() {}

  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "lag" -> lag(args[1], args[2], args[3], args[4], Integer.parseInt(args[5]));
      case "idle" -> idle(args[1], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]));
      case "catchup" -> catchup(args[1], args[2], Integer.parseInt(args[3]));
      default -> throw new IllegalArgumentException(args[0]);
    }
  }

  /** The commit time of a version event and how long after it the event arrived. */
  record Arrival(long committed, long lag) {}

  private static Arrival arrival(String json, long now) throws Exception {
    JsonNode event = MAPPER.readTree(json);
    JsonNode version = event.path("data").path("version");
    if (!event.path("type").asText().equals("io.lance.table.version.created")
        || !version.has("timestamp_millis")) {
      return null;
    }
    long committed = version.get("timestamp_millis").asLong();
    return new Arrival(committed, now - committed);
  }

  private static void lag(String api, String key, String admin, String tenant, int seconds)
      throws Exception {
    List<Arrival> streamed = Collections.synchronizedList(new ArrayList<>());
    List<Arrival> pushed = Collections.synchronizedList(new ArrayList<>());
    HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
    receiver.createContext(
        "/hook",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          try {
            Arrival arrival = arrival(body, System.currentTimeMillis());
            if (arrival != null) {
              pushed.add(arrival);
            }
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    receiver.start();
    String hook =
        "{\"url\":\"http://127.0.0.1:"
            + receiver.getAddress().getPort()
            + "/hook\",\"event_types\":[\"io.lance.table.version.created\"]}";
    HttpResponse<String> registered =
        CLIENT.send(
            HttpRequest.newBuilder(URI.create(api + "/admin/v1/tenants/" + tenant + "/webhooks"))
                .header("x-api-key", admin)
                .POST(HttpRequest.BodyPublishers.ofString(hook))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (registered.statusCode() != 200) {
      throw new IllegalStateException("webhook not registered: " + registered.body());
    }
    String head = headToken(api, key);
    Thread tail =
        new Thread(
            () -> {
              try {
                HttpResponse<java.util.stream.Stream<String>> stream =
                    CLIENT.send(
                        HttpRequest.newBuilder(
                                URI.create(
                                    api
                                        + "/v1/events/stream?operation-types="
                                        + "io.lance.table.version.created"))
                            .header("x-api-key", key)
                            .header("Last-Event-ID", head)
                            .build(),
                        HttpResponse.BodyHandlers.ofLines());
                stream
                    .body()
                    .forEach(
                        line -> {
                          if (line.startsWith("data: ")) {
                            try {
                              Arrival arrival =
                                  arrival(line.substring(6), System.currentTimeMillis());
                              if (arrival != null) {
                                streamed.add(arrival);
                              }
                            } catch (Exception e) {
                              throw new IllegalStateException(e);
                            }
                          }
                        });
              } catch (Exception stopped) {
                // the measurement is over
              }
            });
    tail.setDaemon(true);
    tail.start();
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> report(streamed, pushed, seconds * 1000L)));
    Thread.sleep(Long.MAX_VALUE);
  }

  /** The lags of the versions committed in the last {@code window} ms of commits. */
  private static void report(List<Arrival> streamed, List<Arrival> pushed, long window) {
    List<Arrival> s;
    List<Arrival> p;
    synchronized (streamed) {
      s = new ArrayList<>(streamed);
    }
    synchronized (pushed) {
      p = new ArrayList<>(pushed);
    }
    long last = s.stream().mapToLong(Arrival::committed).max().orElse(0);
    List<Long> sse = new ArrayList<>();
    List<Long> hook = new ArrayList<>();
    for (Arrival a : s) {
      if (a.committed() > last - window) {
        sse.add(a.lag());
      }
    }
    for (Arrival a : p) {
      if (a.committed() > last - window) {
        hook.add(a.lag());
      }
    }
    System.out.println(
        "LVG-FEED lag sse_events="
            + sse.size()
            + " sse_p50="
            + percentile(sse, 0.50)
            + " sse_p99="
            + percentile(sse, 0.99)
            + " sse_max="
            + percentile(sse, 1.0)
            + " webhook_events="
            + hook.size()
            + " webhook_p50="
            + percentile(hook, 0.50)
            + " webhook_p99="
            + percentile(hook, 0.99)
            + " webhook_max="
            + percentile(hook, 1.0));
    System.out.flush();
  }

  /** One page of the feed after {@code token}. */
  private static JsonNode page(String api, String key, String token, int size) throws Exception {
    String body = "{\"page-size\":" + size + ",\"continuation-token\":\"" + token + "\"}";
    return MAPPER.readTree(
        CLIENT
            .send(
                HttpRequest.newBuilder(URI.create(api + "/v1/events"))
                    .header("x-api-key", key)
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body());
  }

  /** The cursor of the feed's last event now. */
  private static String headToken(String api, String key) throws Exception {
    String token = "";
    while (true) {
      String next = page(api, key, token, 1000).get("continuation-token").asText();
      if (next.equals(token)) {
        return token;
      }
      token = next;
    }
  }

  /** The q-quantile of {@code values} (nearest rank), -1 for none. */
  static long percentile(List<Long> values, double q) {
    if (values.isEmpty()) {
      return -1;
    }
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int index = (int) Math.ceil(q * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
  }

  private static void idle(String api, String key, int tails, int seconds) throws Exception {
    URI uri = URI.create(api);
    List<Socket> open = new ArrayList<>();
    int ok = 0;
    for (int i = 0; i < tails; i++) {
      Socket socket = new Socket(uri.getHost(), uri.getPort());
      OutputStream out = socket.getOutputStream();
      out.write(
          ("GET /v1/events/stream HTTP/1.1\r\nHost: bench\r\nx-api-key: " + key + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      BufferedReader in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      if (in.readLine().contains(" 200 ")) {
        ok++;
      }
      open.add(socket);
    }
    System.err.println("LVG-FEED-OPEN " + ok);
    Thread.sleep(seconds * 1000L);
    for (Socket socket : open) {
      socket.close();
    }
    System.out.println("LVG-FEED idle tails=" + tails + " open=" + ok);
  }

  private static void catchup(String api, String key, int pageSize) throws Exception {
    String token = "";
    long events = 0;
    long started = System.nanoTime();
    while (true) {
      JsonNode page = page(api, key, token, pageSize);
      events += page.get("events").size();
      String next = page.get("continuation-token").asText();
      if (next.equals(token)) {
        break;
      }
      token = next;
    }
    double secs = (System.nanoTime() - started) / 1e9;
    System.out.printf(
        "LVG-FEED catchup events=%d seconds=%.1f events_per_s=%.0f%n", events, secs, events / secs);
  }
}
