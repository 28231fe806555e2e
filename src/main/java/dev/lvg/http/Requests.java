package dev.lvg.http;

import io.vertx.ext.web.RoutingContext;

/** The request body, parsed once, and typed query parameters. */
public final class Requests {
  private static final String BODY = "lvg.body";

  private Requests() {}

  /** The request body, parsed once; absent, empty and {@code null} bodies read as no fields. */
  public static Body body(RoutingContext ctx) {
    Body body = ctx.get(BODY);
    if (body == null) {
      body = Body.of(Json.parseOptionalObject(ctx.body().buffer()));
      ctx.put(BODY, body);
    }
    return body;
  }

  /** The body of an operation whose request body the spec requires. */
  public static Body requiredBody(RoutingContext ctx) {
    Body body = body(ctx);
    if (body.absent()) {
      throw ApiException.invalidInput("a JSON object request body is required");
    }
    return body;
  }

  public static Boolean queryBoolean(RoutingContext ctx, String name) {
    String value = ctx.queryParams().get(name);
    if (value == null || value.isEmpty()) {
      return null;
    }
    if (value.equalsIgnoreCase("true")) {
      return true;
    }
    if (value.equalsIgnoreCase("false")) {
      return false;
    }
    throw ApiException.invalidInput("query parameter '" + name + "' must be true or false");
  }

  public static Integer queryInteger(RoutingContext ctx, String name) {
    String value = ctx.queryParams().get(name);
    if (value == null || value.isEmpty()) {
      return null;
    }
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw ApiException.invalidInput("query parameter '" + name + "' must be an integer");
    }
  }
}
