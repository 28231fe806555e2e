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
import io.vertx.json.schema.SchemaRepository;
import io.vertx.json.schema.Validator;
import io.vertx.json.schema.common.dsl.SchemaType;
import io.vertx.openapi.contract.Location;
import io.vertx.openapi.contract.MediaType;
import io.vertx.openapi.contract.OpenAPIContract;
import io.vertx.openapi.contract.Operation;
import io.vertx.openapi.contract.RequestBody;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;

/**
 * Requests checked against the contract their operation comes from (vertx-openapi): parameters and
 * JSON body against the operation's schemas, after the body is read and the caller authenticated. A
 * request that does not fit is refused with 400 code 13 and a message naming the field, before the
 * operation runs.
 */
public final class ContractValidation {
  private final OpenAPIContract contract;

  private ContractValidation(OpenAPIContract contract) {
    this.contract = contract;
  }

  /**
   * Loads the OpenAPI document {@code yaml} (which must itself validate against OpenAPI 3.1) on a
   * worker thread; the answer is shared by every event loop.
   */
  public static Future<ContractValidation> of(Vertx vertx, String yaml) {
    return load(vertx, () -> json(yaml));
  }

  private static Future<ContractValidation> load(Vertx vertx, Callable<JsonObject> document) {
    return vertx
        .executeBlocking(document, false)
        .compose(contract -> OpenAPIContract.from(vertx, contract))
        .map(ContractValidation::new);
  }

  /**
   * The operations of the Lance Namespace spec that take JSON (or nothing), cut from the upstream
   * contract as the served document is ({@link OpenApi#yaml}); the others (Arrow IPC bodies) are
   * data-plane operations the gateway does not serve.
   */
  public static Future<ContractValidation> spec(Vertx vertx, String version) {
    return load(vertx, () -> specDocument(version));
  }

  /** The document {@link #spec} validates against; made on a worker thread (it parses YAML). */
  public static JsonObject specDocument(String version) throws IOException {
    List<String> all = SpecOperations.all().stream().map(SpecOperations.Operation::id).toList();
    return requestsOnly(json(OpenApi.yaml(all, version)));
  }

  /**
   * {@code document} made for validating requests: without the operations whose request body is not
   * JSON (vertx-openapi validates JSON), with every answer left undescribed (the served document
   * describes them), and with the default {@link Bounds} on every schema that declares none.
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
    Bounds.declare(document);
    return document;
  }

  private static boolean takesJson(JsonObject operation) {
    JsonObject content =
        operation
            .getJsonObject("requestBody", new JsonObject())
            .getJsonObject("content", new JsonObject());
    return content.fieldNames().stream().allMatch(type -> type.startsWith("application/json"));
  }

  /**
   * The gateway's own document ({@link AdminContract}): its admin API and change feed, answers left
   * undescribed (the live tail answers {@code text/event-stream}, which vertx-openapi does not
   * take).
   */
  public static Future<ContractValidation> admin(Vertx vertx) {
    return load(vertx, () -> requestsOnly(json(AdminContract.text())));
  }

  /** The document as the JSON object vertx-openapi takes. */
  static JsonObject json(String yaml) throws IOException {
    Map<?, ?> tree = new YAMLMapper().readValue(yaml, Map.class);
    return new JsonObject(new ObjectMapper().writeValueAsString(tree));
  }

  /**
   * The handler that lets a request for {@code operationId} on only if it fits the contract: its
   * query parameters and JSON body, each against its schema, with validators made here, once (made
   * per request, as vertx-openapi's own {@code RequestValidator} does, a check takes about 0.2 ms a
   * request and cut commits per second by two thirds; see docs/benchmarks.md).
   */
  public Handler<RoutingContext> check(String operationId) {
    Operation operation = contract.operation(operationId);
    if (operation == null) {
      throw new IllegalArgumentException("the contract has no operation " + operationId);
    }
    SchemaRepository schemas = contract.getSchemaRepository();
    List<QueryParameter> query =
        operation.getParameters().stream()
            .filter(parameter -> parameter.getIn() == Location.QUERY)
            .map(
                parameter ->
                    new QueryParameter(
                        parameter.getName(),
                        parameter.isRequired(),
                        parameter.getSchemaType(),
                        schemas.validator(parameter.getSchema())))
            .toList();
    RequestBody requestBody = operation.getRequestBody();
    MediaType json =
        requestBody == null ? null : requestBody.getContent().get(MediaType.APPLICATION_JSON);
    Validator body =
        json == null || json.getSchema() == null ? null : schemas.validator(json.getSchema());
    return ctx -> {
      ApiException misfit = misfit(ctx, query, body);
      if (misfit == null) {
        ctx.next();
      } else {
        ctx.fail(misfit);
      }
    };
  }

  /** A query parameter of an operation, with the validator of its schema. */
  private record QueryParameter(
      String name, boolean required, SchemaType type, Validator validator) {}

  /** What in the request does not fit, as a 400 code 13, or null when it all fits. */
  private static ApiException misfit(
      RoutingContext ctx, List<QueryParameter> query, Validator body) {
    for (QueryParameter parameter : query) {
      String where = "query parameter " + parameter.name();
      String value = ctx.queryParams().get(parameter.name());
      if (value == null) {
        if (parameter.required()) {
          return ApiException.invalidInput(where + " is required");
        }
        continue;
      }
      Object typed =
          parameter.type() == SchemaType.ARRAY
              ? new io.vertx.core.json.JsonArray(ctx.queryParam(parameter.name()))
              : typed(value, parameter.type());
      if (typed == null) {
        return ApiException.invalidInput(
            where
                + ": '"
                + value
                + "' is not of type "
                + parameter.type().name().toLowerCase(Locale.ROOT));
      }
      OutputUnit result = parameter.validator().validate(typed);
      if (!Boolean.TRUE.equals(result.getValid())) {
        return ApiException.invalidInput(where + ": " + innermost(result).getError());
      }
    }
    if (body == null) {
      return null;
    }
    Object decoded;
    try {
      decoded = body(ctx.body().buffer());
    } catch (DecodeException notJson) {
      return ApiException.invalidInput("the request body is not JSON");
    }
    OutputUnit result = body.validate(decoded);
    if (Boolean.TRUE.equals(result.getValid())) {
      return null;
    }
    OutputUnit unit = innermost(result);
    String field = field(unit.getInstanceLocation());
    return ApiException.invalidInput(
        (field.isEmpty() ? "the request body" : "field '" + field + "'") + ": " + unit.getError());
  }

  /** A query value as its schema's type, or null when it is not one. */
  private static Object typed(String value, SchemaType type) {
    if (type == null) {
      return value;
    }
    try {
      return switch (type) {
        case INTEGER -> Long.parseLong(value);
        case NUMBER -> Double.parseDouble(value);
        case BOOLEAN ->
            value.equals("true") ? Boolean.TRUE : value.equals("false") ? Boolean.FALSE : null;
        default -> value;
      };
    } catch (NumberFormatException notANumber) {
      return null;
    }
  }

  /**
   * The body as the gateway reads it: none is an empty object, and a property set to null is a
   * property left out.
   */
  static Object body(Buffer body) {
    if (body == null || body.length() == 0) {
      return new JsonObject();
    }
    Object decoded = Json.decodeValue(body);
    if (decoded instanceof JsonObject object) {
      object.getMap().values().removeIf(Objects::isNull);
    }
    return decoded;
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
