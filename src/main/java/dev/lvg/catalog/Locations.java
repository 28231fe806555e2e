package dev.lvg.catalog;

import dev.lvg.http.ApiException;
import dev.lvg.tenancy.Tenant;
import java.util.List;

/**
 * Where tables live: {@code <storage root>/<tenant>/<namespace parts>/<table>.lance}. For a
 * {@code file://} root, locations are handed out as absolute paths, the form Lance writers use for
 * local tables; other roots keep their URI form.
 */
public final class Locations {
  private static final String FILE_SCHEME = "file://";
  public static final String TABLE_SUFFIX = ".lance";

  private final String root;

  public Locations(String storageRoot) {
    this.root = external(storageRoot);
  }

  private static String external(String uri) {
    return uri.startsWith(FILE_SCHEME) ? uri.substring(FILE_SCHEME.length()) : uri;
  }

  public String tenantPrefix(Tenant tenant) {
    return root + "/" + tenant.name();
  }

  public String defaultTableLocation(Tenant tenant, List<String> namespace, String table) {
    StringBuilder location = new StringBuilder(tenantPrefix(tenant));
    for (String part : namespace) {
      location.append('/').append(part);
    }
    return location.append('/').append(table).append(TABLE_SUFFIX).toString();
  }

  /**
   * A location a client chose, in the form the gateway stores: it must lie inside the tenant's own
   * prefix and must not climb out of it. A relative path (no scheme, no leading {@code /}) is taken
   * relative to the tenant's prefix.
   */
  public String clientLocation(Tenant tenant, String given) {
    boolean relative = !given.contains("://") && !given.startsWith("/");
    String location = relative ? tenantPrefix(tenant) + "/" + given : external(given);
    while (location.endsWith("/")) {
      location = location.substring(0, location.length() - 1);
    }
    String prefix = tenantPrefix(tenant) + "/";
    if (!location.startsWith(prefix) || location.length() == prefix.length()) {
      throw ApiException.invalidInput("'location' must lie under this tenant's storage prefix " + prefix);
    }
    for (String segment : location.substring(prefix.length()).split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
        throw ApiException.invalidInput("'location' must not contain empty, '.' or '..' segments");
      }
    }
    return location;
  }
}
