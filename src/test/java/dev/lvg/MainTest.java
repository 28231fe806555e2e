package dev.lvg;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MainTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private Integer run(String... args) {
    return Main.beforeStart(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void helpInEachSpellingPrintsTheUsageAndExitsZero() {
    for (String help : new String[] {"help", "--help", "-h"}) {
      out.reset();
      assertThat(run(help)).as(help).isZero();
      assertThat(out.toString(StandardCharsets.UTF_8))
          .contains("usage:", "keys create --tenant", "LVG_DB_URL", "README.md");
    }
    assertThat(err.size()).isZero();
  }

  @Test
  void anUnknownArgumentPrintsTheUsageToStandardErrorAndExitsTwo() {
    assertThat(run("--port=80")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .startsWith("lance-version-gateway: unknown argument '--port=80'")
        .contains("usage:");
    assertThat(out.size()).isZero();
  }

  @Test
  void noArgumentsOrAnAdminCommandGoOn() {
    assertThat(run()).isNull();
    assertThat(run("tenants", "create", "acme")).isNull();
    assertThat(out.size() + err.size()).isZero();
  }

  @Test
  void aJvmThatCannotNameFilesInUtf8RunsItselfAgainAndOnlyOnce() {
    String[] args = {"tenants", "list"};
    assertThat(Utf8Relaunch.command(args, Map.of(Utf8Relaunch.RELAUNCHED, "1")))
        .as("a relaunched child")
        .isEmpty();
    if (Utf8Relaunch.namesFilesInUtf8()) {
      assertThat(Utf8Relaunch.command(args, Map.of())).isEmpty();
    } else {
      assertThat(Utf8Relaunch.command(args, Map.of()))
          .hasValueSatisfying(
              command ->
                  assertThat(command)
                      .contains("-cp")
                      .endsWith(Main.class.getName(), "tenants", "list"));
    }
  }
}
