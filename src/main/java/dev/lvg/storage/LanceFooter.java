package dev.lvg.storage;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;

/**
 * The footer every Lance manifest file ends with: the position of the manifest (little-endian
 * {@code i64}), the format's major and minor version ({@code u16} each) and the magic {@code LANC}.
 * At that position lie the length of the {@code Manifest} protobuf message ({@code u32}) and the
 * message.
 */
public final class LanceFooter {
  /** The footer's length in bytes. */
  public static final int LENGTH = 16;

  private static final byte[] MAGIC = "LANC".getBytes(StandardCharsets.US_ASCII);

  private LanceFooter() {}

  /** Whether {@code bytes}, a whole file or its tail, end with a Lance footer. */
  public static boolean endsWithOne(Buffer bytes) {
    if (bytes.length() < LENGTH) {
      return false;
    }
    int start = bytes.length() - MAGIC.length;
    for (int i = 0; i < MAGIC.length; i++) {
      if (bytes.getByte(start + i) != MAGIC[i]) {
        return false;
      }
    }
    return true;
  }

  /** The manifest's position in the file, as the footer at the end of {@code bytes} gives it. */
  public static long manifestPosition(Buffer bytes) {
    return bytes.getLongLE(bytes.length() - LENGTH);
  }
}
