package dev.lvg.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.TestGateway;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The rules that keep the schema and every statement fit for Citus, distributed by tenant, checked
 * on plain PostgreSQL so that a change cannot break them unseen: every key and reference of a
 * tenant's tables starts with {@code tenant_id}, and every statement that touches such a table
 * names its tenant (or is one of the few that knowingly read across tenants).
 */
class DistributionRulesIT {
  /** Copied to every node: read before a tenant is known, or not a tenant's at all. */
  private static final Set<String> REFERENCE_TABLES =
      Set.of(
          "tenants",
          "api_keys",
          "schema_migrations",
          "feed_epoch",
          "client_certificates",
          "revoked_certificates",
          "feed_sink_leases");

  /** Statements that read across tenants, and why that is fine on Citus. */
  private static final Map<String, String> ACROSS_TENANTS =
      Map.of(
          "Feed.RECORDED",
          "a sum over every tenant's feed head for a gauge; a multi-shard read without locks",
          "FeedExpiry.TENANTS",
          "the expiry's list of tenants with a feed; each is then expired by its own statements",
          "TableDrops.NEXT_DROPS",
          "the drop job's scan of every tenant's queue; a multi-shard read without locks",
          "VersionStatements.SET_FINAL_MANIFESTS",
          "the PostgreSQL form, of rows this transaction inserted; SET_FINAL_MANIFESTS_ONE_TENANT is Citus's",
          "VersionStatements.DELETE_INSERTED",
          "the PostgreSQL form, of rows this transaction inserted; DELETE_INSERTED_ONE_TENANT is Citus's",
          "VersionAudit.RECORD",
          "rows made from the batch's arrays, each routed by its own tenant_id value",
          "SinkStatements.DUE",
          "a sink's scan of every tenant's feed head; a multi-shard read without locks",
          "SinkRoutes.STATE",
          "a sink's lag summed over every tenant's feed head for the admin API; without locks");

  /** A filter or join on the tenant. */
  private static final Pattern NAMES_TENANT = Pattern.compile("(?s).*tenant_id\\s*=.*");

  /** Inserts of given values only, the tenant first among them (Citus routes each by it). */
  private static final Pattern INSERTS_TENANT =
      Pattern.compile(
          "(?s)(?!.*\\bselect\\b).*insert into \\w+ \\(tenant_id,[^)]*\\)\\s*values\\s*\\(.*");

  private static final Pattern SQL =
      Pattern.compile("(?s)^\\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\\b.*");

  private static List<String> tenantTables(Connection db) throws Exception {
    List<String> tables = new ArrayList<>();
    try (Statement statement = db.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")) {
      while (rows.next()) {
        if (!REFERENCE_TABLES.contains(rows.getString(1))) {
          tables.add(rows.getString(1));
        }
      }
    }
    return tables;
  }

  @Test
  void everyKeyAndReferenceOfATenantsTablesStartsWithTheTenant() throws Exception {
    try (Connection db = TestGateway.shared().jdbc()) {
      List<String> tables = tenantTables(db);
      assertThat(tables).contains("lance_tables", "table_versions", "audit_events");
      try (Statement statement = db.createStatement()) {
        for (String table : tables) {
          try (ResultSet keys =
              statement.executeQuery(
                  """
                  SELECT i.indexrelid::regclass::text, a.attname
                  FROM pg_index i JOIN pg_attribute a
                    ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
                  WHERE i.indrelid = 'public.%s'::regclass AND (i.indisunique OR i.indisprimary)"""
                      .formatted(table))) {
            while (keys.next()) {
              assertThat(keys.getString(2))
                  .as("the first column of %s on %s", keys.getString(1), table)
                  .isEqualTo("tenant_id");
            }
          }
          try (ResultSet references =
              statement.executeQuery(
                  """
                  SELECT c.conname, c.confrelid::regclass::text,
                         (SELECT attname FROM pg_attribute
                          WHERE attrelid = c.conrelid AND attnum = c.conkey[1])
                  FROM pg_constraint c
                  WHERE c.contype = 'f' AND c.conrelid = 'public.%s'::regclass"""
                      .formatted(table))) {
            while (references.next()) {
              String target = references.getString(2);
              if (!REFERENCE_TABLES.contains(target)) {
                assertThat(references.getString(3))
                    .as("the first column of %s on %s", references.getString(1), table)
                    .isEqualTo("tenant_id");
              }
            }
          }
        }
      }
    }
  }

  @Test
  void everyStatementOnATenantsTablesNamesItsTenant() throws Exception {
    List<String> tables;
    try (Connection db = TestGateway.shared().jdbc()) {
      tables = tenantTables(db);
    }
    Pattern touchesTenantTable =
        Pattern.compile(
            "(?is).*\\b(FROM|JOIN|INTO|UPDATE)\\s+(" + String.join("|", tables) + ")\\b.*");
    List<String> checked = new ArrayList<>();
    for (Class<?> type : mainClasses()) {
      for (Field field : type.getDeclaredFields()) {
        if (!Modifier.isStatic(field.getModifiers()) || field.getType() != String.class) {
          continue;
        }
        field.setAccessible(true);
        String sql = (String) field.get(null);
        if (sql == null || !SQL.matcher(sql).matches()) {
          continue;
        }
        String name = type.getSimpleName() + "." + field.getName();
        String lower = sql.toLowerCase(Locale.ROOT);
        assertThat(lower)
            .as("%s: a volatile clock or random value (Citus refuses them in changes)", name)
            .doesNotContain("clock_timestamp(")
            .doesNotContain("random(");
        if (!touchesTenantTable.matcher(sql).matches() || ACROSS_TENANTS.containsKey(name)) {
          continue;
        }
        assertThat(NAMES_TENANT.matcher(lower).matches() || INSERTS_TENANT.matcher(lower).matches())
            .as("%s names its tenant: %s", name, sql)
            .isTrue();
        checked.add(name);
      }
    }
    assertThat(checked)
        .as("statements found")
        .contains("CatalogRepository.FIND_TABLE", "TableDrops.CLAIM_DROP", "AuditTrail.PAGE");
    // The Citus forms of the commit batch's statements filter on their one tenant alone.
    Class<?> statements = Class.forName("dev.lvg.version.VersionStatements");
    for (String name :
        List.of(
            "INSERT_AND_RECORD_ONE_TENANT",
            "INSERT_RETURNING_LOCATION_ONE_TENANT",
            "SET_FINAL_MANIFESTS_ONE_TENANT",
            "DELETE_INSERTED_ONE_TENANT")) {
      Field field = statements.getDeclaredField(name);
      field.setAccessible(true);
      assertThat((String) field.get(null))
          .as(name)
          .containsPattern("tenant_id = \\$\\d::bigint")
          .doesNotContain("r.tenant_id");
      assertThat(checked).as("checked by the rule above too").contains("VersionStatements." + name);
    }
  }

  private static List<Class<?>> mainClasses() throws IOException, ClassNotFoundException {
    Path root = Path.of("target", "classes");
    List<Class<?>> classes = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
        String name = root.relativize(file).toString().replace('/', '.');
        classes.add(Class.forName(name.substring(0, name.length() - ".class".length())));
      }
    }
    return classes;
  }
}
