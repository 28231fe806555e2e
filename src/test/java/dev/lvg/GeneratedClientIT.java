package dev.lvg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lance.namespace.client.apache.ApiClient;
import org.lance.namespace.client.apache.ApiException;
import org.lance.namespace.client.apache.api.NamespaceApi;
import org.lance.namespace.client.apache.api.TableApi;
import org.lance.namespace.model.CreateNamespaceRequest;
import org.lance.namespace.model.CreateTableVersionRequest;
import org.lance.namespace.model.CreateTableVersionResponse;
import org.lance.namespace.model.DeclareTableRequest;
import org.lance.namespace.model.DeclareTableResponse;
import org.lance.namespace.model.DescribeTableVersionRequest;
import org.lance.namespace.model.ListTableVersionsResponse;
import org.lance.namespace.model.TableVersion;

/** The generated Java client of the Lance Namespace spec drives a commit against the gateway. */
class GeneratedClientIT {

  @Test
  void createsNamespaceDeclaresCommitsListsAndDescribes() throws Exception {
    TestGateway gw = TestGateway.shared();
    ApiClient client = new ApiClient().setBasePath(gw.baseUrl);
    client.addDefaultHeader("x-api-key", gw.newTenant("genclient"));
    NamespaceApi namespaces = new NamespaceApi(client);
    TableApi tables = new TableApi(client);

    namespaces.createNamespace("ns1", new CreateNamespaceRequest(), null);
    DeclareTableRequest declare = new DeclareTableRequest();
    declare.setId(List.of("ns1", "tbl"));
    DeclareTableResponse declared = tables.declareTable("ns1$tbl", declare, null);
    assertThat(declared.getManagedVersioning()).isTrue();
    assertThat(declared.getLocation()).endsWith("/ns1/tbl.lance");

    CreateTableVersionRequest first =
        version(1, "data/ns1/tbl.lance/_versions/1.manifest-staging-uuid");
    first.seteTag("etag-1");
    first.setMetadata(Map.of("k", "v"));
    CreateTableVersionResponse created = tables.createTableVersion("ns1$tbl", first, null);
    assertThat(created.getVersion().getVersion()).isEqualTo(1L);
    assertThat(created.getVersion().geteTag()).isEqualTo("etag-1");
    assertThat(created.getVersion().getTimestampMillis()).isPositive();

    CreateTableVersionRequest second = version(2, "x/2.manifest");
    second.setId(List.of());
    assertThat(tables.createTableVersion("ns1.tbl", second, ".").getVersion().getVersion())
        .isEqualTo(2L);

    ListTableVersionsResponse latest = tables.listTableVersions("ns1$tbl", null, null, 1, true);
    assertThat(latest.getVersions()).extracting(TableVersion::getVersion).containsExactly(2L);
    ListTableVersionsResponse all = tables.listTableVersions("ns1$tbl", null, null, 10, false);
    assertThat(all.getVersions()).extracting(TableVersion::getVersion).containsExactly(1L, 2L);
    assertThat(all.getPageToken()).isNull();

    DescribeTableVersionRequest describe = new DescribeTableVersionRequest();
    describe.setVersion(1L);
    TableVersion described = tables.describeTableVersion("ns1$tbl", describe, null).getVersion();
    assertThat(described.getManifestPath())
        .isEqualTo("data/ns1/tbl.lance/_versions/1.manifest-staging-uuid");
    assertThat(described.getMetadata()).containsEntry("k", "v");

    ApiException conflict =
        catchThrowableOfType(
            ApiException.class,
            () -> tables.createTableVersion("ns1$tbl", version(2, "y/2.manifest"), null));
    assertThat(conflict.getCode()).isEqualTo(409);
    JsonNode error = new ObjectMapper().readTree(conflict.getResponseBody());
    assertThat(error.get("code").intValue()).isEqualTo(14);
  }

  private static CreateTableVersionRequest version(long version, String path) {
    CreateTableVersionRequest request = new CreateTableVersionRequest();
    request.setVersion(version);
    request.setManifestPath(path);
    request.setManifestSize(123L);
    request.setNamingScheme("V2");
    return request;
  }
}
