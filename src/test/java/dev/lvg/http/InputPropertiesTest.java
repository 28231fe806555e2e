package dev.lvg.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.audit.Actor;
import dev.lvg.tenancy.Tenant;
import dev.lvg.version.NewVersion;
import java.math.BigInteger;
import java.text.Normalizer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.NotEmpty;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;

/**
 * Whatever a client sends as an id or a version body, validation answers with a value or with 400
 * code 13: never another exception (which would be a 500).
 */
class InputPropertiesTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final Tenant TENANT = new Tenant(1, "t");

  private static void onlyInvalidInput(Throwable thrown) {
    if (thrown != null) {
      assertThat(thrown).isInstanceOf(ApiException.class);
      assertThat(((ApiException) thrown).errorCode()).isEqualTo(ErrorCode.INVALID_INPUT);
    }
  }

  @Property(tries = 2000)
  void anyIdParsesIntoValidPartsOrIsRefused(@ForAll String id, @ForAll @NotEmpty String delimiter) {
    List<String>[] parsed = new List[1];
    onlyInvalidInput(catchThrowable(() -> parsed[0] = ObjectId.parse(id, delimiter)));
    if (parsed[0] != null && !parsed[0].isEmpty()) {
      for (String part : parsed[0]) {
        assertThat(ObjectId.name(part)).as("a parsed part is a valid name in NFC").isEqualTo(part);
      }
      assertThat(parsed[0])
          .hasSizeLessThanOrEqualTo(id.split(java.util.regex.Pattern.quote(delimiter), -1).length);
    }
  }

  @Property(tries = 1000)
  void namesJoinedByTheDelimiterParseBack(
      @ForAll("names") @Size(min = 1, max = 8) List<String> names) {
    assertThat(ObjectId.parse(String.join("$", names), "$"))
        .isEqualTo(
            names.stream().map(name -> Normalizer.normalize(name, Normalizer.Form.NFC)).toList());
  }

  @Provide
  Arbitrary<List<String>> names() {
    return Arbitraries.strings()
        .all()
        .ofMinLength(1)
        .ofMaxLength(40)
        .filter(s -> !s.contains("$") && !s.equals(".") && !s.equals(".."))
        .filter(s -> s.chars().noneMatch(c -> c == '/' || c == '\\' || Character.isISOControl(c)))
        .filter(s -> s.chars().noneMatch(c -> Character.isSurrogate((char) c)))
        .list();
  }

  @Property(tries = 3000)
  void anyVersionBodyIsAVersionOrA400(@ForAll("bodies") ObjectNode body) {
    NewVersion[] made = new NewVersion[1];
    onlyInvalidInput(
        catchThrowable(
            () ->
                made[0] =
                    NewVersion.from(
                        Actor.of(TENANT, "k_test", "r1"),
                        TableId.of(List.of("ns", "t")),
                        Body.of(body))));
    Statistics.collect(made[0] != null ? "accepted" : "refused");
    Statistics.coverage(
        coverage -> {
          coverage.check("accepted").percentage(percent -> percent >= 5);
          coverage.check("refused").percentage(percent -> percent >= 5);
        });
    if (made[0] != null) {
      assertThat(made[0].version()).isNotNegative();
      assertThat(made[0].manifestPath()).isNotEmpty();
      assertThat(made[0].manifestSize())
          .satisfiesAnyOf(s -> assertThat(s).isNull(), s -> assertThat(s).isNotNegative());
    }
  }

  @Provide
  Arbitrary<ObjectNode> bodies() {
    Arbitrary<JsonNode> path =
        Arbitraries.strings()
            .alpha()
            .numeric()
            .withChars("/._-")
            .ofMinLength(1)
            .ofMaxLength(30)
            .map(NODES::textNode);
    Arbitrary<JsonNode> stringMap =
        Arbitraries.maps(
                Arbitraries.strings().alpha().ofMaxLength(4), Arbitraries.strings().ofMaxLength(4))
            .ofMaxSize(2)
            .map(
                map -> {
                  ObjectNode node = NODES.objectNode();
                  map.forEach(node::put);
                  return node;
                });
    Map<String, Arbitrary<JsonNode>> fields = new LinkedHashMap<>();
    fields.put("version", Arbitraries.longs().between(-3, 10).map(NODES::numberNode));
    fields.put("manifest_path", path);
    fields.put("manifest_size", Arbitraries.longs().between(-3, 1000).map(NODES::numberNode));
    fields.put("e_tag", Arbitraries.strings().ofMaxLength(10).map(NODES::textNode));
    fields.put("metadata", stringMap);
    fields.put("context", stringMap);
    fields.put("naming_scheme", Arbitraries.of("V1", "V2", "V3", "").map(NODES::textNode));
    fields.put("branch", Arbitraries.of("main", "dev", "", "a/b").map(NODES::textNode));
    Arbitrary<ObjectNode> body = Arbitraries.just(NODES.objectNode());
    for (Map.Entry<String, Arbitrary<JsonNode>> field : fields.entrySet()) {
      // Mostly a value of the field's own kind, sometimes any JSON at all, sometimes absent; with
      // eight fields, this keeps both accepted and refused bodies well above the coverage floor.
      Arbitrary<Optional<JsonNode>> value =
          Arbitraries.frequencyOf(
              Tuple.of(14, field.getValue().map(Optional::of)),
              Tuple.of(1, json(3).map(Optional::of)),
              Tuple.of(1, Arbitraries.just(Optional.<JsonNode>empty())));
      body =
          Combinators.combine(body, value)
              .as(
                  (node, present) -> {
                    ObjectNode copy = node.deepCopy();
                    present.ifPresent(v -> copy.set(field.getKey(), v));
                    return copy;
                  });
    }
    return body;
  }

  /** Any JSON value, nested up to {@code depth}, with the numbers that break parsers. */
  private static Arbitrary<JsonNode> json(int depth) {
    Arbitrary<JsonNode> scalar =
        Arbitraries.oneOf(
            Arbitraries.longs().map(NODES::numberNode),
            Arbitraries.of(-1L, 0L, 1L, Long.MAX_VALUE, Long.MIN_VALUE).map(NODES::numberNode),
            Arbitraries.bigIntegers()
                .between(BigInteger.TWO.pow(63), BigInteger.TWO.pow(200))
                .map(NODES::numberNode),
            Arbitraries.doubles().map(NODES::numberNode),
            Arbitraries.of(1e300, -0.0, 1.5, Double.MIN_VALUE).map(NODES::numberNode),
            Arbitraries.strings().all().ofMaxLength(30).map(NODES::textNode),
            Arbitraries.of("V1", "V2", "", "main", "../x", "ns/t.lance/_versions/1.manifest")
                .map(NODES::textNode),
            Arbitraries.of(true, false).map(NODES::booleanNode),
            Arbitraries.just(NODES.nullNode()));
    if (depth == 0) {
      return scalar;
    }
    Arbitrary<JsonNode> array =
        json(depth - 1)
            .list()
            .ofMaxSize(3)
            .map(
                items -> {
                  var node = NODES.arrayNode();
                  items.forEach(node::add);
                  return node;
                });
    Arbitrary<JsonNode> object =
        Combinators.combine(
                Arbitraries.strings().alpha().ofMaxLength(5).list().ofMaxSize(3),
                json(depth - 1).list().ofSize(3))
            .as(
                (keys, values) -> {
                  ObjectNode node = NODES.objectNode();
                  for (int i = 0; i < keys.size(); i++) {
                    node.set(keys.get(i), values.get(i));
                  }
                  return node;
                });
    return Arbitraries.frequencyOf(Tuple.of(6, scalar), Tuple.of(1, array), Tuple.of(2, object));
  }
}
