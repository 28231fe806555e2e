package dev.lvg.catalog;

import dev.lvg.http.TableId;
import dev.lvg.storage.CredentialVendor;
import dev.lvg.storage.S3Settings;
import dev.lvg.storage.StorageRoot;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Where tables live: {@code <storage root>/<tenant>/<namespace parts>/<table>.lance}, and what a
 * writer needs to reach them.
 */
public final class Locations {
  public static final String TABLE_SUFFIX = ".lance";

  /**
   * What a writer is given to reach a table: {@code storage_options}, and until when vended
   * credentials among them hold ({@code null}: nothing was vended).
   */
  public record StorageAccess(Map<String, String> options, Long vendedUntilMillis) {}

  private static final Future<StorageAccess> NOTHING =
      Future.succeededFuture(new StorageAccess(Map.of(), null));

  private final StorageRoot root;
  private final Map<String, String> storageOptions;
  private final CredentialVendor vendor;

  /**
   * {@code s3} describes how writers reach an {@code s3://} root, unused for other roots; {@code
   * vendor} vends their credentials, or is {@code null} when none are vended.
   */
  public Locations(StorageRoot root, S3Settings s3, CredentialVendor vendor) {
    this.root = root;
    this.storageOptions = root.isLocal() ? Map.of() : s3.writerOptions();
    this.vendor = vendor;
  }

  /**
   * What a writer of {@code tenant} needs for a table at {@code location}, for reading or also for
   * writing: nothing on the local file system (a writer there shares the gateway's disk) or for a
   * location outside the root; the root's settings, plus credentials scoped to the table when they
   * are vended.
   */
  public Future<StorageAccess> storageAccess(Tenant tenant, String location, boolean write) {
    if (!root.contains(location)) {
      return NOTHING;
    }
    if (vendor == null) {
      return Future.succeededFuture(new StorageAccess(storageOptions, null));
    }
    return vendor
        .vend(tenant.name(), root.keyOf(location), write)
        .map(
            vended -> {
              Map<String, String> options = new HashMap<>(storageOptions);
              options.putAll(vended.options());
              return new StorageAccess(options, vended.expiresAtMillis());
            });
  }

  public String defaultTableLocation(Tenant tenant, TableId table) {
    StringBuilder location = new StringBuilder(root.tenantPrefix(tenant.name()));
    for (String part : table.namespace().names()) {
      location.append('/').append(part);
    }
    return location.append('/').append(table.name()).append(TABLE_SUFFIX).toString();
  }

  /** {@code <...>/<table>-<8 hex digits>.lance} for {@code <...>/<table>.lance}. */
  static String withUniqueSuffix(String location) {
    String base =
        location.endsWith(TABLE_SUFFIX)
            ? location.substring(0, location.length() - TABLE_SUFFIX.length())
            : location;
    return base + "-" + UUID.randomUUID().toString().substring(0, 8) + TABLE_SUFFIX;
  }

  /**
   * A location a client chose, in the form the gateway stores: it must lie inside the tenant's own
   * prefix. A relative path (no scheme, no leading {@code /}) is taken relative to that prefix.
   */
  public String clientLocation(Tenant tenant, String given) {
    String prefix = root.tenantPrefix(tenant.name());
    boolean relative = !given.contains("://") && !given.startsWith("/");
    String location = relative ? prefix + "/" + given : root.locationForm(given);
    while (location.endsWith("/")) {
      location = location.substring(0, location.length() - 1);
    }
    StorageRoot.requireInside(prefix, location, "'location'");
    return location;
  }
}
