package dev.lvg.catalog;

import dev.lvg.platform.Exported;
import io.vertx.core.json.JsonObject;

/** A registered or declared table of one tenant. */
@Exported
public record TableRecord(long id, String location, JsonObject properties) {}
