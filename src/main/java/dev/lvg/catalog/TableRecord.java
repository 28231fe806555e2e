package dev.lvg.catalog;

import io.vertx.core.json.JsonObject;

/** A registered or declared table of one tenant. */
public record TableRecord(long id, String location, JsonObject properties) {}
