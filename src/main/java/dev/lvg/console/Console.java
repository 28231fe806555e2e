package dev.lvg.console;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

/**
 * The web console: a few static files in the jar (plain HTML, CSS and JavaScript modules, no build
 * step, nothing fetched from elsewhere), read once at start and served on the API port under {@code
 * /console/} when {@code LVG_CONSOLE=true}, so that the pages call the API, the admin API and the
 * change feed on their own origin. The browser keeps the credential in its session storage and
 * sends it as a header; nothing the console serves sets a cookie, so no request carries an ambient
 * credential. Every file goes out with a Content-Security-Policy that allows only this origin's
 * scripts, styles and connections.
 */
public final class Console {
  public static final String PATH = "/console/";

  static final String CONTENT_SECURITY_POLICY =
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src"
          + " 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  /** The files, by the name they are served under, with their content type. */
  static final Map<String, String> FILES =
      Map.of(
          "index.html", "text/html; charset=utf-8",
          "console.css", "text/css; charset=utf-8",
          "api.js", "text/javascript; charset=utf-8",
          "app.js", "text/javascript; charset=utf-8",
          "catalog.js", "text/javascript; charset=utf-8",
          "live.js", "text/javascript; charset=utf-8",
          "admin.js", "text/javascript; charset=utf-8",
          "view.js", "text/javascript; charset=utf-8");

  private final Map<String, Buffer> files;

  private Console(Map<String, Buffer> files) {
    this.files = files;
  }

  /** The console's files, read on a worker thread. */
  static Future<Console> load(Vertx vertx) {
    return vertx.executeBlocking(Console::read, false);
  }

  private static Console read() {
    Map<String, Buffer> files = new HashMap<>();
    for (String name : FILES.keySet()) {
      try (InputStream in = Console.class.getResourceAsStream("/console/" + name)) {
        if (in == null) {
          throw new IllegalStateException("the jar lacks the console's file " + name);
        }
        files.put(name, Buffer.buffer(in.readAllBytes()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return new Console(files);
  }

  /** Serves {@code /console/} (the page) and its files; {@code /console} redirects there. */
  void serve(RoutingContext ctx) {
    String path = ctx.request().path();
    if (!path.startsWith(PATH)) { // the route matches /console itself too
      secured(ctx.response()).setStatusCode(308).putHeader("Location", PATH).end();
      return;
    }
    String name = path.substring(PATH.length());
    if (name.isEmpty()) {
      name = "index.html";
    }
    Buffer content = files.get(name);
    if (content == null) {
      secured(ctx.response())
          .setStatusCode(404)
          .putHeader("Content-Type", "text/plain; charset=utf-8")
          .end("no such file in the console\n");
      return;
    }
    secured(ctx.response())
        .putHeader("Content-Type", FILES.get(name))
        .putHeader("Cache-Control", "no-cache")
        .end(content);
  }

  private static HttpServerResponse secured(HttpServerResponse response) {
    return response
        .putHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        .putHeader("X-Content-Type-Options", "nosniff")
        .putHeader("Referrer-Policy", "no-referrer")
        .putHeader("X-Frame-Options", "DENY");
  }
}
