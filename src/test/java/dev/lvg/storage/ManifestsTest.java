package dev.lvg.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lvg.http.ApiException;
import org.junit.jupiter.api.Test;

class ManifestsTest {
  private final ObjectStore files = new LocalFileStore(null);
  private final StorageRoot root = StorageRoot.parse("file:///data");
  private final Manifests manifests = new Manifests(root, files, true);

  @Test
  void finalNamesFollowTheNamingScheme() {
    assertThat(Manifests.finalName(1, "V2")).isEqualTo("18446744073709551614.manifest");
    assertThat(Manifests.finalName(0, "V2")).isEqualTo("18446744073709551615.manifest");
    assertThat(Manifests.finalName(Long.MAX_VALUE, "V2"))
        .isEqualTo("09223372036854775808.manifest");
    assertThat(Manifests.finalName(7, "V1")).isEqualTo("7.manifest");
    assertThat(Manifests.schemeOf("18446744073709551614.manifest-3f2a")).isEqualTo("V2");
    assertThat(Manifests.schemeOf("7.manifest-3f2a")).isEqualTo("V1");
  }

  @Test
  void targetsKeepTheClientsPathForm() {
    Manifests.Target target =
        manifests.target("/data/t/ns/e.lance", "data/t/ns/e.lance/_versions/x-1", "main", 1, "V2");
    assertThat(target.stagingKey()).isEqualTo("/data/t/ns/e.lance/_versions/x-1");
    assertThat(target.finalKey())
        .isEqualTo("/data/t/ns/e.lance/_versions/18446744073709551614.manifest");
    assertThat(target.clientFinalPath())
        .isEqualTo("data/t/ns/e.lance/_versions/18446744073709551614.manifest");
    Manifests.Target absolute =
        manifests.target("/data/e.lance", "/data/e.lance/_versions/x", "main", 3, "V1");
    assertThat(absolute.clientFinalPath()).isEqualTo("/data/e.lance/_versions/3.manifest");
    Manifests.Target branch =
        manifests.target("/data/e.lance", "data/e.lance/tree/dev/_versions/x", "dev", 3, "V1");
    assertThat(branch.finalKey()).isEqualTo("/data/e.lance/tree/dev/_versions/3.manifest");
  }

  @Test
  void recordModeAndOtherBackendsTouchNoStorage() {
    assertThat(
            new Manifests(root, files, false)
                .target("/data/e.lance", "data/e.lance/_versions/x", "main", 1, "V1"))
        .isNull();
    assertThat(manifests.target("s3://bucket/e.lance", "e.lance/_versions/x", "main", 1, "V1"))
        .isNull();
  }

  @Test
  void pathsOutsideTheTablesVersionsAreRejected() {
    for (String bad :
        new String[] {
          "data/other.lance/_versions/x",
          "data/e.lance/../e.lance/_versions/x",
          "data/e.lance/_versions",
          "data/e.lance/_versions/a/b",
          "data/e.lance/data/x",
          "data/e.lance/tree/_versions",
          "file:///data/e.lance/_versions/x",
          "data\\\\e.lance\\\\_versions\\\\x",
          "data/e.lance//_versions/x"
        }) {
      assertThatThrownBy(() -> manifests.target("/data/e.lance", bad, "main", 1, "V1"))
          .as(bad)
          .isInstanceOf(ApiException.class);
    }
  }
}
