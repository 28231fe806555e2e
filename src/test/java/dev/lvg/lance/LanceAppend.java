package dev.lvg.lance;

import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.lance.WriteParams;
import org.lance.namespace.RestNamespace;

/**
 * A lance-core writer in a process of its own, which a test can stop: appends rows to {@code
 * ns1$events} through the REST namespace at {@code args[0]} with API key {@code args[1]}, ids from
 * {@code args[2]}, {@code args[3]} of them; prints {@code ok} or {@code error: <message>}.
 */
public final class LanceAppend {
  private LanceAppend() {}

  public static void main(String[] args) throws Exception {
    try (BufferAllocator allocator = new RootAllocator()) {
      RestNamespace namespace = new RestNamespace();
      namespace.initialize(Map.of("uri", args[0], "header.x-api-key", args[1]), allocator);
      try {
        LanceData.write(
            allocator,
            namespace,
            WriteParams.WriteMode.APPEND,
            Long.parseLong(args[2]),
            Integer.parseInt(args[3]));
        System.out.println("ok");
      } catch (RuntimeException refused) {
        System.out.println("error: " + refused.getMessage());
      }
    }
  }
}
