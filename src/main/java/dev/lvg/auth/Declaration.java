package dev.lvg.auth;

import dev.lvg.http.AdminContract;
import dev.lvg.http.SpecOperations;
import dev.lvg.tenancy.Right;

/**
 * One operation the gateway serves, declared once: its operation in a contract (the {@code
 * operationId}, method and path of the Lance Namespace spec, or of the gateway's own admin
 * document) and the right a credential needs for it. The route, its name in the metrics, the right
 * checked, the admission class (reads and writes are admitted apart; admin operations are not
 * limited), the list of served operations and the served OpenAPI documents all come from the
 * declarations.
 */
public record Declaration(SpecOperations.Operation operation, Right right) {
  /** An operation that changes nothing, open to a read key. */
  public static Declaration reads(String operationId) {
    return new Declaration(SpecOperations.byId(operationId), Right.READ);
  }

  /** An operation that changes state, which needs a write key. */
  public static Declaration writes(String operationId) {
    return new Declaration(SpecOperations.byId(operationId), Right.WRITE);
  }

  /**
   * An operation of the gateway's own document that changes nothing (the change feed), open to a
   * read key.
   */
  public static Declaration readsOwn(String operationId) {
    return new Declaration(AdminContract.byId(operationId), Right.READ);
  }

  /** Whether the operation is in the gateway's own document rather than the Lance spec. */
  public boolean own() {
    return AdminContract.all().contains(operation);
  }

  /** An operation of the admin API, for the operator key or a token with the admin scope. */
  public static Declaration administers(String operationId) {
    return new Declaration(AdminContract.byId(operationId), Right.ADMIN);
  }

  public String id() {
    return operation.id();
  }

  public String method() {
    return operation.method();
  }

  /** The path as the router takes it: {@code {id}} becomes {@code :id}. */
  public String routePath() {
    return operation.path().replaceAll("\\{([a-z_]+)\\}", ":$1");
  }
}
