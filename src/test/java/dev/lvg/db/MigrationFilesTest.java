package dev.lvg.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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

  @Test
  void filesSplitIntoStatementsAtSemicolonsOutsideQuotesCommentsAndDollarBodies() {
    assertThat(
            Migrations.statements(
                """
                -- a comment; with a semicolon
                CREATE TABLE a (x TEXT DEFAULT 'x;y', "q;" INT);
                DO $$ BEGIN PERFORM 1; PERFORM 2; END $$;
                DO $body$ BEGIN RAISE NOTICE 'it''s; fine'; END $body$;

                SELECT 1"""))
        .containsExactly(
            "CREATE TABLE a (x TEXT DEFAULT 'x;y', \"q;\" INT)",
            "DO $$ BEGIN PERFORM 1; PERFORM 2; END $$",
            "DO $body$ BEGIN RAISE NOTICE 'it''s; fine'; END $body$",
            "SELECT 1");
  }

  @Test
  void everyMigrationSplitsIntoWholeStatements() {
    for (Migrations.Migration migration : Migrations.load()) {
      List<String> statements = Migrations.statements(migration.sql());
      assertThat(statements).as(migration.name()).isNotEmpty();
      for (String statement : statements) {
        assertThat(statement)
            .as(migration.name())
            .matches("(?s)(CREATE|ALTER|DROP|UPDATE|DELETE|INSERT|DO) .*");
      }
    }
  }
}
