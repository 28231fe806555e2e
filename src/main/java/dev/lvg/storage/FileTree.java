package dev.lvg.storage;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/** A directory tree of the local file system, deleted bottom-up; blocking, for worker threads. */
final class FileTree {
  private FileTree() {}

  /**
   * Deletes the files under {@code top} (never following links out of it), then the directories;
   * answers how many files went.
   */
  static long delete(Path top) throws IOException {
    if (!Files.exists(top, LinkOption.NOFOLLOW_LINKS)) {
      return 0;
    }
    long[] files = {0};
    Files.walkFileTree(
        top,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attributes)
              throws IOException {
            Files.deleteIfExists(file);
            files[0]++;
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path directory, IOException failure)
              throws IOException {
            if (failure != null) {
              throw failure;
            }
            Files.deleteIfExists(directory);
            return FileVisitResult.CONTINUE;
          }
        });
    return files[0];
  }
}
