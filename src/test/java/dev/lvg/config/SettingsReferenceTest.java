package dev.lvg.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every setting the code reads is where an operator looks for it: in the settings reference
 * (docs/configuration.md), and, unless the reference says it is read from the environment only, in
 * conf/gateway.properties and in the Kubernetes ConfigMap's file (the same file, byte for byte);
 * and neither file holds a setting the code does not read.
 */
class SettingsReferenceTest {
  private static final Pattern NAME = Pattern.compile("\"(LVG_[A-Z0-9_]+)\"");
  private static final Pattern KEY = Pattern.compile("(?m)^(LVG_[A-Z0-9_]+)=");

  /** Names the code uses that are not settings, and why. */
  private static final Map<String, String> NOT_SETTINGS =
      Map.of(
          "LVG_RELAUNCHED_IN_UTF8", "set by the jar on the child it starts under C.UTF-8",
          "LVG_LOG_TARGET", "a system property the admin commands set for the log configuration",
          "LVG_CONFIG", "names the file itself (documented beside the table)");

  private static Set<String> readByTheCode() throws IOException {
    Set<String> names = new TreeSet<>();
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        Matcher found = NAME.matcher(Files.readString(file));
        while (found.find()) {
          names.add(found.group(1));
        }
      }
    }
    names.removeAll(NOT_SETTINGS.keySet());
    return names;
  }

  private static Set<String> keys(Path file) throws IOException {
    Set<String> keys = new TreeSet<>();
    Matcher found = KEY.matcher(Files.readString(file));
    while (found.find()) {
      keys.add(found.group(1));
    }
    return keys;
  }

  @Test
  void everySettingTheCodeReadsIsDocumentedAndInTheFilesOperatorsEdit() throws IOException {
    Set<String> read = readByTheCode();
    assertThat(read).hasSizeGreaterThan(50).contains("LVG_DB_URL", "LVG_FEED_SINK_TENANTS");
    String reference = Files.readString(Path.of("docs/configuration.md"));
    Set<String> environmentOnly = new TreeSet<>();
    for (String line : reference.lines().toList()) {
      Matcher row = Pattern.compile("^\\| `(LVG_[A-Z0-9_]+)`").matcher(line);
      if (row.find() && line.contains("**environment only**")) {
        environmentOnly.add(row.group(1));
      }
    }
    for (String name : read) {
      assertThat(reference)
          .as("docs/configuration.md documents %s", name)
          .contains("`" + name + "`");
    }
    Set<String> inFiles = new TreeSet<>(read);
    inFiles.removeAll(environmentOnly);
    Set<String> conf = keys(Path.of("conf/gateway.properties"));
    assertThat(conf).as("conf/gateway.properties").isEqualTo(inFiles);
    assertThat(Files.readString(Path.of("k8s/base/gateway.properties")))
        .as("the ConfigMap's file is conf/gateway.properties")
        .isEqualTo(Files.readString(Path.of("conf/gateway.properties")));
  }
}
