package dev.lvg.version;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.http.Json;
import dev.lvg.platform.Exported;

/** Outcome of a commit: the stored row, and whether this request created it or replayed it. */
@Exported
public record CommitOutcome(TableVersion version, boolean created) {
  /** The spec's {@code CreateTableVersionResponse}. */
  public ObjectNode toJson() {
    ObjectNode result = Json.object();
    result.set("version", version.toJson());
    result.put("transaction_id", version.transactionId().toString());
    return result;
  }
}
