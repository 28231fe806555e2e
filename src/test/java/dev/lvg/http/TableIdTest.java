package dev.lvg.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Table and namespace ids: made once from the wire's names, printed one way. */
class TableIdTest {
  @Test
  void aTableIdIsItsNamespaceAndItsName() {
    TableId id = TableId.of(List.of("a", "b", "t"));
    assertThat(id.namespace()).isEqualTo(new NamespaceId(List.of("a", "b")));
    assertThat(id.name()).isEqualTo("t");
    assertThat(id.names()).containsExactly("a", "b", "t");
    assertThat(id).hasToString("a$b$t");
    assertThat(id.namespace().array()).containsExactly("a", "b");
  }

  @Test
  void aTableInTheRootHasTheRootNamespace() {
    TableId id = TableId.of(List.of("t"));
    assertThat(id.namespace().isRoot()).isTrue();
    assertThat(id.namespace()).isEqualTo(NamespaceId.ROOT).hasToString("(root)");
    assertThat(id).hasToString("t");
  }

  @Test
  void aTableIdNeedsAName() {
    assertThatThrownBy(() -> TableId.of(List.of()))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("the table name");
  }

  @Test
  void aNamespaceKnowsItsParentButTheRootHasNone() {
    NamespaceId id = new NamespaceId(List.of("a", "b"));
    assertThat(id.parent()).isEqualTo(new NamespaceId(List.of("a")));
    assertThat(id.parent().parent()).isEqualTo(NamespaceId.ROOT);
    assertThatThrownBy(NamespaceId.ROOT::parent).isInstanceOf(IllegalStateException.class);
    assertThat(id.table("t")).isEqualTo(TableId.of(List.of("a", "b", "t")));
  }

  @Test
  void aPageTokenCarriesATableIdAndNothingElse() {
    TableId id = TableId.of(List.of("ns", "t"));
    assertThat(Paging.decodeId(Paging.encodeId(id))).isEqualTo(id);
    for (String bad : List.of("[]", "[null]", "[\"a\",null]", "{}", "x")) {
      assertThatThrownBy(() -> Paging.decodeId(bad))
          .as(bad)
          .isInstanceOf(ApiException.class)
          .hasMessageContaining("page_token");
    }
  }
}
