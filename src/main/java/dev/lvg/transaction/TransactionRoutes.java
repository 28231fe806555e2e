package dev.lvg.transaction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.auth.Authentication;
import dev.lvg.auth.ObjectAccess;
import dev.lvg.auth.Routes;
import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import dev.lvg.http.ObjectId;
import dev.lvg.http.Requests;
import dev.lvg.http.TableId;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.operation.Right;
import dev.lvg.tenancy.Access;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import java.util.List;

/**
 * {@code DescribeTransaction}: what became of a transaction id the gateway answered, or of a Lance
 * transaction, by its uuid.
 */
public final class TransactionRoutes {
  private final Pool pool;

  public TransactionRoutes(Pool pool) {
    this.pool = pool;
  }

  public void mount(Routes routes) {
    routes.json(GatewayOperation.DESCRIBE_TRANSACTION, this::describe);
  }

  private Future<ObjectNode> describe(RoutingContext ctx) {
    Body body = Requests.body(ctx);
    List<String> id = ObjectId.parts(ctx, body);
    if (id.isEmpty()) {
      throw ApiException.invalidInput(
          "a transaction id is one part, or a Lance transaction uuid after a table id");
    }
    TableId table = id.size() > 1 ? TableId.of(id.subList(0, id.size() - 1)) : null;
    String transaction = id.get(id.size() - 1);
    Access access = ObjectAccess.access(ctx);
    if (table != null) {
      ObjectAccess.check(access, Right.READ, table, false);
    }
    return TransactionLog.describe(pool, Authentication.tenant(ctx), table, transaction)
        .compose(
            found ->
                access.onTenant(Right.READ) || readable(access, found)
                    ? Future.succeededFuture(found)
                    : Future.failedFuture(TransactionLog.notFound(transaction)));
  }

  /**
   * Whether a credential that reads only part of the tenant may see a transaction: one of a table
   * it may read; a batch's, which spans tables, only with the right to read the whole tenant.
   */
  private static boolean readable(Access access, ObjectNode transaction) {
    JsonNode table = transaction.path("properties").path("table");
    if (!table.isTextual()) {
      return false;
    }
    TableId id = TableId.of(ObjectId.parse(table.asText(), ObjectId.DEFAULT_DELIMITER));
    return access.mayOnTable(Right.READ, id.namespace().names(), id.name());
  }
}
