package dev.lvg.admin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.audit.AuditTrail;
import dev.lvg.config.GatewayConfig;
import dev.lvg.db.Database;
import dev.lvg.db.EmbeddedDatabase;
import dev.lvg.db.Migrations;
import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import dev.lvg.http.Json;
import dev.lvg.http.ObjectId;
import dev.lvg.tenancy.Access;
import dev.lvg.tenancy.Credentials;
import dev.lvg.tenancy.Grants;
import dev.lvg.tenancy.KeyRights;
import dev.lvg.tenancy.Tenants;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The admin API's operations from the command line, against the configured database (the same
 * settings as the gateway; an embedded database only while no gateway uses its data directory):
 *
 * <pre>
 *   tenants create NAME | tenants disable NAME | tenants enable NAME
 *   tenants list [--after NAME] [--limit N]
 *   tenants delete NAME [--behavior Restrict|Cascade]
 *   keys create --tenant T [--scopes read,write] [--expires-at MILLIS] [--description TEXT]
 *   keys list --tenant T
 *   keys revoke --tenant T --key-id K
 *   grants create --tenant T --grantee G --right R [--namespace ID | --table ID]
 *   grants list --tenant T [--grantee G]
 *   grants delete --tenant T --grant-id ID
 *   roles add-member|remove-member --tenant T --role R --member M
 *   audit list --tenant T [--after CURSOR] [--limit N]
 * </pre>
 *
 * Prints the answer as JSON (a new key's secret only here); exit status 0, 1 on a refusal, 2 on a
 * usage error.
 */
public final class AdminCommand {
  public static final String USAGE =
      """
      usage: java -jar lance-version-gateway.jar tenants create|disable|enable NAME
             java -jar lance-version-gateway.jar tenants list [--after NAME] [--limit N]
             java -jar lance-version-gateway.jar tenants delete NAME [--behavior Restrict|Cascade]
             java -jar lance-version-gateway.jar keys create --tenant T [--scopes read,write]
                 [--roles R1,R2] [--right read|write|manage [--namespace ID | --table ID]]
                 [--expires-at EPOCH_MILLIS] [--description TEXT]
             java -jar lance-version-gateway.jar keys list --tenant T
             java -jar lance-version-gateway.jar keys revoke --tenant T --key-id K
             java -jar lance-version-gateway.jar grants create --tenant T --grantee G
                 --right read|write|manage [--namespace ID | --table ID]
             java -jar lance-version-gateway.jar grants list --tenant T [--grantee G]
             java -jar lance-version-gateway.jar grants delete --tenant T --grant-id ID
             java -jar lance-version-gateway.jar roles add-member|remove-member --tenant T
                 --role R --member M
             java -jar lance-version-gateway.jar audit list --tenant T [--after CURSOR] [--limit N]""";

  private AdminCommand() {}

  /** True when {@code args} name an admin command rather than starting the gateway. */
  public static boolean isCommand(String[] args) {
    return args.length > 0
        && List.of("tenants", "keys", "grants", "roles", "audit").contains(args[0]);
  }

  /** Runs the command; answers the exit status. */
  public static int run(String[] args, GatewayConfig config, PrintStream out, PrintStream err) {
    if (args.length < 2) {
      err.println(USAGE);
      return 2;
    }
    Map<String, String> options = new HashMap<>();
    String name = null;
    for (int i = 2; i < args.length; i++) {
      if (args[i].startsWith("--") && i + 1 < args.length) {
        options.put(args[i].substring(2), args[++i]);
      } else if (name == null && !args[i].startsWith("--")) {
        name = args[i];
      } else {
        err.println(USAGE);
        return 2;
      }
    }
    EmbeddedDatabase embedded;
    try {
      embedded = config.embeddedDatabase() ? EmbeddedDatabase.start(config.dataDir()) : null;
    } catch (IllegalStateException e) {
      err.println("lance-version-gateway: " + e.getMessage());
      return 1;
    }
    String url = embedded != null ? embedded.url() : config.dbUrl();
    Vertx vertx = Vertx.vertx();
    try {
      Pool pool = Database.pool(vertx, url, "lvg-admin", 1, 16, 1);
      String subject = name;
      Future<ObjectNode> answer =
          Migrations.apply(pool, Migrations.load())
              .compose(applied -> command(args[0], args[1], subject, options, pool));
      ObjectNode result =
          answer.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
      out.println(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(result));
      return 0;
    } catch (Exception e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      if (cause instanceof UsageException) {
        err.println(cause.getMessage());
        err.println(USAGE);
        return 2;
      }
      err.println(
          "lance-version-gateway: "
              + (cause instanceof ApiException api ? api.getMessage() : cause.toString()));
      return 1;
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().join();
      if (embedded != null) {
        embedded.close();
      }
    }
  }

  private static final class UsageException extends RuntimeException {
    UsageException(String message) {
      super(message);
    }
  }

  private static String required(String value, String what) {
    if (value == null || value.isBlank()) {
      throw new UsageException(what + " is required");
    }
    return value;
  }

  private static int number(Map<String, String> options, String option, int otherwise) {
    try {
      return Integer.parseInt(options.getOrDefault(option, "" + otherwise));
    } catch (NumberFormatException e) {
      throw new UsageException("--" + option + " takes a number");
    }
  }

  /** A grant's fields from {@code --right} and {@code --namespace} or {@code --table} ids. */
  private static ObjectNode grantRequest(Map<String, String> options) {
    ObjectNode grant = Json.object().put("right", options.get("right"));
    for (String kind : List.of("namespace", "table")) {
      if (options.containsKey(kind)) {
        ObjectId.parse(options.get(kind), ObjectId.DEFAULT_DELIMITER)
            .forEach(grant.putArray(kind)::add);
      }
    }
    return grant;
  }

  /** A key's scopes, roles and one grant (when {@code --right} is given) from the options. */
  private static ObjectNode keyRequest(Map<String, String> options) {
    ObjectNode request = Json.object();
    if (options.containsKey("scopes")) {
      List.of(options.get("scopes").split(",")).stream()
          .filter(scope -> !scope.isBlank())
          .forEach(request.putArray("scopes")::add);
    }
    if (options.containsKey("roles")) {
      List.of(options.get("roles").split(",")).forEach(request.putArray("roles")::add);
    }
    if (options.containsKey("right")) {
      request.putArray("grants").add(grantRequest(options));
    }
    return request;
  }

  private static Future<ObjectNode> command(
      String group, String action, String name, Map<String, String> options, Pool pool) {
    Credentials credentials = new Credentials(pool);
    Credentials.Changer by =
        new Credentials.Changer("cli:" + System.getProperty("user.name"), null);
    switch (group + " " + action) {
      case "tenants create":
        return credentials
            .createTenant(by, required(name, "the tenant's name"))
            .map(tenant -> AdminJson.tenant(tenant.name(), false));
      case "tenants disable":
      case "tenants enable":
        boolean disabled = action.equals("disable");
        String tenant = required(name, "the tenant's name");
        return credentials
            .setDisabled(by, tenant, disabled)
            .map(done -> AdminJson.tenant(tenant, disabled));
      case "tenants list":
        return new Tenants(pool)
            .page(options.get("after"), number(options, "limit", Tenants.DEFAULT_LIMIT))
            .map(AdminJson::tenants);
      case "tenants delete":
        boolean cascade;
        try {
          cascade = AdminJson.cascade(options.get("behavior"));
        } catch (ApiException invalid) {
          throw new UsageException("--behavior: " + invalid.getMessage());
        }
        return new Tenants(pool)
            .delete(required(name, "the tenant's name"), cascade)
            .map(AdminJson::deleted);
      case "keys create":
        KeyRights rights;
        try {
          rights = AdminJson.keyRights(Body.of(keyRequest(options)));
        } catch (ApiException invalid) {
          throw new UsageException(invalid.getMessage());
        }
        Long expires = null;
        if (options.containsKey("expires-at")) {
          try {
            expires = Long.parseLong(options.get("expires-at"));
          } catch (NumberFormatException e) {
            throw new UsageException("--expires-at takes epoch milliseconds");
          }
        }
        return credentials
            .issueKey(
                by,
                required(options.get("tenant"), "--tenant"),
                rights,
                expires,
                options.get("description"))
            .map(AdminJson::issued);
      case "keys list":
        return credentials.keys(required(options.get("tenant"), "--tenant")).map(AdminJson::keys);
      case "keys revoke":
        String keyId = required(options.get("key-id"), "--key-id");
        return credentials
            .revokeKey(by, required(options.get("tenant"), "--tenant"), keyId)
            .map(revoked -> Json.object().put("key_id", keyId).put("revoked", revoked));
      case "grants create":
        Access.Grant grant;
        try {
          grant = AdminJson.grant(Body.of(grantRequest(options)));
        } catch (ApiException invalid) {
          throw new UsageException(invalid.getMessage());
        }
        return new Grants(pool)
            .grant(
                by,
                required(options.get("tenant"), "--tenant"),
                required(options.get("grantee"), "--grantee"),
                grant)
            .map(AdminJson::grant);
      case "grants list":
        return new Grants(pool)
            .list(required(options.get("tenant"), "--tenant"), options.get("grantee"))
            .map(AdminJson::grants);
      case "grants delete":
        String grantId = required(options.get("grant-id"), "--grant-id");
        return new Grants(pool)
            .revoke(by, required(options.get("tenant"), "--tenant"), grantId)
            .map(revoked -> Json.object().put("grant_id", grantId).put("revoked", revoked));
      case "roles add-member":
      case "roles remove-member":
        String role = required(options.get("role"), "--role");
        String member = required(options.get("member"), "--member");
        String inTenant = required(options.get("tenant"), "--tenant");
        return (action.equals("add-member")
                ? new Grants(pool).addMember(by, inTenant, role, member).map(true)
                : new Grants(pool).removeMember(by, inTenant, role, member))
            .map(done -> Json.object().put("role", role).put("member", member).put("done", done));
      case "audit list":
        return AuditTrail.page(
                pool,
                required(options.get("tenant"), "--tenant"),
                options.get("after"),
                number(options, "limit", AuditTrail.DEFAULT_LIMIT))
            .map(AdminJson::audit);
      default:
        throw new UsageException("unknown command: " + group + " " + action);
    }
  }
}
