package dev.lvg.transaction;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.auth.Authentication;
import dev.lvg.auth.Routes;
import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import dev.lvg.http.ObjectId;
import dev.lvg.http.Requests;
import dev.lvg.http.TableId;
import dev.lvg.operation.GatewayOperation;
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
    return TransactionLog.describe(pool, Authentication.tenant(ctx), table, id.get(id.size() - 1));
  }
}
