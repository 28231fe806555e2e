package dev.lvg.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every SQL statement in the main sources is written out whole, as one literal a reader can paste
 * into psql: no statement is made by joining, replacing or formatting strings.
 */
class SqlLiteralsTest {
  private static final Pattern STATEMENT =
      Pattern.compile("(?s)\\s*(SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|ALTER|DROP)\\s.*");

  /** A constant whose value starts as a literal: its name and the literal's first characters. */
  private static final Pattern CONSTANT =
      Pattern.compile("static final String (\\w+)\\s*=\\s*(?:\"\"\"\\s*|\")([^\"]{0,30})");

  /** A literal in the source: its text and what follows it. */
  record Literal(Path file, int line, String text, char next) {}

  @Test
  void everyStatementIsOneLiteralNeverJoinedReplacedOrFormatted() throws IOException {
    List<String> derived = new ArrayList<>();
    int statements = 0;
    for (Literal literal : literals()) {
      if (!STATEMENT.matcher(literal.text()).matches()) {
        continue;
      }
      statements++;
      if (literal.next() == '+' || literal.next() == '.') {
        derived.add(literal.file() + ":" + literal.line());
      }
    }
    assertThat(statements).as("statements found").isGreaterThan(50);
    assertThat(derived).as("statements joined with, or changed by, string operations").isEmpty();
  }

  @Test
  void noConstantHoldingAStatementIsJoinedReplacedOrFormattedWhereItIsUsed() throws IOException {
    List<String> derived = new ArrayList<>();
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        String source = Files.readString(file);
        Matcher constant = CONSTANT.matcher(source);
        while (constant.find()) {
          if (!STATEMENT.matcher(constant.group(2)).matches()) {
            continue;
          }
          Pattern use =
              Pattern.compile(
                  "\\b" + constant.group(1) + "\\s*(\\+|\\.(replace|formatted|concat|repeat)\\()");
          if (use.matcher(source).find()) {
            derived.add(file + ": " + constant.group(1));
          }
        }
      }
    }
    assertThat(derived).isEmpty();
  }

  @Test
  void theScannerSeesAStatementThatIsJoined() {
    String source = "class A { static final String S = \"\"\"\n    SELECT 1\n    \"\"\" + B; }";
    List<Literal> found = new ArrayList<>();
    scan(Path.of("A.java"), source, found);
    assertThat(found).singleElement().satisfies(l -> assertThat(l.next()).isEqualTo('+'));
  }

  static List<Literal> literals() throws IOException {
    List<Literal> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        scan(file, Files.readString(file), found);
      }
    }
    return found;
  }

  /** Finds the string literals and text blocks of {@code source}, skipping comments. */
  static void scan(Path file, String source, List<Literal> found) {
    int i = 0;
    while (i < source.length()) {
      char c = source.charAt(i);
      if (source.startsWith("//", i)) {
        i = endOf(source, "\n", i);
      } else if (source.startsWith("/*", i)) {
        i = endOf(source, "*/", i + 2);
      } else if (c == '\'') {
        i = source.charAt(i + 1) == '\\' ? source.indexOf('\'', i + 3) + 1 : i + 3;
      } else if (source.startsWith("\"\"\"", i)) {
        int end = source.indexOf("\"\"\"", i + 3);
        while (source.charAt(end - 1) == '\\') {
          end = source.indexOf("\"\"\"", end + 1);
        }
        found.add(literal(file, source, i, source.substring(i + 3, end).stripIndent(), end + 3));
        i = end + 3;
      } else if (c == '"') {
        int end = i + 1;
        while (source.charAt(end) != '"') {
          end += source.charAt(end) == '\\' ? 2 : 1;
        }
        found.add(literal(file, source, i, source.substring(i + 1, end), end + 1));
        i = end + 1;
      } else {
        i++;
      }
    }
  }

  private static int endOf(String source, String marker, int from) {
    int end = source.indexOf(marker, from);
    return end < 0 ? source.length() : end + marker.length();
  }

  private static Literal literal(Path file, String source, int start, String text, int after) {
    int next = after;
    while (next < source.length() && Character.isWhitespace(source.charAt(next))) {
      next++;
    }
    int line = (int) source.substring(0, start).chars().filter(ch -> ch == '\n').count() + 1;
    return new Literal(file, line, text.replaceFirst("^\n", ""), source.charAt(next));
  }
}
