package dev.lvg.storage;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.http.Json;
import org.junit.jupiter.api.Test;

class CredentialVendorTest {
  private static JsonNode policy(boolean write) throws Exception {
    String text = CredentialVendor.sessionPolicy("bucket", "tables/acme/ns/t.lance", write);
    assertThat(text).as("compact JSON: some STS services refuse white space").doesNotContain(" ");
    return Json.MAPPER.readTree(text);
  }

  @Test
  void aReadPolicyGetsAndListsUnderTheTablesPrefixOnly() throws Exception {
    JsonNode statements = policy(false).get("Statement");
    assertThat(statements).hasSize(2);
    assertThat(statements.get(0).get("Action").toString()).isEqualTo("[\"s3:GetObject\"]");
    assertThat(statements.get(0).get("Resource").toString())
        .isEqualTo("[\"arn:aws:s3:::bucket/tables/acme/ns/t.lance/*\"]");
    assertThat(statements.get(1).get("Action").toString()).isEqualTo("[\"s3:ListBucket\"]");
    assertThat(statements.get(1).get("Resource").toString()).isEqualTo("[\"arn:aws:s3:::bucket\"]");
    assertThat(statements.get(1).get("Condition").get("StringLike").get("s3:prefix").toString())
        .isEqualTo("[\"tables/acme/ns/t.lance/*\",\"tables/acme/ns/t.lance/\"]");
  }

  @Test
  void aWritePolicyAlsoPutsAndDeletesUnderThePrefixOnly() throws Exception {
    JsonNode statements = policy(true).get("Statement");
    assertThat(statements).hasSize(3);
    assertThat(statements.get(2).get("Action").toString())
        .isEqualTo("[\"s3:PutObject\",\"s3:DeleteObject\",\"s3:AbortMultipartUpload\"]");
    assertThat(statements.get(2).get("Resource").toString())
        .isEqualTo("[\"arn:aws:s3:::bucket/tables/acme/ns/t.lance/*\"]");
  }

  @Test
  void sessionNamesKeepToTheCharactersAndLengthStsAllows() {
    assertThat(CredentialVendor.sessionName("acme")).isEqualTo("lvg-acme");
    assertThat(CredentialVendor.sessionName("café team")).isEqualTo("lvg-caf__team");
    assertThat(CredentialVendor.sessionName("x".repeat(100))).hasSize(64);
  }
}
