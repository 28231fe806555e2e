package dev.lvg.feed;

import dev.lvg.http.ApiException;
import dev.lvg.platform.Exported;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A place in a tenant's change feed: the feed's epoch (which history it belongs to) and the last
 * position read. Written {@code epoch.position}; it is an event's {@code id} and an SSE event's
 * {@code id:}, so any event is a cursor to resume after.
 */
@Exported
public record FeedCursor(String epoch, long position) {
  private static final Pattern FORM = Pattern.compile("([0-9a-f]{1,32})\\.(\\d{1,18})");

  /** The cursor {@code text}; 400 code 13 for text this server never issued. */
  public static FeedCursor parse(String text) {
    Matcher form = FORM.matcher(text);
    if (!form.matches()) {
      throw ApiException.invalidInput(
          "'continuation-token' is not a cursor this server issued: '" + text + "'");
    }
    return new FeedCursor(form.group(1), Long.parseLong(form.group(2)));
  }

  /** The position as a CloudEvents {@code sequence}: zero-padded, so it also sorts as text. */
  public static String sequence(long position) {
    return String.format("%019d", position);
  }

  @Override
  public String toString() {
    return epoch + "." + position;
  }
}
