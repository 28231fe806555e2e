package dev.lvg.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.TestGateway;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Gateways starting together against an empty database apply each migration exactly once. */
@ExtendWith(VertxExtension.class)
class MigrationsIT {

  @Test
  void concurrentStartsApplyEachMigrationOnce(Vertx vertx, VertxTestContext test) {
    String url = TestGateway.shared().databaseUrl();
    String database =
        "lvg_migrations_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    Pool admin = Database.pool(vertx, url, "admin-" + database, 1, 16, 1);
    PgConnectOptions target = PgConnectOptions.fromUri(url).setDatabase(database);
    String targetUrl =
        "postgresql://"
            + target.getUser()
            + (target.getPassword() == null || target.getPassword().isEmpty()
                ? ""
                : ":" + target.getPassword())
            + "@"
            + target.getHost()
            + ":"
            + target.getPort()
            + "/"
            + database;
    List<Migrations.Migration> migrations = Migrations.load();
    List<Pool> gateways = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      gateways.add(Database.pool(vertx, targetUrl, database + "-" + i, 2, 16, 1));
    }

    admin
        .query("CREATE DATABASE " + database)
        .execute()
        .compose(
            created ->
                Future.all(
                    gateways.stream().map(pool -> Migrations.apply(pool, migrations)).toList()))
        .compose(
            applied -> {
              int total = 0;
              for (int i = 0; i < gateways.size(); i++) {
                total += applied.<Integer>resultAt(i);
              }
              int totalApplied = total;
              return gateways
                  .get(0)
                  .query("SELECT count(*) FROM schema_migrations")
                  .execute()
                  .map(rows -> List.of(totalApplied, rows.iterator().next().getLong(0).intValue()));
            })
        .compose(counts -> Future.all(gateways.stream().map(Pool::close).toList()).map(counts))
        .compose(counts -> admin.query("DROP DATABASE " + database).execute().map(counts))
        .onComplete(
            test.succeeding(
                counts ->
                    test.verify(
                        () -> {
                          assertThat(counts.get(0)).isEqualTo(migrations.size());
                          assertThat(counts.get(1)).isEqualTo(migrations.size());
                          test.completeNow();
                        })));
  }
}
