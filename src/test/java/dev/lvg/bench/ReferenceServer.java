package dev.lvg.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.lance.namespace.RestAdapter;

/**
 * The upstream reference server (lance-core's {@code RestAdapter}: the Rust DirectoryNamespace
 * behind the REST routes) as a process of its own, finalizing manifests on local disk, for the
 * benchmarks. {@code ReferenceServer PORT ROOT_DIR}; runs until killed.
 */
public final class ReferenceServer {
  private ReferenceServer() {}

  /**
   * The reference server on a directory namespace under {@code root}, with managed versioning on,
   * listening on {@code port} of loopback (0: any free port); not yet started.
   */
  public static RestAdapter adapter(Path root, int port) {
    return new RestAdapter(
        "dir",
        Map.of(
            "root",
            root.toString(),
            "manifest_enabled",
            "true",
            "table_version_tracking_enabled",
            "true"),
        "127.0.0.1",
        port);
  }

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    Path root = Files.createDirectories(Path.of(args[1]));
    RestAdapter adapter = adapter(root, port);
    adapter.start();
    System.out.println("reference server listening on 127.0.0.1:" + adapter.getPort());
    Thread.currentThread().join();
  }
}
