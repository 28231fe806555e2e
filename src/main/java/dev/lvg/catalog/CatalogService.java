package dev.lvg.catalog;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.http.Body;
import dev.lvg.http.Json;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.SqlClient;
import java.util.List;
import java.util.Map;

/**
 * The catalog operations that run alone or inside a batch transaction, with their answers. Routes
 * and batches call these; they take the client to run on (the pool, or a transaction).
 */
public final class CatalogService {
  private final CatalogRepository repository;
  private final BranchRepository branches;
  private final Locations locations;

  public CatalogService(
      CatalogRepository repository, BranchRepository branches, Locations locations) {
    this.repository = repository;
    this.branches = branches;
    this.locations = locations;
  }

  public CatalogRepository repository() {
    return repository;
  }

  public BranchRepository branches() {
    return branches;
  }

  public Locations locations() {
    return locations;
  }

  /** One {@code DeclareTable}, alone or as part of a batch. */
  public Future<ObjectNode> declare(SqlClient db, Tenant tenant, List<String> id, Body body) {
    String location = location(tenant, id, body.optionalString("location"));
    body.optionalBoolean("vend_credentials");
    Map<String, String> properties = body.optionalStringMap("properties");
    return repository.createTable(db, tenant, id, location, properties).map(this::tableAccess);
  }

  /** One {@code DeregisterTable}, alone or as part of a batch. */
  public Future<ObjectNode> deregister(SqlClient db, Tenant tenant, List<String> id) {
    return repository
        .deregisterTable(db, tenant, id)
        .map(
            table -> {
              ObjectNode result = Json.object();
              ArrayNode ids = result.putArray("id");
              id.forEach(ids::add);
              result.put("location", table.location());
              return withProperties(result, table.properties());
            });
  }

  private String location(Tenant tenant, List<String> id, String given) {
    return given == null
        ? locations.defaultTableLocation(
            tenant, CatalogRepository.namespaceOf(id), CatalogRepository.nameOf(id))
        : locations.clientLocation(tenant, given);
  }

  /** What a writer needs to reach the table and to know the gateway commits its versions. */
  ObjectNode tableAccess(TableRecord table) {
    ObjectNode result = Json.object().put("location", table.location());
    ObjectNode options = result.putObject("storage_options");
    locations.storageOptions(table.location()).forEach(options::put);
    result.put("managed_versioning", true);
    return withProperties(result, table.properties());
  }

  static ObjectNode withProperties(ObjectNode target, JsonObject properties) {
    ObjectNode node = target.putObject("properties");
    if (properties != null) {
      for (Map.Entry<String, Object> entry : properties) {
        node.put(entry.getKey(), String.valueOf(entry.getValue()));
      }
    }
    return target;
  }
}
