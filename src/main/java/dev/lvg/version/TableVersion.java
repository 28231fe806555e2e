package dev.lvg.version;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.http.Json;
import dev.lvg.platform.Exported;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Row;
import java.util.Map;
import java.util.UUID;

/**
 * One committed version of a table on a branch, as stored; {@code lanceTransaction} is the Lance
 * transaction its manifest names, when the gateway read it.
 */
@Exported
public record TableVersion(
    long version,
    String manifestPath,
    String requestedPath,
    Long manifestSize,
    String eTag,
    JsonObject metadata,
    UUID transactionId,
    long timestampMillis,
    UUID lanceTransaction) {

  /** The metadata key under which a version shows the Lance transaction that committed it. */
  public static final String LANCE_TRANSACTION = "lance_transaction_uuid";

  public static TableVersion from(Row row) {
    return new TableVersion(
        row.getLong("version"),
        row.getString("manifest_path"),
        row.getString("requested_path"),
        row.getLong("manifest_size"),
        row.getString("e_tag"),
        row.getJsonObject("metadata"),
        row.getUUID("transaction_id"),
        row.getLong("timestamp_millis"),
        row.getUUID("lance_transaction"));
  }

  /** True when a request for this version with this manifest path is a retry of the stored one. */
  boolean sameRequest(String manifestPath) {
    return manifestPath.equals(this.requestedPath) || manifestPath.equals(this.manifestPath);
  }

  /** The spec's {@code TableVersion} object. */
  public ObjectNode toJson() {
    ObjectNode node = Json.object().put("version", version).put("manifest_path", manifestPath);
    if (manifestSize != null) {
      node.put("manifest_size", manifestSize);
    }
    if (eTag != null) {
      node.put("e_tag", eTag);
    }
    node.put("timestamp_millis", timestampMillis);
    ObjectNode meta = node.putObject("metadata");
    if (metadata != null) {
      for (Map.Entry<String, Object> entry : metadata) {
        meta.put(entry.getKey(), String.valueOf(entry.getValue()));
      }
    }
    if (lanceTransaction != null) {
      meta.put(LANCE_TRANSACTION, lanceTransaction.toString());
    }
    return node;
  }
}
