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
    assertThatThrownBy(() -> ObjectId.parse("a".repeat(201), "$")).isInstanceOf(ApiException.class);
  }

  @Test
  void namesAreBroughtToNfcSoTwoSpellingsOfOneTextAreOneName() {
    String composed = "caf\u00e9";
    String decomposed = "cafe\u0301";
    assertThat(ObjectId.name(decomposed)).isEqualTo(composed);
    assertThat(ObjectId.parse("d\u00f6rfer$" + decomposed, "$"))
        .containsExactly("d\u00f6rfer", composed);
    assertThat(ObjectId.names(List.of("o\u0308l", "\u6570\u636e")))
        .containsExactly("\u00f6l", "\u6570\u636e");
    for (String asSent :
        new String[] {
          "\u6570\u636e\u8868",
          "\ud83e\udd86 ducks",
          "\u062c\u062f\u0648\u0644",
          "\u05d8\u05d1\u05dc\u05d4"
        }) {
      assertThat(ObjectId.name(asSent)).as("already NFC").isEqualTo(asSent);
    }
  }

  @Test
  void aNameIsAtMost200BytesOfUtf8AndValidUnicode() {
    assertThat(ObjectId.name("a".repeat(200))).hasSize(200);
    // 66 CJK characters are 198 bytes; 67 are 201.
    assertThat(ObjectId.name("\u6570".repeat(66))).hasSize(66);
    for (String bad : new String[] {"\u6570".repeat(67), "x\ud800y", "\udc00", "ok\ud83e"}) {
      assertThatThrownBy(() -> ObjectId.name(bad))
          .as(bad)
          .isInstanceOf(ApiException.class)
          .extracting(e -> ((ApiException) e).errorCode())
          .isEqualTo(ErrorCode.INVALID_INPUT);
    }
  }
}
