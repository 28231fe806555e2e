package dev.lvg.auth;

import dev.lvg.http.SpecOperations;
import dev.lvg.tenancy.Right;

/**
 * One operation the gateway serves, declared once: the spec's operation (its {@code operationId},
 * method and path) and the right a credential needs for it. The route, its name in the metrics, the
 * right checked, the admission class (reads and writes are admitted apart), the list of served
 * operations and the served OpenAPI document all come from the declarations.
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
