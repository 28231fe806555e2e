package dev.lvg.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class MigrationFilesTest {
  @Test
  void everyFileInTheMigrationDirectoryIsApplied() throws IOException {
    try (Stream<Path> files = Files.list(Path.of("src/main/resources/db/migration"))) {
      assertThat(Migrations.FILES)
          .containsExactlyElementsOf(
              files.map(file -> file.getFileName().toString()).sorted().toList());
    }
  }

  @Test
  void versionsAreNumberedInOrder() {
    for (int i = 0; i < Migrations.FILES.size(); i++) {
      assertThat(Migrations.versionOf(Migrations.FILES.get(i))).isEqualTo(i + 1);
    }
  }
}
