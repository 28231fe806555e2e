package dev.lvg.storage;

import dev.lvg.http.ApiException;

/**
 * Where a version's manifest goes. A Lance writer sends the path of a staging manifest relative to
 * the store root (no scheme, no leading {@code /}: the file system root, or the bucket); it must
 * lie in {@code _versions/} of the table, or of one of its branches under {@code tree/<branch>/}.
 * The final name follows the naming scheme: V1 {@code <v>.manifest}, V2
 * {@code <u64::MAX - v, 20 digits>.manifest}.
 */
public final class Manifests {
  private static final String VERSIONS = "_versions/";
  private static final String MANIFEST_SUFFIX = ".manifest";

  private final ObjectStore localFiles;
  private final S3Store s3;
  private final boolean finalize;

  /**
   * {@code s3} serves locations in its bucket, when one is configured; {@code finalize} false means
   * every version is recorded as given and storage is never touched.
   */
  public Manifests(ObjectStore localFiles, S3Store s3, boolean finalize) {
    this.localFiles = localFiles;
    this.s3 = s3;
    this.finalize = finalize;
  }

  /** False when every version is recorded as given. */
  public boolean finalizes() {
    return finalize;
  }

  /** A staging manifest and the final manifest it becomes, as keys of one store. */
  public record Target(ObjectStore store, String stagingKey, String finalKey, String clientFinalPath) {
    public boolean alreadyFinal() {
      return stagingKey.equals(finalKey);
    }
  }

  /**
   * The finalization target of a {@code version/create}, or {@code null} when the table's versions
   * are recorded as given (record mode, or a location on no configured backend).
   */
  public Target target(String location, String manifestPath, String branch, long version, String namingScheme) {
    if (!finalize) {
      return null;
    }
    ObjectStore store;
    String tableKey;
    String key;
    boolean leadingSlash = manifestPath.startsWith("/");
    if (location.startsWith("/")) {
      store = localFiles;
      tableKey = location;
      key = leadingSlash ? manifestPath : "/" + manifestPath;
    } else if (s3 != null && location.startsWith("s3://" + s3.bucket() + "/")) {
      store = s3;
      tableKey = location.substring(("s3://" + s3.bucket() + "/").length());
      if (leadingSlash) {
        throw ApiException.invalidInput("'manifest_path' must be relative to the bucket, without a leading '/'");
      }
      key = manifestPath;
    } else {
      return null;
    }
    if (manifestPath.contains("://") || manifestPath.contains("\\")) {
      throw ApiException.invalidInput("'manifest_path' must be a path relative to the store root, not a URL");
    }
    for (String segment : (key.startsWith("/") ? key.substring(1) : key).split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
        throw ApiException.invalidInput("'manifest_path' must not contain empty, '.' or '..' segments");
      }
    }
    if (!key.startsWith(tableKey + "/")) {
      throw ApiException.invalidInput("'manifest_path' must lie inside the table's location " + location);
    }
    String name = stagingName(key.substring(tableKey.length() + 1));
    String versionsDir = "main".equals(branch) ? tableKey + "/" + VERSIONS : tableKey + "/tree/" + branch + "/" + VERSIONS;
    String finalKey = versionsDir + finalName(version, namingScheme == null ? schemeOf(name) : namingScheme);
    boolean clientUsedAbsolutePath = store == localFiles && leadingSlash;
    String clientFinalPath = store == localFiles && !clientUsedAbsolutePath ? finalKey.substring(1) : finalKey;
    return new Target(store, key, finalKey, clientFinalPath);
  }

  /** The file name, once the path is known to be {@code _versions/<name>} of the table or a branch. */
  private static String stagingName(String inTable) {
    String rest = inTable;
    if (rest.startsWith("tree/")) {
      int branchEnd = rest.indexOf('/', "tree/".length());
      rest = branchEnd < 0 ? "" : rest.substring(branchEnd + 1);
    }
    if (!rest.startsWith(VERSIONS) || rest.length() == VERSIONS.length() || rest.indexOf('/', VERSIONS.length()) >= 0) {
      throw ApiException.invalidInput("'manifest_path' must name a file in _versions/ of the table or of a branch");
    }
    return rest.substring(VERSIONS.length());
  }

  static String schemeOf(String stagingName) {
    return stagingName.matches("\\d{20}\\.manifest.*") ? "V2" : "V1";
  }

  public static String finalName(long version, String namingScheme) {
    if ("V1".equals(namingScheme)) {
      return version + MANIFEST_SUFFIX;
    }
    String inverted = Long.toUnsignedString(-1L - version);
    return "0".repeat(20 - inverted.length()) + inverted + MANIFEST_SUFFIX;
  }
}
