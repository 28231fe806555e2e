package dev.lvg.version;

import dev.lvg.http.ApiException;

/** A range of versions, start inclusive, end exclusive; end -1 reaches through the latest. */
public record VersionRange(long start, long end) {
  public VersionRange {
    if (start < 0) {
      throw ApiException.invalidInput("'start_version' must be >= 0, got " + start);
    }
    if (end != -1 && end < start) {
      throw ApiException.invalidInput("'end_version' must be -1 or >= 'start_version', got " + end);
    }
  }
}
