package dev.lvg;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP proxy in front of the gateway that loses answers: armed, it forwards the next requests
 * whose path ends with a given suffix, reads the gateway's whole answer and closes the client's
 * connection without sending it (a proxy restart, a load balancer timeout, a client's socket
 * timeout). Everything else passes through unchanged.
 */
public final class AnswerDropper implements AutoCloseable {
  private final Vertx vertx = Vertx.vertx();
  private final HttpClient client;
  private final HttpServer server;
  private final URI target;
  private final AtomicInteger toDrop = new AtomicInteger();
  private final AtomicInteger dropped = new AtomicInteger();
  private final List<Answer> answers = new CopyOnWriteArrayList<>();
  private volatile String suffix = "";

  /** An answer the gateway gave through the proxy. */
  public record Answer(String path, int status, String body) {}

  public AnswerDropper(String targetUrl) throws Exception {
    this.target = URI.create(targetUrl);
    this.client = vertx.createHttpClient();
    this.server =
        vertx
            .createHttpServer()
            .requestHandler(this::forward)
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
  }

  /** The proxy's base URL, to give a client instead of the gateway's. */
  public String url() {
    return "http://127.0.0.1:" + server.actualPort();
  }

  /** Loses the gateway's answers to the next {@code count} requests whose path ends so. */
  public void drop(String pathSuffix, int count) {
    suffix = pathSuffix;
    toDrop.set(count);
  }

  /** Every answer the gateway gave through the proxy so far, lost or passed on, in order. */
  public List<Answer> answers() {
    return List.copyOf(answers);
  }

  /** How many answers were lost so far. */
  public int dropped() {
    return dropped.get();
  }

  private void forward(HttpServerRequest in) {
    Future<Buffer> sent = in.body();
    boolean lose = in.path().endsWith(suffix) && toDrop.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
    RequestOptions options =
        new RequestOptions()
            .setMethod(in.method())
            .setHost(target.getHost())
            .setPort(target.getPort())
            .setURI(in.uri())
            .setHeaders(endToEnd(in.headers()));
    client
        .request(options)
        .compose(out -> sent.compose(out::send))
        .compose(response -> response.body().map(body -> answer(in, response, body, lose)))
        .onFailure(error -> in.response().setStatusCode(502).end(String.valueOf(error)));
  }

  /** The headers without the ones that describe one connection's framing. */
  private static MultiMap endToEnd(MultiMap headers) {
    MultiMap copy = MultiMap.caseInsensitiveMultiMap().addAll(headers);
    for (String name :
        List.of(
            "content-length", "transfer-encoding", "connection", "keep-alive", "accept-encoding")) {
      copy.remove(name);
    }
    return copy;
  }

  private Void answer(
      HttpServerRequest in, HttpClientResponse response, Buffer body, boolean lose) {
    answers.add(new Answer(in.path(), response.statusCode(), body.toString()));
    if (lose) {
      dropped.incrementAndGet();
      in.connection().close();
      return null;
    }
    in.response().setStatusCode(response.statusCode());
    in.response().headers().addAll(endToEnd(response.headers()));
    in.response().end(body);
    return null;
  }

  @Override
  public void close() {
    vertx.close();
  }
}
