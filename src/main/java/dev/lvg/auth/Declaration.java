package dev.lvg.auth;

import dev.lvg.http.AdminContract;
import dev.lvg.http.SpecOperations;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.operation.Right;

/**
 * One operation the gateway serves, declared once by its entry in the catalogue ({@link
 * GatewayOperation}), with its operation in the contract it comes from (the {@code operationId},
 * method and path of the Lance Namespace spec, or of the gateway's own document). The route, its
 * name in the metrics, the right checked, the admission class (reads and writes are admitted apart;
 * admin operations are not limited), the list of served operations and the served OpenAPI documents
 * all come from the declarations.
 */
public record Declaration(GatewayOperation entry, SpecOperations.Operation operation) {
  /** The declaration of {@code operation}, which must come from a contract. */
  public static Declaration of(GatewayOperation operation) {
    return new Declaration(
        operation,
        switch (operation.contract()) {
          case SPEC -> SpecOperations.byId(operation.id());
          case OWN -> AdminContract.byId(operation.id());
          case NONE ->
              throw new IllegalArgumentException(operation.id() + " is not served by the gateway");
        });
  }

  /** Whether the operation is in the gateway's own document rather than the Lance spec. */
  public boolean own() {
    return entry.contract() == GatewayOperation.Contract.OWN;
  }

  /** The right a credential needs for it. */
  public Right right() {
    return entry.right();
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
