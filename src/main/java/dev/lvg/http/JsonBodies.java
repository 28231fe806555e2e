package dev.lvg.http;

import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.PlatformHandler;
import java.util.Locale;

/**
 * The API takes only JSON bodies, but common clients label them as forms ({@code curl -d} sends
 * {@code application/x-www-form-urlencoded}), and some send none. Such a body is labelled as JSON
 * before the body handler sees it, so it is never decoded as a form, whatever its size, and is
 * checked against its operation's JSON schema.
 */
public final class JsonBodies implements PlatformHandler {
  @Override
  public void handle(RoutingContext ctx) {
    String type = ctx.request().getHeader(HttpHeaders.CONTENT_TYPE);
    if (type == null
        || type.toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded")
        || type.toLowerCase(Locale.ROOT).startsWith("multipart/")) {
      ctx.request().headers().set(HttpHeaders.CONTENT_TYPE, "application/json");
    }
    ctx.next();
  }
}
