package dev.lvg.storage;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lvg.TestGateway;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A finalizing gateway whose storage root cannot be written refuses to start, saying why. */
class StorageCheckIT {

  @Test
  void aRootThatCannotBeWrittenStopsStartUpWithOneClearMessage() throws Exception {
    // A directory cannot be made below a regular file, whoever runs the test (root included).
    Path file = Files.createTempFile("lvg-not-a-directory", "");
    String root = "file://" + file + "/tables";
    assertThatThrownBy(
            () ->
                TestGateway.dedicated(
                    Map.of(
                        "LVG_DB_URL",
                        TestGateway.shared().databaseUrl(),
                        "LVG_MANIFEST_MODE",
                        "finalize",
                        "LVG_STORAGE_ROOT",
                        root)))
        .hasMessageStartingWith("LVG_STORAGE_ROOT " + root + " cannot be written: ");
  }
}
