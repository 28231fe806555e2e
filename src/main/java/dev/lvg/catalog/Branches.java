package dev.lvg.catalog;

import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.ObjectId;
import dev.lvg.platform.Exported;

/** Branch names: {@code main} always exists; a request names another with {@code branch}. */
@Exported
public final class Branches {
  public static final String MAIN = "main";

  private Branches() {}

  /** The branch a request body names; absent means the main branch. */
  public static String fromBody(Body body) {
    return named(body.optionalString("branch"));
  }

  /** The branch {@code given} names (in NFC, see {@link ObjectId}); null means the main branch. */
  public static String named(String given) {
    if (given == null) {
      return MAIN;
    }
    if (given.isEmpty()) {
      throw ApiException.invalidInput("'branch' must not be empty");
    }
    return ObjectId.name(given);
  }

  public static ApiException notFound(String branch) {
    return new ApiException(ErrorCode.TABLE_BRANCH_NOT_FOUND, "branch '" + branch + "' not found");
  }
}
