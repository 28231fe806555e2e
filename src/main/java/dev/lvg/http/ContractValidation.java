package dev.lvg.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import io.vertx.json.schema.OutputUnit;
import io.vertx.openapi.contract.OpenAPIContract;
import io.vertx.openapi.contract.Operation;
import io.vertx.openapi.validation.RequestUtils;
import io.vertx.openapi.validation.RequestValidator;
import io.vertx.openapi.validation.SchemaValidationException;
import io.vertx.openapi.validation.ValidatorException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Requests checked against the contract their operation comes from (vertx-openapi): parameters and
 * JSON body against the operation's schemas, after the body is read and the caller authenticated. A
 * request that does not fit is refused with 400 code 13 and a message naming the field, before the
 * operation runs.
 */
public final class ContractValidation {
  private static final Buffer EMPTY_OBJECT = Buffer.buffer("{}");

  private final OpenAPIContract contract;
  private final RequestValidator validator;

  private ContractValidation(OpenAPIContract contract, RequestValidator validator) {
    this.contract = contract;
    this.validator = validator;
  }

  /**
   * Loads the OpenAPI document {@code yaml} (which must itself validate against OpenAPI 3.1) on a
   * worker thread; the answer is shared by every event loop.
   */
  public static Future<ContractValidation> of(Vertx vertx, String yaml) {
    return vertx
        .executeBlocking(() -> json(yaml), false)
        .compose(document -> OpenAPIContract.from(vertx, document))
        .map(
            contract -> new ContractValidation(contract, RequestValidator.create(vertx, contract)));
  }

  /**
   * The operations of the Lance Namespace spec that take JSON (or nothing), cut from the upstream
   * contract as the served document is ({@link OpenApi#yaml}); the others (Arrow IPC bodies) are
   * data-plane operations the gateway does not serve.
   */
  public static Future<ContractValidation> spec(Vertx vertx, String version) {
    List<String> all = SpecOperations.all().stream().map(SpecOperations.Operation::id).toList();
    return vertx
        .executeBlocking(() -> requestsOnly(json(OpenApi.yaml(all, version))), false)
        .compose(document -> OpenAPIContract.from(vertx, document))
        .map(
            contract -> new ContractValidation(contract, RequestValidator.create(vertx, contract)));
  }

  /**
   * {@code document} made for validating requests: without the operations whose request body is not
   * JSON (vertx-openapi validates JSON), and with every answer left undescribed (the served
   * document describes them).
   */
  static JsonObject requestsOnly(JsonObject document) {
    JsonObject paths = document.getJsonObject("paths");
    for (String path : List.copyOf(paths.fieldNames())) {
      JsonObject item = paths.getJsonObject(path);
      for (String method : List.copyOf(item.fieldNames())) {
        if (!(item.getValue(method) instanceof JsonObject operation)) {
          continue;
        }
        if (takesJson(operation)) {
          operation.put(
              "responses",
              new JsonObject()
                  .put("default", new JsonObject().put("description", "not validated")));
        } else {
          item.remove(method);
        }
      }
      if (item.stream().noneMatch(entry -> entry.getValue() instanceof JsonObject)) {
        paths.remove(path);
      }
    }
    return document;
  }

  private static boolean takesJson(JsonObject operation) {
    JsonObject content =
        operation
            .getJsonObject("requestBody", new JsonObject())
            .getJsonObject("content", new JsonObject());
    return content.fieldNames().stream().allMatch(type -> type.startsWith("application/json"));
  }

  /** The gateway's own admin API ({@link AdminContract}). */
  public static Future<ContractValidation> admin(Vertx vertx) {
    return of(vertx, AdminContract.text());
  }

  /** The document as the JSON object vertx-openapi takes. */
  static JsonObject json(String yaml) throws IOException {
    Map<?, ?> tree = new YAMLMapper().readValue(yaml, Map.class);
    return new JsonObject(new ObjectMapper().writeValueAsString(tree));
  }

  /** The handler that lets a request for {@code operationId} on only if it fits the contract. */
  public Handler<RoutingContext> of(String operationId) {
    Operation operation = contract.operation(operationId);
    if (operation == null) {
      throw new IllegalArgumentException("the contract has no operation " + operationId);
    }
    return ctx ->
        Futures.attempt(
                () ->
                    RequestUtils.extract(
                        ctx.request(), operation, () -> Future.succeededFuture(body(ctx))))
            .compose(request -> validator.validate(request, operationId))
            .onComplete(
                checked -> {
                  if (checked.succeeded()) {
                    ctx.next();
                  } else {
                    ctx.fail(refusal(checked.cause()));
                  }
                });
  }

  /**
   * The body as the gateway reads it: none is an empty object, and a property set to null is a
   * property left out (so only a body that holds a null is decoded here, and only to drop them).
   */
  static Buffer body(RoutingContext ctx) {
    Buffer body = ctx.body().buffer();
    if (body == null || body.length() == 0) {
      return EMPTY_OBJECT;
    }
    if (!body.toString(StandardCharsets.UTF_8).contains("null")) {
      return body;
    }
    Object decoded;
    try {
      decoded = Json.decodeValue(body);
    } catch (DecodeException notJson) {
      return body;
    }
    if (decoded instanceof JsonObject object) {
      object.getMap().values().removeIf(Objects::isNull);
      return object.toBuffer();
    }
    return body;
  }

  /** 400 code 13 naming what did not fit; anything but a validation failure passes as it is. */
  static Throwable refusal(Throwable failure) {
    if (failure instanceof SchemaValidationException schema && schema.getOutputUnit() != null) {
      OutputUnit unit = innermost(schema.getOutputUnit());
      String message = String.valueOf(schema.getMessage());
      String where;
      if (message.contains("request body")) {
        String field = field(unit.getInstanceLocation());
        where = field.isEmpty() ? "the request body" : "field '" + field + "'";
      } else {
        // "The value of query parameter limit is invalid. Reason: ..."
        where = message.replaceFirst("^The value of ", "").replaceFirst(" is invalid.*$", "");
      }
      return ApiException.invalidInput(where + ": " + unit.getError());
    }
    if (failure instanceof ValidatorException invalid) {
      return ApiException.invalidInput(invalid.getMessage());
    }
    return failure;
  }

  /**
   * The most specific error of a validation's output: a wrong type if there is one (the other
   * errors of that value follow from it), else the error whose schema keyword lies deepest.
   */
  private static OutputUnit innermost(OutputUnit unit) {
    OutputUnit best = unit;
    Deque<OutputUnit> left = new ArrayDeque<>(List.of(unit));
    while (!left.isEmpty()) {
      OutputUnit at = left.pop();
      if (at.getError() != null && rank(at) >= rank(best)) {
        best = at;
      }
      if (at.getErrors() != null) {
        left.addAll(at.getErrors());
      }
    }
    return best;
  }

  private static int rank(OutputUnit unit) {
    String keyword = unit.getKeywordLocation();
    if (keyword == null) {
      return -1;
    }
    return keyword.endsWith("/type") ? Integer.MAX_VALUE : keyword.length();
  }

  /** A JSON pointer into the instance ({@code #/version}, {@code /id/0}) as a field path. */
  static String field(String pointer) {
    if (pointer == null) {
      return "";
    }
    String path = pointer.startsWith("#") ? pointer.substring(1) : pointer;
    if (path.startsWith("/")) {
      path = path.substring(1);
    }
    return path.replace("/", ".").replace("~1", "/").replace("~0", "~");
  }
}
