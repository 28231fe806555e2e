package dev.lvg.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The OpenAPI document of the operations a gateway serves, cut from the upstream contract it serves
 * them by ({@value #CONTRACT}, the Lance Namespace REST spec): each served operation as the
 * contract declares it (its parameters, request and response schemas), and every component those
 * reference, so the document stands alone; the security schemes are the two the gateway accepts.
 */
public final class OpenApi {
  static final String CONTRACT = "/openapi/lance-namespace-0.11.1.yaml";
  private static final YAMLMapper YAML = new YAMLMapper();
  private static final Set<String> SCHEMES = Set.of("ApiKeyAuth", "BearerAuth");

  private OpenApi() {}

  /** The upstream contract, as parsed from the jar. */
  static JsonNode contract() {
    try (InputStream in = OpenApi.class.getResourceAsStream(CONTRACT)) {
      return YAML.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The gateway's version in the jar's manifest, or "dev" when run from classes. */
  public static String gatewayVersion() {
    String version = OpenApi.class.getPackage().getImplementationVersion();
    return version == null ? "dev" : version;
  }

  /** The document for the operations {@code served} (spec operationIds). Reads the jar: blocks. */
  public static String yaml(Collection<String> served, String version) {
    JsonNode contract = contract();
    ObjectNode document = Json.object().put("openapi", contract.path("openapi").asText());
    document
        .putObject("info")
        .put("title", "Lance Version Gateway")
        .put("version", version)
        .put(
            "description",
            "The operations of the Lance Namespace REST spec this gateway serves, as the spec"
                + " declares them. Authenticate with an x-api-key header or a bearer token.");
    Map<String, JsonNode> paths = new TreeMap<>();
    contract
        .path("paths")
        .fields()
        .forEachRemaining(
            path -> {
              ObjectNode kept = path.getValue().deepCopy();
              boolean any = false;
              for (Iterator<Map.Entry<String, JsonNode>> it = kept.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> entry = it.next();
                JsonNode id = entry.getValue().get("operationId");
                if (id != null && !served.contains(id.asText())) {
                  it.remove();
                } else if (id != null) {
                  any = true;
                }
              }
              if (any) {
                paths.put(path.getKey(), kept);
              }
            });
    ObjectNode pathsNode = document.putObject("paths");
    paths.forEach(pathsNode::set);
    ObjectNode components = document.putObject("components");
    for (String reference : references(contract, pathsNode)) {
      String[] parts = reference.substring("#/components/".length()).split("/", 2);
      JsonNode component = contract.path("components").path(parts[0]).path(parts[1]);
      ObjectNode kind =
          components.has(parts[0])
              ? (ObjectNode) components.get(parts[0])
              : components.putObject(parts[0]);
      kind.set(parts[1], component);
    }
    ObjectNode schemes = components.putObject("securitySchemes");
    for (String scheme : SCHEMES) {
      schemes.set(scheme, contract.path("components").path("securitySchemes").path(scheme));
    }
    var security = document.putArray("security");
    for (String scheme : SCHEMES) {
      security.addObject().putArray(scheme);
    }
    try {
      return YAML.writeValueAsString(document);
    } catch (JsonProcessingException impossible) {
      throw new IllegalStateException(impossible);
    }
  }

  /** Every component reference reachable from {@code start}, following references through. */
  static Set<String> references(JsonNode contract, JsonNode start) {
    Set<String> found = new TreeSet<>();
    Deque<JsonNode> pending = new ArrayDeque<>();
    pending.push(start);
    while (!pending.isEmpty()) {
      JsonNode node = pending.pop();
      JsonNode ref = node.get("$ref");
      if (ref != null && ref.isTextual() && ref.asText().startsWith("#/components/")) {
        String reference = ref.asText();
        if (found.add(reference)) {
          String[] parts = reference.substring("#/components/".length()).split("/", 2);
          pending.push(contract.path("components").path(parts[0]).path(parts[1]));
        }
      }
      node.elements().forEachRemaining(pending::push);
    }
    return found;
  }
}
