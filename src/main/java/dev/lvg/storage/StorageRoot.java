package dev.lvg.storage;

import dev.lvg.http.ApiException;
import java.net.URI;

/**
 * Where table locations are made: {@code file:///abs/path} or {@code s3://bucket/prefix}. The one
 * place that knows the root's shape (scheme, bucket, prefix), how locations and manifest paths map
 * to keys of its store, and the confinement rule that keeps a path inside a prefix, which is what
 * keeps tenants and tables apart.
 *
 * <p>Locations take the form Lance writers use: an absolute path for a {@code file://} root, the
 * URI otherwise. Keys are the store's own: absolute paths, or object keys in the bucket.
 */
public final class StorageRoot {
  private static final String FILE = "file://";
  private static final String S3 = "s3://";

  private final String uri;
  private final String base;
  private final String bucket;

  private StorageRoot(String uri, String base, String bucket) {
    this.uri = uri;
    this.base = base;
    this.bucket = bucket;
  }

  /**
   * Parses a root URI; trailing slashes are dropped.
   *
   * @throws IllegalArgumentException naming what is wrong with it
   */
  public static StorageRoot parse(String value) {
    String normalized = value;
    while (normalized.endsWith("/") && !normalized.endsWith("://")) {
      normalized = normalized.substring(0, normalized.length() - 1);
    }
    URI parsed;
    try {
      parsed = URI.create(normalized);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("not a URI: " + value);
    }
    if (parsed.getScheme() == null) {
      throw new IllegalArgumentException("needs a scheme such as file:// or s3://: " + value);
    }
    if (normalized.startsWith(FILE)) {
      String path = normalized.substring(FILE.length());
      if (!path.startsWith("/")) {
        throw new IllegalArgumentException("a file:// root must be an absolute path: " + value);
      }
      return new StorageRoot(normalized, path, null);
    }
    if (normalized.startsWith(S3)) {
      String rest = normalized.substring(S3.length());
      int slash = rest.indexOf('/');
      String bucket = slash < 0 ? rest : rest.substring(0, slash);
      if (bucket.isEmpty()) {
        throw new IllegalArgumentException("an s3:// root must name a bucket: " + value);
      }
      return new StorageRoot(normalized, normalized, bucket);
    }
    throw new IllegalArgumentException("the scheme must be file:// or s3://: " + value);
  }

  /** The root as configured, without trailing slashes. */
  public String uri() {
    return uri;
  }

  /** The bucket of an {@code s3://} root, or {@code null} for a {@code file://} root. */
  public String bucket() {
    return bucket;
  }

  public boolean isLocal() {
    return bucket == null;
  }

  /** The location of a tenant's own prefix, under which all its tables lie. */
  public String tenantPrefix(String tenant) {
    return base + "/" + tenant;
  }

  /** What every location under this root starts with. */
  public String locationPrefix() {
    return base + "/";
  }

  /** True when the location lies under this root. */
  public boolean contains(String location) {
    return location.startsWith(locationPrefix());
  }

  /** A location or URI in the form locations take (a {@code file://} URI becomes its path). */
  public String locationForm(String given) {
    return isLocal() && given.startsWith(FILE) ? given.substring(FILE.length()) : given;
  }

  /**
   * The key of a table location in this root's store, or {@code null} when the location is in
   * another store (whose manifests the gateway then records as given).
   */
  public String keyOf(String location) {
    if (isLocal()) {
      return location.startsWith("/") ? location : null;
    }
    String bucketUri = S3 + bucket + "/";
    return location.startsWith(bucketUri) ? location.substring(bucketUri.length()) : null;
  }

  /**
   * The key of a manifest path a writer sent: relative to the store root (the file system root, or
   * the bucket). On the file system a leading {@code /} is accepted too.
   */
  public String manifestKey(String manifestPath) {
    if (manifestPath.contains("://") || manifestPath.contains("\\")) {
      throw ApiException.invalidInput(
          "'manifest_path' must be a path relative to the store root, not a URL");
    }
    if (isLocal()) {
      return manifestPath.startsWith("/") ? manifestPath : "/" + manifestPath;
    }
    if (manifestPath.startsWith("/")) {
      throw ApiException.invalidInput(
          "'manifest_path' must be relative to the bucket, without a leading '/'");
    }
    return manifestPath;
  }

  /** A key written back in the form the writer used for {@code sentPath}. */
  public String inFormOf(String key, String sentPath) {
    return isLocal() && !sentPath.startsWith("/") ? key.substring(1) : key;
  }

  /**
   * Checks that {@code path} lies strictly inside {@code container}: it starts with the container
   * and a {@code /}, and what follows has no empty, {@code .} or {@code ..} segment, so it cannot
   * climb out. Returns the part after the container.
   *
   * @throws ApiException 400 code 13 naming {@code field}
   */
  public static String requireInside(String container, String path, String field) {
    String prefix = container + "/";
    if (!path.startsWith(prefix) || path.length() == prefix.length()) {
      throw ApiException.invalidInput(field + " must lie inside " + container);
    }
    String inside = path.substring(prefix.length());
    for (String segment : inside.split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
        throw ApiException.invalidInput(field + " must not contain empty, '.' or '..' segments");
      }
    }
    return inside;
  }
}
