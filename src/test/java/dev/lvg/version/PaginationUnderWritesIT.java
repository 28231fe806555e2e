package dev.lvg.version;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Keyset pages stay exact while a writer keeps committing new versions. */
class PaginationUnderWritesIT {
  private static final int EXISTING = 2500;
  private static final int MAX_EXTRA = 5000;

  @Test
  void walksSeeEveryExistingVersionOnceInOrderInBothDirections() {
    TestGateway gw = TestGateway.shared();
    Api api = gw.api(gw.newTenant("paging"));
    api.declare("ns", "t");
    for (int start = 1; start <= EXISTING; start += 500) {
      StringBuilder entries = new StringBuilder();
      for (int v = start; v < start + 500; v++) {
        entries
            .append(v == start ? "" : ",")
            .append("{\"id\":[\"ns\",\"t\"],\"version\":")
            .append(v)
            .append(",\"manifest_path\":\"t/")
            .append(v)
            .append("\"}");
      }
      api.post("/v1/table/version/batch-create", "{\"entries\":[" + entries + "]}").assertOk();
    }

    AtomicBoolean walking = new AtomicBoolean(true);
    AtomicLong committed = new AtomicLong();
    CompletableFuture<Void> writer =
        CompletableFuture.runAsync(
            () -> {
              long v = EXISTING + 1;
              while (walking.get() && v <= EXISTING + MAX_EXTRA) {
                api.post("/v1/table/ns%24t/version/create", Api.createBody(v, "t/" + v)).assertOk();
                committed.incrementAndGet();
                v++;
              }
            });
    List<Long> ascending;
    List<Long> descending;
    long committedBefore;
    long committedAfter;
    try {
      committedBefore = committed.get();
      ascending = walk(api, "");
      descending = walk(api, "&descending=true");
      committedAfter = committed.get();
    } finally {
      walking.set(false);
      writer.join();
    }

    assertThat(committedAfter)
        .as("the writer committed versions while the walks ran")
        .isGreaterThan(committedBefore);
    assertThat(ascending).isSorted().doesNotHaveDuplicates();
    assertThat(ascending.stream().filter(v -> v <= EXISTING).toList())
        .hasSize(EXISTING)
        .containsExactlyElementsOf(range(1, EXISTING));
    assertThat(descending)
        .isSortedAccordingTo((a, b) -> Long.compare(b, a))
        .doesNotHaveDuplicates();
    List<Long> existingDescending = descending.stream().filter(v -> v <= EXISTING).toList();
    assertThat(existingDescending).hasSize(EXISTING);
    assertThat(existingDescending.get(0)).isEqualTo(EXISTING);
    assertThat(existingDescending.get(EXISTING - 1)).isEqualTo(1);
  }

  private static List<Long> range(long from, long to) {
    List<Long> result = new ArrayList<>();
    for (long v = from; v <= to; v++) {
      result.add(v);
    }
    return result;
  }

  private static List<Long> walk(Api api, String order) {
    List<Long> seen = new ArrayList<>();
    String token = null;
    int pages = 0;
    do {
      JsonNode page =
          api.post(
                  "/v1/table/ns%24t/version/list?limit=100"
                      + order
                      + (token == null ? "" : "&page_token=" + token),
                  null)
              .assertOk();
      assertThat(page.get("versions").size()).isLessThanOrEqualTo(100);
      page.get("versions").forEach(v -> seen.add(v.get("version").longValue()));
      token = page.has("page_token") ? page.get("page_token").asText() : null;
      pages++;
    } while (token != null && pages < 200);
    assertThat(token).as("the walk ended").isNull();
    return seen;
  }
}
