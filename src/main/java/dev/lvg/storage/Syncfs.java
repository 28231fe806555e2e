package dev.lvg.storage;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.IntSupplier;

/**
 * syncfs(2) through the C library: writes every file's data and metadata cached for one file system
 * to its device, with one journal commit and one cache flush, and reports a write-back error on
 * that file system since the descriptor was opened. Linux only.
 */
final class Syncfs implements GroupSync.FileSystems {
  private static final int O_RDONLY = 0;
  private static final int O_CLOEXEC = 0x80000;

  private interface C extends Library {
    int open(String path, int flags) throws LastErrorException;

    int syncfs(int descriptor) throws LastErrorException;

    int close(int descriptor) throws LastErrorException;
  }

  private final C c;

  private Syncfs(C c) {
    this.c = c;
  }

  /**
   * syncfs(2) if this platform has it and it works on {@code probe}'s file system; empty otherwise
   * (not Linux, no C library for JNA, or a file system that refuses).
   */
  static Optional<Syncfs> load(Path probe) {
    if (!Platform.isLinux()) {
      return Optional.empty();
    }
    try {
      Syncfs syncfs = new Syncfs(Native.load(Platform.C_LIBRARY_NAME, C.class));
      int descriptor = syncfs.open(probe);
      try {
        syncfs.sync(descriptor);
      } finally {
        syncfs.close(descriptor);
      }
      return Optional.of(syncfs);
    } catch (IOException | LinkageError | RuntimeException unavailable) {
      return Optional.empty();
    }
  }

  @Override
  public int open(Path directory) throws IOException {
    return call(
        "open", directory.toString(), () -> c.open(directory.toString(), O_RDONLY | O_CLOEXEC));
  }

  @Override
  public void sync(int descriptor) throws IOException {
    call("syncfs", "descriptor " + descriptor, () -> c.syncfs(descriptor));
  }

  @Override
  public void close(int descriptor) throws IOException {
    call("close", "descriptor " + descriptor, () -> c.close(descriptor));
  }

  /** Runs a C call; its errno becomes an IOException naming the call and what it was made on. */
  private static int call(String call, String of, IntSupplier function) throws IOException {
    try {
      return function.getAsInt();
    } catch (LastErrorException e) {
      throw new IOException(call + " of " + of + " failed with errno " + e.getErrorCode(), e);
    }
  }
}
