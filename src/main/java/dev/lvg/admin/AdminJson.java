package dev.lvg.admin;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.audit.AuditTrail;
import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import dev.lvg.http.Json;
import dev.lvg.http.ObjectId;
import dev.lvg.operation.Right;
import dev.lvg.tenancy.Access;
import dev.lvg.tenancy.Credentials;
import dev.lvg.tenancy.Grants;
import dev.lvg.tenancy.KeyRights;
import dev.lvg.tenancy.Tenants;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** What the admin API and the admin commands both answer, and the scopes both accept. */
final class AdminJson {
  private AdminJson() {}

  /**
   * What a key to be issued may do: the body's {@code scopes} (read, write; both when the body
   * names neither them nor {@code grants} nor {@code roles}), {@code grants} and {@code roles}.
   */
  static KeyRights keyRights(Body body) {
    List<String> scopes = body.optionalStringList("scopes");
    List<Body> grants = body.has("grants") ? body.requiredObjectList("grants", 0, 1000) : List.of();
    List<String> roles = body.optionalStringList("roles");
    boolean scoped = !grants.isEmpty() || (roles != null && !roles.isEmpty());
    return new KeyRights(
        scopes == null && !scoped
            ? rights(List.of("read", "write"))
            : scoped && (scopes == null || scopes.isEmpty()) ? Set.of() : rights(scopes),
        grants.stream().map(AdminJson::grant).toList(),
        roles == null ? List.of() : roles);
  }

  /**
   * A grant as the admin API and the admin commands take it: {@code right} (read, write, manage) on
   * the {@code namespace} or the {@code table} named by an array of names, or, with neither, on the
   * whole tenant.
   */
  static Access.Grant grant(Body body) {
    String label = body.requiredNonEmptyString("right");
    Right right = Right.of(label);
    if (right == null || right == Right.ADMIN) {
      throw ApiException.invalidInput(
          "'right' is 'read', 'write' or 'manage', got '" + label + "'");
    }
    List<String> namespace = body.optionalStringList("namespace");
    List<String> table = body.optionalStringList("table");
    if (namespace != null && table != null) {
      throw ApiException.invalidInput("a grant names a 'namespace' or a 'table', not both");
    }
    if (table != null) {
      if (table.isEmpty()) {
        throw ApiException.invalidInput(
            "'table' names a table: its namespace's names, then its own");
      }
      return new Access.Grant(right, ObjectId.names(table), true);
    }
    return new Access.Grant(
        right, namespace == null ? List.of() : ObjectId.names(namespace), false);
  }

  static ObjectNode grant(Grants.Listed listed) {
    return grant(
        Json.object().put("grant_id", listed.grantId()).put("grantee", listed.grantee()),
        listed.grant());
  }

  /** {@code grant}'s right and its namespace or table, added to {@code node}. */
  static ObjectNode grant(ObjectNode node, Access.Grant grant) {
    node.put("right", grant.right().label());
    grant.path().forEach(node.putArray(grant.table() ? "table" : "namespace")::add);
    return node;
  }

  static ObjectNode grants(List<Grants.Listed> listed) {
    ObjectNode answer = Json.object();
    ArrayNode grants = answer.putArray("grants");
    listed.forEach(one -> grants.add(grant(one)));
    return answer;
  }

  /** The rights named by {@code scopes}: {@code read} and {@code write}, at least one. */
  static Set<Right> rights(Collection<String> scopes) {
    Set<Right> rights = EnumSet.noneOf(Right.class);
    for (String scope : scopes) {
      Right right = Right.of(scope.trim());
      if (right == null || right == Right.ADMIN) {
        throw ApiException.invalidInput(
            "'scopes' may hold 'read' and 'write', got '" + scope + "'");
      }
      rights.add(right);
    }
    if (rights.isEmpty()) {
      throw ApiException.invalidInput("'scopes' must grant at least one of 'read', 'write'");
    }
    return rights;
  }

  static ObjectNode tenant(String name, boolean disabled) {
    return Json.object().put("name", name).put("disabled", disabled);
  }

  static ObjectNode tenants(Tenants.Page page) {
    ObjectNode result = Json.object();
    ArrayNode list = result.putArray("tenants");
    page.tenants()
        .forEach(
            tenant ->
                list.add(
                    tenant(tenant.name(), tenant.disabled())
                        .put("created_at", tenant.createdAt())));
    result.put("next", page.next());
    return result;
  }

  /** A page of the audit trail as the admin API and the command line show it. */
  static ObjectNode audit(AuditTrail.Page page) {
    ObjectNode result = Json.object();
    ArrayNode events = result.putArray("events");
    page.events().forEach(events::add);
    return result.put("next", page.next());
  }

  /** Whether a deletion's {@code behavior} (Restrict, the default, or Cascade) cascades. */
  static boolean cascade(String behavior) {
    if (behavior == null || behavior.equalsIgnoreCase("restrict")) {
      return false;
    }
    if (behavior.equalsIgnoreCase("cascade")) {
      return true;
    }
    throw ApiException.invalidInput("'behavior' is Restrict or Cascade, got '" + behavior + "'");
  }

  static ObjectNode deleted(Tenants.Deletion deletion) {
    ObjectNode result = Json.object().put("name", deletion.name()).put("deleted", true);
    ObjectNode removed = result.putObject("removed");
    deletion.removed().forEach(removed::put);
    return result;
  }

  /** A key just issued, with its secret: the only answer that shows it. */
  static ObjectNode issued(Credentials.IssuedKey issued) {
    return key(issued.info()).put("api_key", issued.apiKey());
  }

  static ObjectNode keys(List<Credentials.KeyInfo> keys) {
    ObjectNode result = Json.object();
    ArrayNode list = result.putArray("keys");
    keys.forEach(key -> list.add(key(key)));
    return result;
  }

  static ObjectNode key(Credentials.KeyInfo key) {
    ObjectNode node = Json.object().put("key_id", key.keyId());
    ArrayNode scopes = node.putArray("scopes");
    key.scopes().forEach(scopes::add);
    node.put("created_at", key.createdAt());
    putNullable(node, "last_used_at", key.lastUsedAt());
    putNullable(node, "expires_at", key.expiresAt());
    node.put("description", key.description());
    return node;
  }

  private static void putNullable(ObjectNode node, String name, Long value) {
    if (value == null) {
      node.putNull(name);
    } else {
      node.put(name, value);
    }
  }
}
