package dev.lvg.restore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import dev.lvg.http.ApiException;
import io.vertx.core.buffer.Buffer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A restored manifest file keeps everything of the old one but what a restore writes anew. */
class RestoredManifestTest {
  private static final byte[] PREFIX = "index section and transaction bytes".getBytes();

  /** A manifest file: {@link #PREFIX}, then the message, then Lance's footer (format 0.3). */
  private static Buffer file(byte[] message) {
    return Buffer.buffer()
        .appendBytes(PREFIX)
        .appendUnsignedIntLE(message.length)
        .appendBytes(message)
        .appendLongLE(PREFIX.length)
        .appendShortLE((short) 0)
        .appendShortLE((short) 3)
        .appendString("LANC");
  }

  private static byte[] oldManifest(Integer maxFragmentId) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    out.writeByteArray(1, new byte[] {10, 2, 105, 100}); // a field of the schema
    out.writeByteArray(2, new byte[] {8, 7}); // a fragment
    out.writeUInt64(3, 1); // version
    out.writeUInt64(6, 3); // index_section, inside the prefix
    out.writeByteArray(7, new byte[] {8, 100}); // timestamp
    if (maxFragmentId != null) {
      out.writeUInt32(11, maxFragmentId);
    }
    out.writeString(12, "0-" + new UUID(1, 1) + ".txn");
    out.writeUInt64(21, 5); // transaction_section, inside the prefix
    out.writeUInt64(14, 42); // next_row_id
    out.writeString(20, "main");
    out.flush();
    return bytes.toByteArray();
  }

  /** The message of a manifest file as field number and raw value, the last of each kept. */
  private static Map<Integer, Object> fields(Buffer file) throws IOException {
    int length = file.length();
    int position = (int) file.getLongLE(length - 16);
    assertThat(file.getString(length - 4, length, "US-ASCII")).isEqualTo("LANC");
    int messageLength = (int) file.getUnsignedIntLE(position);
    assertThat(position + 4 + messageLength).isEqualTo(length - 16);
    CodedInputStream in =
        CodedInputStream.newInstance(file.getBytes(position + 4, position + 4 + messageLength));
    Map<Integer, Object> fields = new LinkedHashMap<>();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      int field = WireFormat.getTagFieldNumber(tag);
      fields.put(
          field,
          WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_VARINT
              ? (Object) in.readUInt64()
              : new String(in.readByteArray(), StandardCharsets.ISO_8859_1));
    }
    return fields;
  }

  /** A field's tag: its number and wire type. */
  private static int tag(int field, int wireType) {
    return field << 3 | wireType;
  }

  @Test
  void theRestoredFileHasTheNewVersionTimeAndTransactionAndKeepsTheRest() throws Exception {
    Buffer old = file(oldManifest(4));
    Instant at = Instant.ofEpochSecond(1_800_000_000L, 5);
    Buffer restored = RestoredManifest.restore(old, 9, at, "8-abc.txn", 6L);

    assertThat(restored.getBytes(0, PREFIX.length))
        .as("the bytes before the manifest")
        .isEqualTo(PREFIX);
    assertThat(restored.getLongLE(restored.length() - 16)).isEqualTo(PREFIX.length);
    assertThat(restored.getBytes(restored.length() - 8, restored.length()))
        .as("the format version and magic")
        .isEqualTo(old.getBytes(old.length() - 8, old.length()));
    Map<Integer, Object> fields = fields(restored);
    Map<Integer, Object> before = fields(old);
    for (int kept : new int[] {1, 2, 6, 14, 20}) {
      assertThat(fields.get(kept)).as("field %d", kept).isEqualTo(before.get(kept));
    }
    assertThat(fields.get(3)).isEqualTo(9L);
    assertThat(fields.get(11)).as("the latest's higher fragment id").isEqualTo(6L);
    assertThat(fields.get(12)).isEqualTo("8-abc.txn");
    assertThat(fields).as("no inline transaction of the old version").doesNotContainKey(21);
    CodedInputStream timestamp =
        CodedInputStream.newInstance(
            ((String) fields.get(7)).getBytes(StandardCharsets.ISO_8859_1));
    assertThat(timestamp.readTag()).isEqualTo(tag(1, WireFormat.WIRETYPE_VARINT));
    assertThat(timestamp.readInt64()).isEqualTo(1_800_000_000L);
    assertThat(timestamp.readTag()).isEqualTo(tag(2, WireFormat.WIRETYPE_VARINT));
    assertThat(timestamp.readInt32()).isEqualTo(5);
  }

  @Test
  void theHighestFragmentIdIsTheOldOnesWhenHigherOrTheOnlyOne() throws Exception {
    assertThat(fields(RestoredManifest.restore(file(oldManifest(8)), 2, Instant.EPOCH, "t", 3L)))
        .containsEntry(11, 8L);
    assertThat(fields(RestoredManifest.restore(file(oldManifest(null)), 2, Instant.EPOCH, "t", 3L)))
        .containsEntry(11, 3L);
    assertThat(
            fields(RestoredManifest.restore(file(oldManifest(null)), 2, Instant.EPOCH, "t", null)))
        .doesNotContainKey(11);
    assertThat(RestoredManifest.maxFragmentId(file(oldManifest(4)))).isEqualTo(4L);
    assertThat(RestoredManifest.maxFragmentId(file(oldManifest(null)))).isNull();
  }

  @Test
  void theRestoreTransactionNamesItsReadVersionUuidAndTheVersionRestored() throws Exception {
    UUID uuid = UUID.randomUUID();
    CodedInputStream in =
        CodedInputStream.newInstance(RestoredManifest.transaction(7, uuid, 2).getBytes());
    assertThat(in.readTag()).isEqualTo(tag(1, WireFormat.WIRETYPE_VARINT));
    assertThat(in.readUInt64()).isEqualTo(7);
    assertThat(in.readTag()).isEqualTo(tag(2, WireFormat.WIRETYPE_LENGTH_DELIMITED));
    assertThat(in.readString()).isEqualTo(uuid.toString());
    assertThat(in.readTag())
        .as("the Restore operation")
        .isEqualTo(tag(106, WireFormat.WIRETYPE_LENGTH_DELIMITED));
    CodedInputStream restore = CodedInputStream.newInstance(in.readByteArray());
    assertThat(restore.readTag()).isEqualTo(tag(1, WireFormat.WIRETYPE_VARINT));
    assertThat(restore.readUInt64()).isEqualTo(2);
    assertThat(in.readTag()).isZero();
  }

  @Test
  void aFileThatIsNotALanceManifestIsRefused() {
    for (Buffer bad :
        new Buffer[] {
          Buffer.buffer("short"),
          Buffer.buffer(new byte[64]),
          file(new byte[] {1, 2, 3}).setLongLE(PREFIX.length + 7, 1_000_000),
        }) {
      assertThatThrownBy(() -> RestoredManifest.restore(bad, 2, Instant.EPOCH, "t", null))
          .isInstanceOf(ApiException.class)
          .hasMessageContaining("no Lance manifest");
    }
  }
}
