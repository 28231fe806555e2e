package dev.lvg.storage;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import dev.lvg.http.ApiException;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Lance transaction a manifest file was written by, read from the file itself.
 *
 * <p>Lance's manifest file ends with its footer: the position of the manifest (little-endian {@code
 * i64}), the format's major and minor version ({@code u16} each) and the magic {@code LANC}. At
 * that position lie the length of the {@code Manifest} protobuf message ({@code u32}) and the
 * message. The message names its transaction in field 12, {@code transaction_file}: {@code
 * <read_version>-<uuid>.txn} under the table's {@code _transactions/}. A writer that keeps the
 * transaction inline sets field 21, {@code transaction_section}: the position of another {@code
 * u32} length and a {@code Transaction} message, whose field 2 is the uuid. The uuid identifies the
 * transaction however often it is rebased onto a newer version.
 *
 * <p>One ranged read of the file's tail usually holds the whole manifest; a larger one costs one
 * more read. Fields are walked with the protobuf runtime and skipped unread except the two needed.
 */
final class LanceManifest {
  /** How much of a manifest's end the first read takes (Lance's own reader prefetches as much). */
  static final int TAIL = 64 * 1024;

  /** A manifest message larger than this is not read; its version is committed without one. */
  static final long LARGEST = 64L << 20;

  private static final int FOOTER = LanceFooter.LENGTH;
  private static final int TRANSACTION_FILE = 12;
  private static final int TRANSACTION_SECTION = 21;
  private static final int TRANSACTION_UUID = 2;
  private static final Pattern TRANSACTION_NAME =
      Pattern.compile(
          "\\d+-([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
              + "[0-9a-fA-F]{12})\\.txn");

  private LanceManifest() {}

  /**
   * The uuid of the transaction the manifest at {@code key} names, from {@code tail} (the file's
   * last {@link #TAIL} bytes), or {@code null} when it names none (or is too large to read). Fails
   * with 400 code 13 when the object is not a Lance manifest, with {@link
   * ObjectStore.NoSuchObjectException} when there is none, and with the store's failure otherwise.
   */
  static Future<UUID> transactionOf(ObjectStore store, String key, ObjectStore.Range tail) {
    return new Reading(store, key, tail).transaction();
  }

  /** One manifest being read: its tail in hand, more fetched when needed. */
  private record Reading(ObjectStore store, String key, ObjectStore.Range tail) {
    Future<UUID> transaction() {
      Buffer bytes = tail.bytes();
      long size = tail.objectSize();
      if (!LanceFooter.endsWithOne(bytes)) {
        return Future.failedFuture(notAManifest("it does not end with Lance's footer"));
      }
      long position = LanceFooter.manifestPosition(bytes);
      long end = size - FOOTER;
      if (position < 0 || position > end - 4) {
        return Future.failedFuture(notAManifest("its footer points outside the file"));
      }
      if (end - position > LARGEST) {
        return Future.succeededFuture(null);
      }
      return bytesAt(position, (int) (end - position)).compose(this::fromManifest);
    }

    /** {@code length} bytes from {@code offset}: from the tail when it holds them, else read. */
    private Future<Buffer> bytesAt(long offset, int length) {
      long tailStart = tail.objectSize() - tail.bytes().length();
      if (offset >= tailStart) {
        int from = (int) (offset - tailStart);
        return Future.succeededFuture(tail.bytes().slice(from, from + length));
      }
      if (offset + length <= tailStart) {
        return store.readRange(key, offset, length).map(ObjectStore.Range::bytes);
      }
      int fromTail = (int) (offset + length - tailStart);
      return store
          .readRange(key, offset, length - fromTail)
          .map(head -> head.bytes().copy().appendBuffer(tail.bytes().slice(0, fromTail)));
    }

    private Future<UUID> fromManifest(Buffer region) {
      long recorded = region.getUnsignedIntLE(0);
      if (recorded != region.length() - 4) {
        return Future.failedFuture(
            notAManifest(
                "its manifest is "
                    + (region.length() - 4)
                    + " bytes long but records "
                    + recorded));
      }
      String file = null;
      Long section = null;
      try {
        CodedInputStream fields = CodedInputStream.newInstance(region.getBytes(4, region.length()));
        for (int tag = fields.readTag(); tag != 0; tag = fields.readTag()) {
          int field = WireFormat.getTagFieldNumber(tag);
          int type = WireFormat.getTagWireType(tag);
          if (field == TRANSACTION_FILE && type == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
            file = fields.readString();
          } else if (field == TRANSACTION_SECTION && type == WireFormat.WIRETYPE_VARINT) {
            section = fields.readUInt64();
          } else {
            fields.skipField(tag);
          }
        }
      } catch (IOException malformed) {
        return Future.failedFuture(notAManifest("its manifest message is malformed"));
      }
      if (file != null && !file.isEmpty()) {
        Matcher name = TRANSACTION_NAME.matcher(file);
        return Future.succeededFuture(name.matches() ? UUID.fromString(name.group(1)) : null);
      }
      if (section == null || section < 0 || section > tail.objectSize() - FOOTER - 4) {
        return Future.succeededFuture(null);
      }
      long at = section;
      return bytesAt(at, 4)
          .compose(
              length -> {
                long transactionLength = length.getUnsignedIntLE(0);
                if (transactionLength > LARGEST
                    || at + 4 + transactionLength > tail.objectSize() - FOOTER) {
                  return Future.failedFuture(
                      notAManifest("its transaction section runs past the manifest"));
                }
                return bytesAt(at + 4, (int) transactionLength).compose(this::fromTransaction);
              });
    }

    private Future<UUID> fromTransaction(Buffer message) {
      try {
        CodedInputStream fields = CodedInputStream.newInstance(message.getBytes());
        for (int tag = fields.readTag(); tag != 0; tag = fields.readTag()) {
          if (WireFormat.getTagFieldNumber(tag) == TRANSACTION_UUID
              && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
            return Future.succeededFuture(UUID.fromString(fields.readString()));
          }
          fields.skipField(tag);
        }
        return Future.succeededFuture(null);
      } catch (IOException | IllegalArgumentException malformed) {
        return Future.failedFuture(notAManifest("its inline transaction is malformed"));
      }
    }

    private ApiException notAManifest(String why) {
      return ApiException.invalidInput(
          "the staging manifest " + key + " is not a Lance manifest: " + why);
    }
  }
}
