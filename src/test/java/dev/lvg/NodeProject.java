package dev.lvg;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Node.js project under {@code src/test/node}, installed from its lock file ({@code npm ci}) the
 * first time one of its scripts runs; each script prints its result as its last line, in JSON.
 */
public record NodeProject(Path directory, String installedModule, List<String> installCommand) {
  private static final List<String> FLAGS = List.of("--omit=optional", "--no-audit", "--no-fund");

  /** The project in {@code src/test/node/<name>}, installed once {@code module} is in place. */
  public static NodeProject of(String name, String module) {
    return new NodeProject(Path.of("src/test/node", name), module, command("ci"));
  }

  /**
   * A project installed with {@code npm install} from its lock file: for a release the registry
   * serves without every platform's package, whose lock {@code npm ci} refuses as incomplete.
   */
  public static NodeProject partlyPublished(String name, String module) {
    return new NodeProject(Path.of("src/test/node", name), module, command("install"));
  }

  private static List<String> command(String verb) {
    List<String> command = new ArrayList<>(List.of("npm", verb));
    command.addAll(FLAGS);
    return List.copyOf(command);
  }

  /** Runs {@code script} with {@code args} and answers the JSON line it printed last. */
  public JsonNode run(String script, String... args) throws Exception {
    install();
    List<String> command = new ArrayList<>(List.of("node", script));
    command.addAll(List.of(args));
    return lastLine(run(command, 180));
  }

  /** Starts {@code script} with {@code args}, its output going to {@code log}. */
  public Process start(Path log, String script, String... args) throws Exception {
    install();
    List<String> command = new ArrayList<>(List.of("node", script));
    command.addAll(List.of(args));
    return new ProcessBuilder(command)
        .directory(directory.toFile())
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  /** The JSON line {@code output} ends with. */
  public static JsonNode lastLine(String output) throws Exception {
    String[] lines = output.strip().split("\n");
    return new ObjectMapper().readTree(lines[lines.length - 1]);
  }

  private void install() throws Exception {
    if (!Files.isDirectory(directory.resolve("node_modules").resolve(installedModule))) {
      run(installCommand, 600);
    }
  }

  private String run(List<String> command, long timeoutSeconds) throws Exception {
    Path log = Files.createTempFile("node-", ".log");
    try {
      Process process =
          new ProcessBuilder(command)
              .directory(directory.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      boolean finished = process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
      if (!finished) {
        process.destroyForcibly();
      }
      String text = Files.readString(log, StandardCharsets.UTF_8);
      assertThat(finished)
          .as("%s finished within %d s; output:%n%s", command, timeoutSeconds, text)
          .isTrue();
      assertThat(process.exitValue()).as("%s exit code; output:%n%s", command, text).isZero();
      return text;
    } finally {
      Files.deleteIfExists(log);
    }
  }
}
