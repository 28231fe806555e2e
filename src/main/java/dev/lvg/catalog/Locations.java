package dev.lvg.catalog;

import dev.lvg.storage.S3Settings;
import dev.lvg.storage.StorageRoot;
import dev.lvg.tenancy.Tenant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Where tables live: {@code <storage root>/<tenant>/<namespace parts>/<table>.lance}, and what a
 * writer needs to reach them.
 */
public final class Locations {
  public static final String TABLE_SUFFIX = ".lance";

  private final StorageRoot root;
  private final Map<String, String> storageOptions;

  /** {@code s3} describes how writers reach an {@code s3://} root; unused for other roots. */
  public Locations(StorageRoot root, S3Settings s3) {
    this.root = root;
    this.storageOptions = root.isLocal() ? Map.of() : s3.writerOptions();
  }

  /** The {@code storage_options} a writer needs for a table at {@code location}. */
  public Map<String, String> storageOptions(String location) {
    return root.contains(location) ? storageOptions : Map.of();
  }

  public String defaultTableLocation(Tenant tenant, List<String> namespace, String table) {
    StringBuilder location = new StringBuilder(root.tenantPrefix(tenant.name()));
    for (String part : namespace) {
      location.append('/').append(part);
    }
    return location.append('/').append(table).append(TABLE_SUFFIX).toString();
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
