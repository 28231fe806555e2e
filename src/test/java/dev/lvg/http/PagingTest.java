package dev.lvg.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    assertThat(Paging.decodeLong(Paging.encode("42"))).isEqualTo(42L);
    assertThat(Paging.decode(null)).isNull();
    assertThatThrownBy(() -> Paging.decode("not base64!")).isInstanceOf(ApiException.class);
    assertThatThrownBy(() -> Paging.decode("aGVsbG8")).isInstanceOf(ApiException.class);
    assertThatThrownBy(() -> Paging.decodeLong(Paging.encode("x")))
        .isInstanceOf(ApiException.class);
  }
}
