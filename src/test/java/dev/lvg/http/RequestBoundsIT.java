package dev.lvg.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.util.StringJoiner;
import org.junit.jupiter.api.Test;

/**
 * Requests past a bound are refused with 400 code 13 naming the field and the bound, on every
 * surface: the change feed's filters (pulled and tailed), bodies checked against their schema,
 * query parameters, and the commit path's own parser.
 */
class RequestBoundsIT {
  private static String repeated(String text, int times) {
    return text.repeat(times);
  }

  private static String ids(int count) {
    StringJoiner ids = new StringJoiner(",", "[", "]");
    for (int i = 0; i < count; i++) {
      ids.add("[\"ns" + i + "\"]");
    }
    return ids.toString();
  }

  private static void refused(Api.Response response, String... named) {
    response.assertError(400, 13);
    assertThat(response.json().get("error").asText()).contains(named);
  }

  @Test
  void theFeedsFiltersAreBounded() {
    TestGateway gw = TestGateway.shared();
    Api api = gw.api(gw.newTenant("bounds-feed"));
    api.post("/v1/events", "{\"catalog-objects-by-name\":" + ids(100) + "}").assertOk();
    refused(
        api.post("/v1/events", "{\"catalog-objects-by-name\":" + ids(101) + "}"),
        "catalog-objects-by-name",
        "100");
    StringJoiner types = new StringJoiner(",", "[", "]");
    for (int i = 0; i < 33; i++) {
      types.add("\"io.lance.table.version.created\"");
    }
    refused(api.post("/v1/events", "{\"operation-types\":" + types + "}"), "operation-types", "32");
    refused(
        api.post("/v1/events", "{\"continuation-token\":\"" + repeated("7", 65) + "\"}"),
        "continuation-token",
        "64");

    StringBuilder query = new StringBuilder("?");
    for (int i = 0; i < 101; i++) {
      query.append("catalog-object=ns").append(i).append('&');
    }
    refused(api.get("/v1/events/stream" + query), "catalog-object", "100");
    refused(
        api.get(
            "/v1/events/stream?operation-types=" + repeated("io.lance.table.version.created,", 33)),
        "operation-types",
        "32");
  }

  @Test
  void bodiesQueriesAndTheCommitPathAreBounded() {
    TestGateway gw = TestGateway.shared();
    Api api = gw.api(gw.newTenant("bounds-api"));
    api.declare("ns", "t");
    refused(
        api.post(
            "/v1/namespace/big/create",
            "{\"properties\":{\"k\":\"" + repeated("x", Bounds.MAX_STRING + 1) + "\"}}"),
        "properties.k",
        "4096");
    refused(
        api.post(
            "/v1/table/ns%24t/version/list?page_token=" + repeated("x", Bounds.MAX_STRING + 1),
            null),
        "page_token",
        "4096");
    refused(
        api.post(
            "/v1/table/ns%24t/version/create",
            Api.createBody(1, repeated("p", Bounds.MAX_STRING + 1))),
        "manifest_path",
        "4096");
    StringJoiner metadata = new StringJoiner(",", "{", "}");
    for (int i = 0; i <= Bounds.MAX_PROPERTIES; i++) {
      metadata.add("\"k" + i + "\":\"v\"");
    }
    refused(
        api.post(
            "/v1/table/ns%24t/version/create",
            "{\"version\":1,\"manifest_path\":\"t/1\",\"metadata\":" + metadata + "}"),
        "metadata",
        "256");
    api.post("/v1/table/ns%24t/version/create", Api.createBody(1, "t/1")).assertOk();
  }
}
