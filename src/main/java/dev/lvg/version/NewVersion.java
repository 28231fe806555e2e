package dev.lvg.version;

import dev.lvg.audit.Actor;
import dev.lvg.catalog.Branches;
import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import dev.lvg.http.TableId;
import dev.lvg.platform.Exported;
import dev.lvg.tenancy.Tenant;
import java.util.Map;
import java.util.UUID;

/**
 * A validated {@code version/create}: the table it names, the body's fields, the transaction id the
 * version gets if this request creates it, and, once its staging manifest was read (finalize mode),
 * the Lance transaction that manifest names ({@code null} when none) or why it could not be read as
 * a manifest (answered once the path is known to lie in the table).
 */
@Exported
public record NewVersion(
    Actor actor,
    TableId tableId,
    long version,
    String branch,
    String manifestPath,
    Long manifestSize,
    String eTag,
    Map<String, String> metadata,
    String namingScheme,
    UUID transactionId,
    UUID lanceTransaction,
    ApiException unreadableManifest) {

  public static NewVersion from(Actor actor, TableId tableId, Body body) {
    long version = body.requiredNonNegativeLong("version");
    String manifestPath = body.requiredNonEmptyString("manifest_path");
    Long manifestSize = body.optionalNonNegativeLong("manifest_size");
    String eTag = body.optionalString("e_tag");
    Map<String, String> metadata = body.optionalStringMap("metadata");
    body.optionalStringMap("context");
    String namingScheme = body.optionalString("naming_scheme");
    if (namingScheme != null && !namingScheme.equals("V1") && !namingScheme.equals("V2")) {
      throw ApiException.invalidInput(
          "'naming_scheme' must be V1 or V2, got '" + namingScheme + "'");
    }
    return new NewVersion(
        actor,
        tableId,
        version,
        Branches.fromBody(body),
        manifestPath,
        manifestSize,
        eTag,
        metadata,
        namingScheme,
        UUID.randomUUID(),
        null,
        null);
  }

  /** This request with what its staging manifest said of its Lance transaction. */
  NewVersion withStagedManifest(UUID lanceTransaction, ApiException unreadableManifest) {
    return new NewVersion(
        actor,
        tableId,
        version,
        branch,
        manifestPath,
        manifestSize,
        eTag,
        metadata,
        namingScheme,
        transactionId,
        lanceTransaction,
        unreadableManifest);
  }

  public Tenant tenant() {
    return actor.tenant();
  }

  /** The chain a version belongs to: tenant, table and branch. */
  record Chain(long tenant, TableId tableId, String branch) {}

  Chain chain() {
    return new Chain(tenant().id(), tableId, branch);
  }
}
