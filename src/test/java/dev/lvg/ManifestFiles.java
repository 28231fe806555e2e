package dev.lvg;

import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * Files laid out as Lance manifests (sections, a length-prefixed {@code Manifest} message and the
 * footer), for tests that need a manifest naming a chosen transaction without a writer making it.
 */
public final class ManifestFiles {
  private ManifestFiles() {}

  /**
   * A manifest after {@code prefix} (data a writer put before it) whose message names {@code
   * transactionFile} (field 12; none when null) and, when {@code inline} is given, points at an
   * inline transaction section with that uuid (field 21).
   */
  public static byte[] manifest(byte[] prefix, String transactionFile, UUID inline) {
    return manifest(prefix, 64, transactionFile, inline);
  }

  /**
   * {@link #manifest(byte[], String, UUID)} whose message carries {@code fragmentBytes} of fragment
   * data before the transaction, as a table with many fragments has.
   */
  public static byte[] manifest(
      byte[] prefix, int fragmentBytes, String transactionFile, UUID inline) {
    try {
      ByteArrayOutputStream file = new ByteArrayOutputStream();
      file.write(prefix);
      Long section = null;
      if (inline != null) {
        section = (long) file.size();
        ByteArrayOutputStream transaction = new ByteArrayOutputStream();
        CodedOutputStream fields = CodedOutputStream.newInstance(transaction);
        fields.writeUInt64(1, 1);
        fields.writeString(2, inline.toString());
        fields.flush();
        writeMessage(file, transaction.toByteArray());
      }
      ByteArrayOutputStream message = new ByteArrayOutputStream();
      CodedOutputStream fields = CodedOutputStream.newInstance(message);
      fields.writeBytes(2, com.google.protobuf.ByteString.copyFrom(new byte[fragmentBytes]));
      fields.writeUInt64(3, 2);
      if (transactionFile != null) {
        fields.writeString(12, transactionFile);
      }
      if (section != null) {
        fields.writeUInt64(21, section);
      }
      fields.flush();
      return withFooter(file, message.toByteArray());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A manifest that names no transaction, after {@code text}: tests that only need distinct or
   * equal manifests tell them apart by the text ({@link #textOf}).
   */
  public static byte[] of(String text) {
    return manifest(text.getBytes(StandardCharsets.UTF_8), null, null);
  }

  /** The text {@link #of} put before the manifest of the file at {@code path}. */
  public static String textOf(Path path) throws IOException {
    return textOf(Files.readAllBytes(path));
  }

  /** The text {@link #of} put before the manifest in {@code file}. */
  public static String textOf(byte[] file) {
    long position = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).getLong(file.length - 16);
    return new String(file, 0, (int) position, StandardCharsets.UTF_8);
  }

  /** A file with a footer and length prefix around {@code message}, whatever its bytes. */
  public static byte[] raw(byte[] message) {
    try {
      return withFooter(new ByteArrayOutputStream(), message);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] withFooter(ByteArrayOutputStream file, byte[] message) throws IOException {
    long position = file.size();
    writeMessage(file, message);
    ByteBuffer footer = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
    footer.putLong(position).putShort((short) 0).putShort((short) 2);
    footer.put("LANC".getBytes(StandardCharsets.US_ASCII));
    file.write(footer.array());
    return file.toByteArray();
  }

  private static void writeMessage(ByteArrayOutputStream file, byte[] message) throws IOException {
    file.write(
        ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(message.length).array());
    file.write(message);
  }
}
