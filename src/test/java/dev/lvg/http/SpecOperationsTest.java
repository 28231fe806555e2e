package dev.lvg.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SpecOperationsTest {
  @Test
  void everyOperationOfTheSpecIsKnown() {
    assertThat(SpecOperations.all()).hasSize(54);
    assertThat(SpecOperations.all().stream().map(SpecOperations.Operation::id))
        .doesNotHaveDuplicates()
        .contains("CreateTableVersion", "QueryTable", "DescribeTransaction");
  }

  @Test
  void requestsAreMatchedToTheirOperation() {
    assertThat(SpecOperations.of("POST", "/v1/table/ns%24t/query"))
        .hasValueSatisfying(op -> assertThat(op.id()).isEqualTo("QueryTable"));
    assertThat(SpecOperations.of("POST", "/v1/table/t/index/by_id/stats"))
        .hasValueSatisfying(op -> assertThat(op.id()).isEqualTo("DescribeTableIndexStats"));
    assertThat(SpecOperations.of("POST", "/v1/table/ns$t/tags/list"))
        .hasValueSatisfying(op -> assertThat(op.id()).isEqualTo("ListTableTags"));
    assertThat(SpecOperations.of("GET", "/v1/table"))
        .hasValueSatisfying(op -> assertThat(op.id()).isEqualTo("ListAllTables"));
    assertThat(SpecOperations.of("GET", "/v1/table/ns%24t/query")).isEmpty();
    assertThat(SpecOperations.of("POST", "/v1/table/a/b/query")).isEmpty();
    assertThat(SpecOperations.of("POST", "/v2/table/t/query")).isEmpty();
  }

  @Test
  void refusalsNameTheOperationAndSayWhyForDataPlaneOnes() {
    assertThat(SpecOperations.refusal("POST", "/v1/table/t/insert"))
        .startsWith("InsertIntoTable (POST /v1/table/{id}/insert) is not served")
        .contains("data-plane");
    assertThat(SpecOperations.refusal("POST", "/v1/table/t/tags/create"))
        .isEqualTo(
            "CreateTableTag (POST /v1/table/{id}/tags/create) is not served by this gateway");
    assertThat(SpecOperations.refusal("POST", "/v1/nothing"))
        .isEqualTo("no such operation: POST /v1/nothing");
  }
}
