package dev.lvg.tenancy;

import dev.lvg.http.ApiException;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.operation.Right;
import dev.lvg.tenancy.Credentials.Changer;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Rights below the tenant: grants of a right on a namespace's subtree or on one table to a grantee,
 * and roles, which group grants for their members. A grantee is named {@code kind:name}: {@code
 * key:<key id>}, {@code role:<name>}, {@code claim:<value>} (a value of the bearer tokens' role
 * claim) or {@code cert:<identity>} (a client certificate's subject or SAN); a role's members are
 * keys, claim values and certificate identities. Every change is audited and notifies every gateway
 * in its transaction, as changes to keys do, so each forgets the access it remembered at once.
 */
public final class Grants {
  private static final Pattern ROLE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
  private static final int MAX_NAME = 512;

  private static final String OF =
      """
      SELECT privilege, path, on_table FROM grants
      WHERE tenant_id = $1 AND (grantee = ANY($2)
        OR grantee IN (SELECT 'role:' || role FROM role_members
                       WHERE tenant_id = $1 AND member = ANY($2)))""";
  private static final String INSERT =
      """
      INSERT INTO grants (tenant_id, grant_id, grantee, privilege, path, on_table)
      VALUES ($1, $2, $3, $4, $5, $6)
      ON CONFLICT (tenant_id, grantee, privilege, path, on_table) DO NOTHING""";
  private static final String LIST =
      """
      SELECT grant_id, grantee, privilege, path, on_table FROM grants
      WHERE tenant_id = $1 AND ($2::text IS NULL OR grantee = $2) ORDER BY grantee, grant_id""";
  private static final String DELETE =
      """
      DELETE FROM grants WHERE tenant_id = $1 AND grant_id = $2 RETURNING grant_id""";
  private static final String ADD_MEMBER =
      """
      INSERT INTO role_members (tenant_id, role, member) VALUES ($1, $2, $3)
      ON CONFLICT DO NOTHING RETURNING role""";
  private static final String REMOVE_MEMBER =
      """
      DELETE FROM role_members WHERE tenant_id = $1 AND role = $2 AND member = $3 RETURNING role""";
  private static final String MEMBERS =
      """
      SELECT role, member FROM role_members WHERE tenant_id = $1 ORDER BY role, member""";
  private static final String FORGET_KEY =
      """
      WITH gone AS (DELETE FROM grants WHERE tenant_id = $1 AND grantee = $2)
      DELETE FROM role_members WHERE tenant_id = $1 AND member = $2""";

  /** A grant as the admin API shows it. */
  public record Listed(String grantId, String grantee, Access.Grant grant) {}

  /** A role's members, by role. */
  public record Roles(Map<String, List<String>> members) {}

  private static final SecureRandom RANDOM = new SecureRandom();

  private final Pool pool;

  public Grants(Pool pool) {
    this.pool = pool;
  }

  /**
   * The grants of {@code grantees} in tenant {@code tenantId}, their own and those of every role
   * they are members of.
   */
  public static Future<List<Access.Grant>> of(SqlClient db, long tenantId, List<String> grantees) {
    return db.preparedQuery(OF)
        .execute(Tuple.tuple().addLong(tenantId).addArrayOfString(grantees.toArray(String[]::new)))
        .map(
            rows -> {
              List<Access.Grant> grants = new ArrayList<>();
              for (Row row : rows) {
                grants.add(
                    new Access.Grant(
                        Right.of(row.getString("privilege")),
                        List.of(row.getArrayOfStrings("path")),
                        row.getBoolean("on_table")));
              }
              return grants;
            });
  }

  /** Grants {@code grant} to {@code grantee} in {@code tenant}; the answer names the grant. */
  public Future<Listed> grant(Changer by, String tenant, String grantee, Access.Grant grant) {
    checkGrantee(grantee, true);
    String grantId = newGrantId();
    return AdminChanges.changing(
        pool,
        by,
        tenant,
        GatewayOperation.CREATE_GRANT.id(),
        grantId,
        conn ->
            tenantId(conn, tenant)
                .compose(id -> insert(conn, id, grantId, grantee, grant))
                .map(new Listed(grantId, grantee, grant)));
  }

  /**
   * Inserts {@code grant} for {@code grantee} on {@code conn}, in a change's transaction (a key
   * issued with grants makes them so).
   */
  static Future<Void> insert(
      SqlConnection conn, long tenantId, String grantId, String grantee, Access.Grant grant) {
    return conn.preparedQuery(INSERT)
        .execute(
            Tuple.of(
                tenantId,
                grantId,
                grantee,
                grant.right().label(),
                (Object) grant.path().toArray(String[]::new),
                grant.table()))
        .mapEmpty();
  }

  /** Makes {@code member} a member of {@code role} on {@code conn}, in a change's transaction. */
  static Future<Void> join(SqlConnection conn, long tenantId, String role, String member) {
    return conn.preparedQuery(ADD_MEMBER).execute(Tuple.of(tenantId, role, member)).mapEmpty();
  }

  /** A new grant id for {@link #insert}. */
  static String newGrantId() {
    byte[] id = new byte[8];
    RANDOM.nextBytes(id);
    return "g_" + HexFormat.of().formatHex(id);
  }

  /** Removes the grants and memberships of {@code grantee} (a revoked key's) on {@code conn}. */
  static Future<Void> forget(SqlConnection conn, long tenantId, String grantee) {
    return conn.preparedQuery(FORGET_KEY).execute(Tuple.of(tenantId, grantee)).mapEmpty();
  }

  /** The grants of {@code tenant}, of one grantee when {@code grantee} is not null. */
  public Future<List<Listed>> list(String tenant, String grantee) {
    return tenantId(pool, tenant)
        .compose(id -> pool.preparedQuery(LIST).execute(Tuple.of(id, grantee)))
        .map(
            rows -> {
              List<Listed> listed = new ArrayList<>();
              for (Row row : rows) {
                listed.add(
                    new Listed(
                        row.getString("grant_id"),
                        row.getString("grantee"),
                        new Access.Grant(
                            Right.of(row.getString("privilege")),
                            List.of(row.getArrayOfStrings("path")),
                            row.getBoolean("on_table"))));
              }
              return listed;
            });
  }

  /** Revokes a grant; false when there was none. */
  public Future<Boolean> revoke(Changer by, String tenant, String grantId) {
    return AdminChanges.changing(
        pool,
        by,
        tenant,
        GatewayOperation.DELETE_GRANT.id(),
        grantId,
        conn ->
            tenantId(conn, tenant)
                .compose(id -> conn.preparedQuery(DELETE).execute(Tuple.of(id, grantId)))
                .map(rows -> rows.iterator().hasNext()));
  }

  /** Makes {@code member} a member of {@code role}. */
  public Future<Void> addMember(Changer by, String tenant, String role, String member) {
    checkRole(role);
    checkGrantee(member, false);
    return AdminChanges.changing(
        pool,
        by,
        tenant,
        GatewayOperation.ADD_ROLE_MEMBER.id(),
        role + " " + member,
        conn -> tenantId(conn, tenant).compose(id -> join(conn, id, role, member)));
  }

  /** Takes {@code member} out of {@code role}; false when it was not a member. */
  public Future<Boolean> removeMember(Changer by, String tenant, String role, String member) {
    return AdminChanges.changing(
        pool,
        by,
        tenant,
        GatewayOperation.REMOVE_ROLE_MEMBER.id(),
        role + " " + member,
        conn ->
            tenantId(conn, tenant)
                .compose(
                    id -> conn.preparedQuery(REMOVE_MEMBER).execute(Tuple.of(id, role, member)))
                .map(rows -> rows.iterator().hasNext()));
  }

  /** Every role of {@code tenant} that has members, with its members. */
  public Future<Roles> roles(String tenant) {
    return tenantId(pool, tenant)
        .compose(id -> pool.preparedQuery(MEMBERS).execute(Tuple.of(id)))
        .map(
            rows -> {
              Map<String, List<String>> members = new TreeMap<>();
              for (Row row : rows) {
                members
                    .computeIfAbsent(row.getString("role"), unused -> new ArrayList<>())
                    .add(row.getString("member"));
              }
              return new Roles(members);
            });
  }

  /**
   * 400 unless {@code grantee} is {@code kind:name} of a known kind with a name (a role's a valid
   * role name); a role's member may not be a role.
   */
  public static void checkGrantee(String grantee, boolean roleAllowed) {
    int colon = grantee == null ? -1 : grantee.indexOf(':');
    String kind = colon < 0 ? "" : grantee.substring(0, colon);
    String name = colon < 0 ? "" : grantee.substring(colon + 1);
    boolean known =
        switch (kind) {
          case "key", "claim", "cert" -> true;
          case "role" -> roleAllowed;
          default -> false;
        };
    if (!known || name.isEmpty() || name.length() > MAX_NAME) {
      throw ApiException.invalidInput(
          (roleAllowed ? "a grantee" : "a role's member")
              + " is 'key:<key id>', "
              + (roleAllowed ? "'role:<name>', " : "")
              + "'claim:<value>' or 'cert:<identity>', got '"
              + grantee
              + "'");
    }
    if (kind.equals("role")) {
      checkRole(name);
    }
  }

  private static void checkRole(String role) {
    if (role == null || !ROLE.matcher(role).matches()) {
      throw ApiException.invalidInput(
          "a role name is 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or"
              + " digit");
    }
  }

  /** The id of {@code tenant}, or 404 code 1. */
  static Future<Long> tenantId(SqlClient db, String tenant) {
    return db.preparedQuery(TenantDirectory.TENANT_ID)
        .execute(Tuple.of(tenant))
        .compose(
            found ->
                found.iterator().hasNext()
                    ? Future.succeededFuture(found.iterator().next().getLong(0))
                    : Future.failedFuture(Credentials.noTenant(tenant)));
  }
}
