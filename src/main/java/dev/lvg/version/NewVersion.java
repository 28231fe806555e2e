package dev.lvg.version;

import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import java.util.Map;

/** A validated {@code version/create} request body. */
public record NewVersion(
    long version,
    String branch,
    String manifestPath,
    Long manifestSize,
    String eTag,
    Map<String, String> metadata,
    String namingScheme) {

  public static final String MAIN_BRANCH = "main";

  public static NewVersion from(Body body) {
    long version = body.requiredNonNegativeLong("version");
    String manifestPath = body.requiredNonEmptyString("manifest_path");
    Long manifestSize = body.optionalNonNegativeLong("manifest_size");
    String eTag = body.optionalString("e_tag");
    Map<String, String> metadata = body.optionalStringMap("metadata");
    body.optionalStringMap("context");
    String namingScheme = body.optionalString("naming_scheme");
    if (namingScheme != null && !namingScheme.equals("V1") && !namingScheme.equals("V2")) {
      throw ApiException.invalidInput("'naming_scheme' must be V1 or V2, got '" + namingScheme + "'");
    }
    return new NewVersion(version, branch(body), manifestPath, manifestSize, eTag, metadata, namingScheme);
  }

  /** The branch a request names; absent means the main branch. */
  public static String branch(Body body) {
    String branch = body.optionalString("branch");
    if (branch != null && branch.isEmpty()) {
      throw ApiException.invalidInput("'branch' must not be empty");
    }
    return branch == null ? MAIN_BRANCH : branch;
  }
}
