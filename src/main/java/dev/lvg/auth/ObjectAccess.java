package dev.lvg.auth;

import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.NamespaceId;
import dev.lvg.http.ObjectId;
import dev.lvg.http.TableId;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.operation.Right;
import dev.lvg.tenancy.Access;
import dev.lvg.tenancy.Principal;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;

/**
 * What a credential may do on the object a request names, checked from the operation catalogue: the
 * right an operation needs ({@link GatewayOperation#right()}) on the namespace or table its path
 * names; creating needs {@link Right#MANAGE} on the object to be made. An operation whose path
 * names no object (lists of everything, batches, the change feed) needs its right somewhere in the
 * tenant here, and checks or filters its objects itself.
 *
 * <p>An object the credential may not even see is answered as if it did not exist (404, as the
 * gateway answers for a missing table or namespace), so a credential learns nothing of what lies
 * outside its grants; an object it sees but may not change is 403 code 15.
 */
public final class ObjectAccess {
  private static final String TABLE_PATH = "/v1/table/{id}/";
  private static final String NAMESPACE_PATH = "/v1/namespace/{id}/";

  private ObjectAccess() {}

  /** The check in front of {@code declaration}'s handler, after authentication. */
  public static Handler<RoutingContext> of(Declaration declaration) {
    Right right = declaration.right();
    GatewayOperation entry = declaration.entry();
    String path = declaration.operation().path();
    boolean creates =
        entry == GatewayOperation.CREATE_NAMESPACE
            || entry == GatewayOperation.DECLARE_TABLE
            || entry == GatewayOperation.REGISTER_TABLE;
    if (path.startsWith(TABLE_PATH) || path.startsWith(NAMESPACE_PATH)) {
      boolean table = path.startsWith(TABLE_PATH);
      return ctx -> {
        Access access = access(ctx);
        if (access.onTenant(right)) {
          ctx.next();
          return;
        }
        checked(
            ctx,
            () -> {
              // From the path alone: the commit path reads its body with a parser of its own
              // and never builds a JSON tree of it; every operation checks the body's id itself.
              if (table) {
                check(access, right, ObjectId.table(ctx), creates);
              } else {
                check(access, right, ObjectId.namespace(ctx), creates);
              }
            });
      };
    }
    return ctx -> {
      Access access = access(ctx);
      checked(
          ctx,
          () -> {
            if (!access.mayAnywhere(right)) {
              throw denied(access, right, "anything in this tenant");
            }
          });
    };
  }

  /**
   * Fails unless {@code access} may do what {@code right} allows on {@code table} ({@code creates}:
   * make it): 404 when it may not see it, 403 when it sees it.
   */
  public static void check(Access access, Right right, TableId table, boolean creates) {
    NamespaceId namespace = table.namespace();
    if (access.mayOnTable(right, namespace.names(), table.name())) {
      return;
    }
    grantsSomething(access, right);
    if (!access.sees(namespace.names())) {
      throw ApiException.namespaceNotFound(namespace);
    }
    if (!creates && !access.mayOnTable(Right.READ, namespace.names(), table.name())) {
      throw ApiException.tableNotFound(table);
    }
    throw denied(access, right, "table " + table);
  }

  /** As {@link #check(Access, Right, TableId, boolean)} for a namespace. */
  public static void check(Access access, Right right, NamespaceId namespace, boolean creates) {
    boolean may =
        right == Right.READ
            ? access.sees(namespace.names())
            : access.mayOnNamespace(right, namespace.names());
    if (may) {
      return;
    }
    grantsSomething(access, right);
    NamespaceId seenFirst = creates && !namespace.isRoot() ? namespace.parent() : namespace;
    if (!access.sees(seenFirst.names())) {
      throw ApiException.namespaceNotFound(seenFirst);
    }
    throw denied(access, right, "namespace " + namespace);
  }

  /**
   * 403 for a credential that may do nothing in its tenant (a token none of whose role claim's
   * values is granted anything): it is known, and there is nothing for it to see.
   */
  private static void grantsSomething(Access access, Right right) {
    if (access.grants().isEmpty() && !access.onTenant(Right.READ)) {
      throw denied(access, right, "this tenant");
    }
  }

  /** Goes on with the request when {@code check} passes, else fails it with its refusal. */
  private static void checked(RoutingContext ctx, Runnable check) {
    try {
      check.run();
    } catch (ApiException refused) {
      ctx.fail(refused);
      return;
    }
    ctx.next();
  }

  /** The access of the request's credential. */
  public static Access access(RoutingContext ctx) {
    Principal principal = Authentication.principal(ctx);
    return principal == null ? Access.NONE : principal.access();
  }

  private static ApiException denied(Access access, Right right, String where) {
    return new ApiException(
        ErrorCode.PERMISSION_DENIED,
        "this credential does not grant '"
            + right.label()
            + "' on "
            + where
            + (access.grants().isEmpty() && access.tenantRights().isEmpty()
                ? " (it grants nothing)"
                : ""));
  }
}
