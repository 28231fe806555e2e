package dev.lvg.restore;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.audit.Actor;
import dev.lvg.auth.Routes;
import dev.lvg.catalog.BranchRepository;
import dev.lvg.catalog.Branches;
import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import dev.lvg.http.Json;
import dev.lvg.http.ObjectId;
import dev.lvg.http.Requests;
import dev.lvg.http.TableId;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.tenancy.Tenant;
import dev.lvg.version.NewVersion;
import dev.lvg.version.VersionService;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import java.util.UUID;

/**
 * {@code RestoreTable}: a new version whose manifest is an old version's, numbered after the
 * latest, as Lance's own restore writes it. The old version stays; versions after it stay in the
 * history, and the restored one is the latest. A restore that loses the race for its number to
 * another commit is answered 409 code 14, its staged files removed; asking again restores after
 * that commit. Served where the gateway finalizes manifests (406 code 0 in record mode).
 */
record RestoreRoutes(
    Pool reads, BranchRepository branches, VersionService versions, Restores restores) {
  void mount(Routes routes) {
    routes.json(GatewayOperation.RESTORE_TABLE, this::restore);
  }

  private Future<ObjectNode> restore(RoutingContext ctx) {
    restores.requireServed();
    Body body = Requests.requiredBody(ctx);
    TableId id = ObjectId.table(ctx, body);
    long version = body.requiredNonNegativeLong("version");
    String branch = Branches.fromBody(body);
    Actor actor = Actor.of(ctx);
    Tenant tenant = actor.tenant();
    return branches
        .requireBranch(reads, tenant, id, branch)
        .compose(
            table ->
                versions
                    .reads()
                    .describe(reads, tenant, id, branch, version)
                    .compose(
                        old ->
                            versions
                                .reads()
                                .describe(reads, tenant, id, branch, null)
                                .compose(
                                    latest ->
                                        restores.stage(actor, id, branch, table, old, latest))))
        .compose(this::commit)
        .map(created -> Json.object().put("transaction_id", created.toString()));
  }

  /**
   * Commits the staged restore; removes its files when it was refused (a 4xx: not committed). After
   * any other failure the commit may have landed, so they stay.
   */
  private Future<UUID> commit(NewVersion request) {
    return versions
        .create(request)
        .transform(
            outcome -> {
              if (outcome.succeeded()) {
                return Future.succeededFuture(outcome.result().version().transactionId());
              }
              Future<Void> cleaned =
                  outcome.cause() instanceof ApiException refused
                          && refused.errorCode().status < 500
                      ? restores.discard(request)
                      : Future.succeededFuture();
              return cleaned.transform(done -> Future.failedFuture(outcome.cause()));
            });
  }
}
