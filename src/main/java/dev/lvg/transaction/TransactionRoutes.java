package dev.lvg.transaction;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.auth.Authentication;
import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import dev.lvg.http.ObjectId;
import dev.lvg.http.Operations;
import dev.lvg.http.Requests;
import dev.lvg.http.Routes;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import java.util.List;

/** {@code DescribeTransaction}: what became of a transaction id the gateway answered. */
public final class TransactionRoutes {
  private final Pool pool;

  public TransactionRoutes(Pool pool) {
    this.pool = pool;
  }

  public void mount(Routes routes) {
    routes.post("/v1/transaction/:id/describe", Operations.json(this::describe));
  }

  private Future<ObjectNode> describe(RoutingContext ctx) {
    Body body = Requests.body(ctx);
    List<String> id = ObjectId.fromRequest(ctx, body);
    if (id.size() != 1) {
      throw ApiException.invalidInput("a transaction id is one part");
    }
    return TransactionLog.describe(pool, Authentication.tenant(ctx), id.get(0));
  }
}
