package dev.lvg.catalog;

import dev.lvg.http.ApiException;
import dev.lvg.tenancy.Tenant;
import dev.lvg.config.GatewayConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where tables live: {@code <storage root>/<tenant>/<namespace parts>/<table>.lance}. For a
 * {@code file://} root, locations are handed out as absolute paths, the form Lance writers use for
 * local tables; other roots keep their URI form.
 */
public final class Locations {
  private static final String FILE_SCHEME = "file://";
  public static final String TABLE_SUFFIX = ".lance";

  private final String root;
  private final Map<String, String> storageOptions;

  public Locations(GatewayConfig config) {
    this.root = external(config.storageRoot());
    this.storageOptions = config.s3Bucket() == null ? Map.of() : s3Options(config.s3());
  }

  /** What a Lance writer (object_store) needs to reach the S3 root: endpoint, region, addressing, keys. */
  private static Map<String, String> s3Options(GatewayConfig.S3Settings s3) {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("aws_region", s3.region());
    if (s3.endpoint() != null) {
      options.put("aws_endpoint", s3.endpoint());
      options.put("allow_http", Boolean.toString(s3.endpoint().startsWith("http://")));
    }
    options.put("aws_virtual_hosted_style_request", Boolean.toString(!s3.pathStyle()));
    if (s3.accessKeyId() != null) {
      options.put("aws_access_key_id", s3.accessKeyId());
      options.put("aws_secret_access_key", s3.secretAccessKey());
    }
    return Map.copyOf(options);
  }

  /** The {@code storage_options} a writer needs for a table at {@code location}. */
  public Map<String, String> storageOptions(String location) {
    return location.startsWith(root + "/") ? storageOptions : Map.of();
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
