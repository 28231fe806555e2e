package dev.lvg.feed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.TestGateway;
import dev.lvg.operation.GatewayOperation;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The database's {@code feed_operation}, which decides in the numbering trigger which audit events
 * the feed carries, agrees with the operation catalogue: it takes exactly the operations that have
 * an event type.
 */
class FeedOperationsIT {
  @Test
  void theDatabaseCarriesExactlyTheOperationsTheCatalogueGivesAnEventType() throws Exception {
    List<String> disagreements = new ArrayList<>();
    try (Connection db = TestGateway.shared().jdbc();
        PreparedStatement carries = db.prepareStatement("SELECT feed_operation(?)")) {
      for (GatewayOperation operation : GatewayOperation.values()) {
        carries.setString(1, operation.id());
        try (ResultSet answer = carries.executeQuery()) {
          answer.next();
          boolean inDatabase = answer.getBoolean(1);
          if (inDatabase != (operation.eventType() != null)) {
            disagreements.add(operation.id() + (inDatabase ? " carried" : " not carried"));
          }
        }
      }
      carries.setString(1, "VendCredentials");
      try (ResultSet answer = carries.executeQuery()) {
        answer.next();
        assertThat(answer.getBoolean(1)).as("an operation outside the catalogue").isFalse();
      }
    }
    assertThat(disagreements).isEmpty();
    assertThat(EventTypes.operations())
        .containsExactlyElementsOf(
            GatewayOperation.inFeed().stream().map(GatewayOperation::id).toList());
  }
}
