package dev.lvg.version;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.Api;
import dev.lvg.TestGateway;
import dev.lvg.VertxInstances;
import dev.lvg.audit.Actor;
import dev.lvg.catalog.BranchRepository;
import dev.lvg.catalog.CatalogRepository;
import dev.lvg.catalog.NamespaceRepository;
import dev.lvg.db.Database;
import dev.lvg.http.TableId;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The decision order of {@code version/create} lives in two places: the insert's WHERE clause and
 * its unique keys ({@link VersionStatements}), which decide whether a request claims its slot, and
 * {@link CommitDecision}, which explains a request that claimed nothing. Each slot state below runs
 * through both, on the real database: the insert must claim the slot exactly when the decision is
 * {@code Free}, and the decision must be the one the table names. A change to either side that the
 * other does not follow fails here.
 */
class DecisionOrderIT {
  private static final UUID HELD_TRANSACTION =
      UUID.fromString("0f0f0f0f-0000-4000-8000-000000000001");

  private static final TestGateway GW = TestGateway.shared();
  private static Vertx vertx;
  private static Pool pool;
  private static VersionRepository repository;

  @BeforeAll
  static void connect() {
    vertx = Vertx.vertx();
    pool = Database.pool(vertx, GW.databaseUrl(), "decision-order-test", 2, 64, 1);
    CatalogRepository catalog = new CatalogRepository(new NamespaceRepository());
    repository = new VersionRepository(catalog, new BranchRepository(catalog), false);
  }

  @AfterAll
  static void close() throws Exception {
    pool.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    VertxInstances.close(vertx);
  }

  /**
   * A slot state: versions 1..{@code committed} on main (version v from path {@code p<v>}, version
   * 2 holding {@link #HELD_TRANSACTION}), optionally a branch {@code b} from version 1, and the
   * request. {@code expected}: {@code Free}, {@code Replay}, or the refusal's message start.
   */
  record Case(
      String name,
      int committed,
      boolean branch,
      String requestBranch,
      long version,
      String path,
      UUID lanceTransaction,
      String expected) {}

  private static final List<Case> CASES =
      List.of(
          new Case("first version of an empty table", 0, false, "main", 1, "p1", null, "Free"),
          new Case("any first number on an empty main", 0, false, "main", 7, "p7", null, "Free"),
          new Case("the next version", 2, false, "main", 3, "p3", null, "Free"),
          new Case("a replay by the same path", 2, false, "main", 2, "p2", null, "Replay"),
          new Case(
              "the slot taken by another path",
              2,
              false,
              "main",
              2,
              "other",
              null,
              "version 2 already exists with another manifest"),
          new Case(
              "a gap after the latest",
              2,
              false,
              "main",
              4,
              "p4",
              null,
              "version 4 is not the next version"),
          new Case(
              "a number behind the latest",
              3,
              false,
              "main",
              2,
              "other",
              null,
              "version 2 already exists with another manifest"),
          new Case(
              "a transaction the branch holds, sent as the next version",
              2,
              false,
              "main",
              3,
              "p3",
              HELD_TRANSACTION,
              "transaction " + HELD_TRANSACTION + " is already committed as version 2"),
          new Case(
              "a held transaction in a taken slot: the slot speaks first",
              2,
              false,
              "main",
              2,
              "other",
              HELD_TRANSACTION,
              "version 2 already exists with another manifest"),
          new Case(
              "a held transaction and a gap: the transaction speaks first",
              2,
              false,
              "main",
              5,
              "p5",
              HELD_TRANSACTION,
              "transaction " + HELD_TRANSACTION + " is already committed as version 2"),
          new Case("a missing branch", 2, false, "b", 2, "b2", null, "branch 'b' not found"),
          new Case("a branch's first version", 2, true, "b", 2, "b2", null, "Free"),
          new Case(
              "a branch's first version must follow its start",
              2,
              true,
              "b",
              3,
              "b3",
              null,
              "version 3 is not the next version"),
          new Case(
              "a transaction held on main is free on a branch",
              2,
              true,
              "b",
              2,
              "b2",
              HELD_TRANSACTION,
              "Free"));

