package dev.lvg.operation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lvg.auth.Declaration;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The catalogue against the contracts, and the only place an operation is named. */
class GatewayOperationTest {
  private static final Path CATALOGUE =
      Path.of("src/main/java/dev/lvg/operation/GatewayOperation.java");

  @Test
  void everyServedOperationIsInItsContractWithTheRightItDeclares() {
    for (GatewayOperation operation : GatewayOperation.values()) {
      if (operation.contract() == GatewayOperation.Contract.NONE) {
        assertThatThrownBy(() -> Declaration.of(operation)).hasMessageContaining(operation.id());
        continue;
      }
      Declaration declaration = Declaration.of(operation);
      assertThat(declaration.id()).isEqualTo(operation.id());
      assertThat(declaration.own())
          .isEqualTo(operation.contract() == GatewayOperation.Contract.OWN);
      assertThat(declaration.right()).isEqualTo(operation.right());
      assertThat(GatewayOperation.byId(operation.id())).isSameAs(operation);
    }
    assertThat(GatewayOperation.byId("AlterTransaction")).isNull();
  }

  @Test
  void onlyTheCommitPathSkipsTheSchemaCheck() {
    assertThat(Arrays.stream(GatewayOperation.values()).filter(GatewayOperation::commitPath))
        .containsExactly(GatewayOperation.CREATE_TABLE_VERSION);
  }

  @Test
  void theFeedCarriesOnlyChangesAndAdminOperationsNeverReachIt() {
    for (GatewayOperation operation : GatewayOperation.inFeed()) {
      assertThat(operation.right()).as(operation.id()).isIn(Right.WRITE, Right.MANAGE);
      assertThat(operation.eventType()).startsWith("io.lance.");
    }
  }

  @Test
  void noMainSourceNamesAnOperationByAStringLiteral() throws IOException {
    Set<String> ids =
        Arrays.stream(GatewayOperation.values())
            .map(GatewayOperation::id)
            .collect(Collectors.toSet());
    Pattern literal = Pattern.compile("\"([A-Za-z]+)\"");
    List<String> named = new ArrayList<>();
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        if (file.equals(CATALOGUE)) {
          continue;
        }
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
          Matcher matcher = literal.matcher(lines.get(i));
          while (matcher.find()) {
            if (ids.contains(matcher.group(1))) {
              named.add(file + ":" + (i + 1) + " " + matcher.group());
            }
          }
        }
      }
    }
    assertThat(named).isEmpty();
  }
}
