package dev.lvg.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

class PagingTest {
  private final Paging paging = new Paging(100, 1000);

  @Test
  void limitDefaultsAndClamps() {
    assertThat(paging.limit((Long) null)).isEqualTo(100);
    assertThat(paging.limit(7L)).isEqualTo(7);
    assertThat(paging.limit(5000L)).isEqualTo(1000);
    assertThatThrownBy(() -> paging.limit(0L)).isInstanceOf(ApiException.class);
  }

  @Test
  void tokensRoundTripAndForeignTokensAreRejected() {
    assertThat(Paging.decode(Paging.encode("table-9"))).isEqualTo("table-9");
    assertThat(Paging.longKey(Paging.decode(Paging.encode("42")))).isEqualTo(42L);
    assertThat(Paging.longKey(null)).isNull();
    assertThat(Paging.decode(null)).isNull();
    assertThatThrownBy(() -> Paging.decode("not base64!")).isInstanceOf(ApiException.class);
    assertThatThrownBy(() -> Paging.decode("aGVsbG8")).isInstanceOf(ApiException.class);
    assertThatThrownBy(() -> Paging.longKey(Paging.decode(Paging.encode("x"))))
        .isInstanceOf(ApiException.class);
  }

  @Test
  void aReadOfOneMoreThanAPageShowsThePageAndATokenAfterItsLast() {
    List<String> fetched = List.of("a", "b", "c");
    assertThat(Paging.shown(fetched, 2)).containsExactly("a", "b");
    ObjectNode more = Paging.withToken(Json.object(), fetched, 2, name -> name);
    assertThat(Paging.decode(more.get("page_token").asText())).isEqualTo("b");
    assertThat(Paging.shown(fetched, 3)).containsExactly("a", "b", "c");
    assertThat(Paging.withToken(Json.object(), fetched, 3, name -> name).has("page_token"))
        .as("the last page has no token")
        .isFalse();
  }
}
