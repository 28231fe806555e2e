package dev.lvg.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lvg.http.ApiException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StorageRootTest {
  private final StorageRoot files = StorageRoot.parse("file:///srv/lance/");
  private final StorageRoot bucket = StorageRoot.parse("s3://tables/prod");

  @Test
  void theRootsShapeIsKnownInOnePlace() {
    assertThat(files.uri()).isEqualTo("file:///srv/lance");
    assertThat(files.isLocal()).isTrue();
    assertThat(files.bucket()).isNull();
    assertThat(files.tenantPrefix("acme")).isEqualTo("/srv/lance/acme");
    assertThat(files.keyOf("/srv/lance/acme/t.lance")).isEqualTo("/srv/lance/acme/t.lance");
    assertThat(files.locationForm("file:///srv/lance/acme/t.lance"))
        .isEqualTo("/srv/lance/acme/t.lance");
    assertThat(files.manifestKey("srv/x/_versions/1")).isEqualTo("/srv/x/_versions/1");
    assertThat(files.inFormOf("/srv/x/_versions/1.manifest", "srv/x/_versions/1"))
        .isEqualTo("srv/x/_versions/1.manifest");

    assertThat(bucket.bucket()).isEqualTo("tables");
    assertThat(bucket.tenantPrefix("acme")).isEqualTo("s3://tables/prod/acme");
    assertThat(bucket.keyOf("s3://tables/prod/acme/t.lance")).isEqualTo("prod/acme/t.lance");
    assertThat(bucket.keyOf("s3://elsewhere/t.lance")).isNull();
    assertThat(bucket.contains("s3://tables/prod/acme/t.lance")).isTrue();
    assertThat(bucket.contains("s3://tables/production/t.lance")).isFalse();
    assertThatThrownBy(() -> bucket.manifestKey("/prod/acme/t.lance/_versions/1"))
        .isInstanceOf(ApiException.class);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"relative/path", "s3:///nobucket", "file://relative", "ftp://host/x", "::"})
  void badRootsAreRefusedWithAReason(String root) {
    assertThatThrownBy(() -> StorageRoot.parse(root)).isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/srv/t.lance",
        "/srv/t.lance/",
        "/srv/t.lancex/a",
        "/srv/t.lance/../other.lance/a",
        "/srv/t.lance/a/../../x",
        "/srv/t.lance/./a",
        "/srv/t.lance//a",
        "/srv/t.lance/a/",
        "/srv/other.lance/a",
        "/srv",
        "srv/t.lance/a"
      })
  void pathsThatClimbOutOrAreNotInsideAreRefused(String path) {
    assertThatThrownBy(() -> StorageRoot.requireInside("/srv/t.lance", path, "'x'"))
        .isInstanceOf(ApiException.class)
        .hasMessageStartingWith("'x'");
  }

  @Test
  void pathsInsideAreAcceptedAndTheRemainderReturned() {
    assertThat(StorageRoot.requireInside("/srv/t.lance", "/srv/t.lance/_versions/1", "'x'"))
        .isEqualTo("_versions/1");
    assertThat(StorageRoot.requireInside("/srv/t.lance", "/srv/t.lance/..a/b..", "'x'"))
        .isEqualTo("..a/b..");
  }
}
