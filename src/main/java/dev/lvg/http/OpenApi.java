package dev.lvg.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/**
 * The OpenAPI 3.0 document of the operations a gateway mounts, made from its own route table: each
 * route with the spec's operationId, its path and query parameters, a JSON body for POST, and the
 * error answers with the error body every operation shares.
 */
public final class OpenApi {
  private static final YAMLMapper YAML = new YAMLMapper();

  private OpenApi() {}

  /** {@code routes}: "METHOD /path/:id/..." as mounted. */
  public static String yaml(Collection<String> routes, String version) {
    ObjectNode document = Json.object().put("openapi", "3.0.3");
    document
        .putObject("info")
        .put("title", "Lance Version Gateway")
        .put("version", version)
        .put(
            "description",
            "The operations of the Lance Namespace REST spec this gateway serves. Authenticate"
                + " with an x-api-key header or a bearer token.");
    Map<String, ObjectNode> paths = new TreeMap<>();
    for (String route : routes) {
      String method = route.substring(0, route.indexOf(' '));
      String path = route.substring(route.indexOf(' ') + 1);
      String specPath = path.replaceAll(":([a-z_]+)", "{$1}");
      String operationId =
          SpecOperations.of(method, path.replaceAll(":[a-z_]+", "x"))
              .map(SpecOperations.Operation::id)
              .orElse(method.toLowerCase() + specPath.replaceAll("[^A-Za-z]", "_"));
      ObjectNode operation =
          paths
              .computeIfAbsent(specPath, p -> Json.object())
              .putObject(method.toLowerCase())
              .put("operationId", operationId);
      ArrayNode parameters = operation.putArray("parameters");
      java.util.regex.Matcher names =
          java.util.regex.Pattern.compile("\\{([a-z_]+)}").matcher(specPath);
      while (names.find()) {
        parameters
            .addObject()
            .put("name", names.group(1))
            .put("in", "path")
            .put("required", true)
            .putObject("schema")
            .put("type", "string");
      }
      if (specPath.contains("{id}")) {
        parameters
            .addObject()
            .put("name", "delimiter")
            .put("in", "query")
            .put("required", false)
            .putObject("schema")
            .put("type", "string")
            .put("default", ObjectId.DEFAULT_DELIMITER);
      }
      if (method.equals("POST")) {
        operation
            .putObject("requestBody")
            .put("required", false)
            .putObject("content")
            .putObject("application/json")
            .putObject("schema")
            .put("type", "object");
      }
      ObjectNode responses = operation.putObject("responses");
      responses.putObject("200").put("description", "success");
      for (String status : new String[] {"400", "401", "403", "404", "406", "409", "503"}) {
        responses.putObject(status).put("$ref", "#/components/responses/Error");
      }
    }
    ObjectNode pathsNode = document.putObject("paths");
    paths.forEach(pathsNode::set);
    ObjectNode components = document.putObject("components");
    ObjectNode error = components.putObject("schemas").putObject("ErrorResponse");
    error.put("type", "object");
    error.putArray("required").add("code").add("error");
    ObjectNode properties = error.putObject("properties");
    properties.putObject("code").put("type", "integer");
    for (String field : new String[] {"error", "type", "title", "detail", "instance"}) {
      properties.putObject(field).put("type", "string");
    }
    properties.putObject("status").put("type", "integer");
    components
        .putObject("responses")
        .putObject("Error")
        .put("description", "an error")
        .putObject("content")
        .putObject("application/json")
        .putObject("schema")
        .put("$ref", "#/components/schemas/ErrorResponse");
    ObjectNode schemes = components.putObject("securitySchemes");
    schemes.putObject("ApiKey").put("type", "apiKey").put("in", "header").put("name", "x-api-key");
    schemes
        .putObject("Bearer")
        .put("type", "http")
        .put("scheme", "bearer")
        .put("bearerFormat", "JWT");
    document
        .putArray("security")
        .add(Json.object().set("ApiKey", Json.MAPPER.createArrayNode()))
        .add(Json.object().set("Bearer", Json.MAPPER.createArrayNode()));
    try {
      return YAML.writeValueAsString(document);
    } catch (JsonProcessingException impossible) {
      throw new IllegalStateException(impossible);
    }
  }
}
