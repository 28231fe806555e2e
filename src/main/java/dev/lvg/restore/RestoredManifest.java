package dev.lvg.restore;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import dev.lvg.http.ApiException;
import dev.lvg.storage.LanceFooter;
import io.vertx.core.buffer.Buffer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.Set;
import java.util.UUID;

/**
 * A restored version's manifest file, made from the old version's as Lance's own restore makes it:
 * the same manifest with the new version number, the time of the restore, the restore's transaction
 * file, and a highest fragment id of at least the latest version's (so fragments written after the
 * restore never reuse an id an intervening version used). Every other field is kept byte for byte,
 * and so is everything before the manifest in the file (the index section and whatever else the
 * manifest points at), so the positions it records stay true.
 *
 * <p>The file ends as every Lance manifest file does ({@link LanceFooter}): the manifest's length
 * ({@code u32}) and message at the position the footer gives.
 */
final class RestoredManifest {
  private static final int FOOTER = LanceFooter.LENGTH;

  static final int VERSION = 3;
  static final int TIMESTAMP = 7;
  static final int MAX_FRAGMENT_ID = 11;
  static final int TRANSACTION_FILE = 12;
  static final int TRANSACTION_SECTION = 21;

  /** The fields a restore writes anew; the old version's values are left out. */
  private static final Set<Integer> REPLACED =
      Set.of(VERSION, TIMESTAMP, MAX_FRAGMENT_ID, TRANSACTION_FILE, TRANSACTION_SECTION);

  /** The {@code Transaction} message's fields: its read version, uuid and the restore operation. */
  private static final int READ_VERSION = 1;

  private static final int UUID_FIELD = 2;
  private static final int RESTORE = 106;
  private static final int RESTORED_VERSION = 1;

  private RestoredManifest() {}

  /** Where a manifest file's message lies, and the message. */
  private record Located(long position, byte[] message) {}

  /**
   * The manifest file of {@code version}, restored from {@code old} (the file of the version
   * restored); {@code latestMaxFragmentId} is the latest version's highest fragment id, or null.
   */
  static Buffer restore(
      Buffer old, long version, Instant at, String transactionFile, Long latestMaxFragmentId) {
    Located located = locate(old);
    ByteArrayOutputStream message = new ByteArrayOutputStream(located.message().length + 64);
    Long oldMaxFragmentId = null;
    try {
      CodedInputStream fields = CodedInputStream.newInstance(located.message());
      for (int tag = fields.readTag(); tag != 0; tag = fields.readTag()) {
        int start = fields.getTotalBytesRead() - CodedOutputStream.computeUInt32SizeNoTag(tag);
        int field = WireFormat.getTagFieldNumber(tag);
        if (field == MAX_FRAGMENT_ID
            && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_VARINT) {
          oldMaxFragmentId = Integer.toUnsignedLong(fields.readUInt32());
          continue;
        }
        fields.skipField(tag);
        if (!REPLACED.contains(field)) {
          message.write(located.message(), start, fields.getTotalBytesRead() - start);
        }
      }
      CodedOutputStream added = CodedOutputStream.newInstance(message);
      added.writeUInt64(VERSION, version);
      added.writeByteArray(TIMESTAMP, timestamp(at));
      Long maxFragmentId = max(oldMaxFragmentId, latestMaxFragmentId);
      if (maxFragmentId != null) {
        added.writeUInt32(MAX_FRAGMENT_ID, maxFragmentId.intValue());
      }
      added.writeString(TRANSACTION_FILE, transactionFile);
      added.flush();
    } catch (IOException malformed) {
      throw notAManifest("its manifest message is malformed");
    }
    byte[] restored = message.toByteArray();
    return Buffer.buffer(old.length() + restored.length - located.message().length)
        .appendBuffer(old.slice(0, (int) located.position()))
        .appendUnsignedIntLE(restored.length)
        .appendBytes(restored)
        .appendLongLE(located.position())
        .appendBuffer(old.slice(old.length() - 8, old.length()));
  }

  /** The highest fragment id the manifest file records, or null when it records none. */
  static Long maxFragmentId(Buffer file) {
    try {
      CodedInputStream fields = CodedInputStream.newInstance(locate(file).message());
      for (int tag = fields.readTag(); tag != 0; tag = fields.readTag()) {
        if (WireFormat.getTagFieldNumber(tag) == MAX_FRAGMENT_ID
            && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_VARINT) {
          return Integer.toUnsignedLong(fields.readUInt32());
        }
        fields.skipField(tag);
      }
      return null;
    } catch (IOException malformed) {
      throw notAManifest("its manifest message is malformed");
    }
  }

  /**
   * The {@code Transaction} message of a restore to {@code restored}, read from {@code
   * readVersion}, as Lance writes it to {@code _transactions/<read version>-<uuid>.txn}.
   */
  static Buffer transaction(long readVersion, UUID uuid, long restored) {
    try {
      ByteArrayOutputStream operation = new ByteArrayOutputStream(16);
      CodedOutputStream restore = CodedOutputStream.newInstance(operation);
      restore.writeUInt64(RESTORED_VERSION, restored);
      restore.flush();
      ByteArrayOutputStream message = new ByteArrayOutputStream(64);
      CodedOutputStream out = CodedOutputStream.newInstance(message);
      out.writeUInt64(READ_VERSION, readVersion);
      out.writeString(UUID_FIELD, uuid.toString());
      out.writeByteArray(RESTORE, operation.toByteArray());
      out.flush();
      return Buffer.buffer(message.toByteArray());
    } catch (IOException impossible) {
      throw new IllegalStateException(impossible);
    }
  }

  private static Long max(Long a, Long b) {
    return a == null ? b : b == null ? a : Long.valueOf(Math.max(a, b));
  }

  /** A {@code google.protobuf.Timestamp}: seconds and nanoseconds since the epoch. */
  private static byte[] timestamp(Instant at) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(16);
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    out.writeInt64(1, at.getEpochSecond());
    if (at.getNano() != 0) {
      out.writeInt32(2, at.getNano());
    }
    out.flush();
    return bytes.toByteArray();
  }

  private static Located locate(Buffer file) {
    int length = file.length();
    if (length < FOOTER + 4 || !LanceFooter.endsWithOne(file)) {
      throw notAManifest("it does not end with Lance's footer");
    }
    long position = LanceFooter.manifestPosition(file);
    if (position < 0 || position > length - FOOTER - 4) {
      throw notAManifest("its footer points outside the file");
    }
    long messageLength = file.getUnsignedIntLE((int) position);
    if (position + 4 + messageLength != length - FOOTER) {
      throw notAManifest("its manifest does not end where the footer begins");
    }
    return new Located(position, file.getBytes((int) position + 4, length - FOOTER));
  }

  private static ApiException notAManifest(String why) {
    return ApiException.invalidInput(
        "the version to restore has no Lance manifest to restore from: " + why);
  }
}