  @Test
  void theInsertClaimsASlotExactlyWhenTheDecisionIsFreeAndTheDecisionIsTheOneExpected()
      throws Exception {
    String tenantName = "order-" + UUID.randomUUID().toString().substring(0, 8);
    Api api = GW.api(GW.tenantWithKey(tenantName));
    Tenant tenant = new Tenant(tenantId(tenantName), tenantName);
    api.post("/v1/namespace/ns/create", "{}").assertOk();
    int n = 0;
    for (Case c : CASES) {
      String table = "t" + n++;
      api.post("/v1/table/ns%24" + table + "/declare", "{}").assertOk();
      for (int v = 1; v <= c.committed(); v++) {
        api.post("/v1/table/ns%24" + table + "/version/create", Api.createBody(v, "p" + v))
            .assertOk();
      }
      if (c.committed() >= 2) {
        holdTransaction(tenant, table);
      }
      if (c.branch()) {
        api.post(
                "/v1/table/ns%24" + table + "/branches/create",
                "{\"name\":\"b\",\"from_version\":1}")
            .assertOk();
      }
      NewVersion request =
          new NewVersion(
              Actor.of(tenant, "decision-order", "r-" + n),
              TableId.of(List.of("ns", table)),
              c.version(),
              c.requestBranch(),
              c.path(),
              null,
              null,
              Map.of(),
              null,
              UUID.randomUUID(),
              c.lanceTransaction(),
              null);

      boolean claimed = claims(request);
      CommitDecision.Decision decision =
          await(repository.inspectSlot(pool, request))
              .map(slot -> CommitDecision.decide(request, slot))
              .orElseThrow();
      String outcome =
          decision instanceof CommitDecision.Refused refused
              ? refused.error().getMessage()
              : decision instanceof CommitDecision.Replay ? "Replay" : "Free";
      assertThat(outcome).as("%s: the decision", c.name()).startsWith(c.expected());
      assertThat(claimed)
          .as("%s: the insert claims the slot exactly when the decision is Free", c.name())
          .isEqualTo(decision instanceof CommitDecision.Free);
    }
  }

  /** Whether the insert claims the request's slot; rolled back, so the state stays as it was. */
  private static boolean claims(NewVersion request) throws Exception {
    return await(
            pool.getConnection()
                .compose(
                    conn ->
                        conn.begin()
                            .compose(
                                tx ->
                                    repository
                                        .insertAndRecord(conn, List.of(request))
                                        .eventually(tx::rollback))
                            .eventually(conn::close)))
        .map(inserted -> inserted.size() == 1)
        .orElseThrow();
  }

  private static <T> java.util.Optional<T> await(Future<T> future) throws Exception {
    return java.util.Optional.of(
        future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS));
  }

  /** Marks version 2 of {@code table}'s main branch as holding {@link #HELD_TRANSACTION}. */
  private static void holdTransaction(Tenant tenant, String table) throws Exception {
    try (Connection db = GW.jdbc();
        PreparedStatement update =
            db.prepareStatement(
                "UPDATE table_versions v SET lance_transaction = ?::uuid FROM lance_tables t"
                    + " WHERE v.tenant_id = ? AND t.tenant_id = v.tenant_id AND t.id = v.table_id"
                    + " AND t.name = ? AND v.branch = 'main' AND v.version = 2")) {
      update.setString(1, HELD_TRANSACTION.toString());
      update.setLong(2, tenant.id());
      update.setString(3, table);
      assertThat(update.executeUpdate()).isEqualTo(1);
    }
  }

  private static long tenantId(String name) throws Exception {
    try (Connection db = GW.jdbc();
        PreparedStatement query = db.prepareStatement("SELECT id FROM tenants WHERE name = ?")) {
      query.setString(1, name);
      try (ResultSet rows = query.executeQuery()) {
        assertThat(rows.next()).isTrue();
        return rows.getLong(1);
      }
    }
  }
}
