package dev.lvg.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ObjectIdTest {

  @Test
  void splitsOnTheDelimiter() {
    assertThat(ObjectId.parse("ns1$tbl", "$")).containsExactly("ns1", "tbl");
    assertThat(ObjectId.parse("a.b.c", ".")).containsExactly("a", "b", "c");
    assertThat(ObjectId.parse("a::b", "::")).containsExactly("a", "b");
    assertThat(ObjectId.parse("a.b", "$")).containsExactly("a.b");
    assertThat(ObjectId.parse("tbl", "$")).containsExactly("tbl");
  }

  @Test
  void theDelimiterAloneIsTheRootNamespace() {
    assertThat(ObjectId.parse("$", "$")).isEqualTo(List.of());
    assertThat(ObjectId.parse(".", ".")).isEqualTo(List.of());
  }

  @Test
  void rejectsPartsThatCannotBeNames() {
    for (String id :
        new String[] {"a$$b", "$a", "a$", "a$..", "a$.", "a/b", "a$b\\c", "x\u0001y", ""}) {
      assertThatThrownBy(() -> ObjectId.parse(id, "$"))
          .as(id)
          .isInstanceOf(ApiException.class)
          .extracting(e -> ((ApiException) e).errorCode())
          .isEqualTo(ErrorCode.INVALID_INPUT);
    }
    assertThatThrownBy(() -> ObjectId.parse("a".repeat(257), "$")).isInstanceOf(ApiException.class);
  }
}
