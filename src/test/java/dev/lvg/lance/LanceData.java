package dev.lvg.lance;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.ipc.LanceScanner;
import org.lance.namespace.LanceNamespace;

/** Rows of ids written to table {@code ns1$events} by a real Lance writer. */
public final class LanceData {
  public static final List<String> TABLE = List.of("ns1", "events");
  private static final Schema SCHEMA =
      new Schema(List.of(Field.nullable("id", new ArrowType.Int(64, true))));

  private LanceData() {}

  /** {@code count} rows with ids from {@code first}, as an Arrow stream. */
  public static ArrowReader rows(BufferAllocator allocator, long first, int count)
      throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
      BigIntVector ids = (BigIntVector) root.getVector("id");
      ids.allocateNew(count);
      for (int i = 0; i < count; i++) {
        ids.set(i, first + i);
      }
      ids.setValueCount(count);
      root.setRowCount(count);
      try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(out))) {
        writer.start();
        writer.writeBatch();
        writer.end();
      }
    }
    return new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), allocator);
  }

  /** The ids a version of the table holds, sorted. */
  public static List<Long> ids(Dataset dataset) throws Exception {
    List<Long> ids = new ArrayList<>();
    try (LanceScanner scanner = dataset.newScan();
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        BigIntVector column = (BigIntVector) reader.getVectorSchemaRoot().getVector("id");
        for (int i = 0; i < column.getValueCount(); i++) {
          ids.add(column.get(i));
        }
      }
    }
    Collections.sort(ids);
    return ids;
  }

  /** Commits {@code count} rows through the namespace; returns the version the write created. */
  public static long write(
      BufferAllocator allocator,
      LanceNamespace namespace,
      WriteParams.WriteMode mode,
      long first,
      int count)
      throws Exception {
    return write(allocator, namespace, TABLE, mode, first, count);
  }

  /** Commits {@code count} rows to {@code table}; returns the version the write created. */
  public static long write(
      BufferAllocator allocator,
      LanceNamespace namespace,
      List<String> table,
      WriteParams.WriteMode mode,
      long first,
      int count)
      throws Exception {
    try (ArrowReader reader = rows(allocator, first, count);
        Dataset dataset =
            Dataset.write()
                .allocator(allocator)
                .reader(reader)
                .namespaceClient(namespace)
                .tableId(table)
                .mode(mode)
                .execute()) {
      return dataset.version();
    }
  }
}
