package dev.lvg.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GatewayConfigTest {

  @Test
  void defaultsMatchTheDocumentedInterface() {
    GatewayConfig config = GatewayConfig.fromSettings(Map.of());
    assertThat(config.port()).isEqualTo(2333);
    assertThat(config.managementPort()).isEqualTo(2334);
    assertThat(config.embeddedDatabase()).isTrue();
    assertThat(config.dataDir()).isEqualTo(Path.of("./data").toAbsolutePath().normalize());
    assertThat(config.storageRoot().uri())
        .isEqualTo("file://" + config.dataDir().resolve("tables"));
    assertThat(config.bootstrapTenant()).isNull();
    assertThat(config.admin()).isEqualTo(new AdminListener(true, "127.0.0.1", 2335));
  }

  @Test
  void theOperatorKeyOverPlainHttpOnAReachableAddressIsWarnedAbout() {
    GatewayConfig open =
        GatewayConfig.fromSettings(
            Map.of("LVG_ADMIN_API_KEY", "k", "LVG_ADMIN_LISTENER", "api", "LVG_HOST", "0.0.0.0"));
    String warning = open.admin().clearTextWarning(open);
    assertThat(warning).contains("0.0.0.0").contains("LVG_ADMIN_LISTENER=own");
    for (Map<String, String> safe :
        java.util.List.of(
            Map.of("LVG_ADMIN_API_KEY", "k"),
            Map.of("LVG_ADMIN_API_KEY", "k", "LVG_ADMIN_LISTENER", "api", "LVG_HOST", "127.0.0.1"),
            Map.of("LVG_ADMIN_LISTENER", "api", "LVG_HOST", "0.0.0.0"))) {
      GatewayConfig config = GatewayConfig.fromSettings(safe);
      assertThat(config.admin().clearTextWarning(config)).as(safe.toString()).isNull();
    }
    GatewayConfig reachable =
        GatewayConfig.fromSettings(Map.of("LVG_ADMIN_API_KEY", "k", "LVG_ADMIN_HOST", "10.0.0.5"));
    assertThat(reachable.admin().clearTextWarning(reachable)).contains("10.0.0.5");
  }

  @Test
  void environmentOverridesTheFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("gw.properties");
    Files.writeString(
        file, "LVG_PORT=4000\nLVG_DB_POOL_SIZE=3\nLVG_STORAGE_ROOT=s3://bucket/prefix/\n");
    GatewayConfig config =
        GatewayConfig.load(
            Map.of(
                "LVG_CONFIG",
                file.toString(),
                "LVG_PORT",
                "5000",
                "LVG_DB_URL",
                "postgresql://u:p@h:5432/d",
                "UNRELATED",
                "x"));
    assertThat(config.port()).isEqualTo(5000);
    assertThat(config.dbPoolSize()).isEqualTo(3);
    assertThat(config.storageRoot().uri()).isEqualTo("s3://bucket/prefix");
    assertThat(config.embeddedDatabase()).isFalse();
  }

  @Test
  void badValuesNameTheirKey(@TempDir Path dir) throws Exception {
    assertThatThrownBy(() -> GatewayConfig.fromSettings(Map.of("LVG_PORT", "http")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("LVG_PORT");
    assertThatThrownBy(() -> GatewayConfig.fromSettings(Map.of("LVG_PORT", "70000")))
        .hasMessageContaining("LVG_PORT");
    assertThatThrownBy(() -> GatewayConfig.fromSettings(Map.of("LVG_DB_URL", "mysql://x")))
        .hasMessageContaining("LVG_DB_URL");
    assertThatThrownBy(() -> GatewayConfig.fromSettings(Map.of("LVG_BOOTSTRAP_TENANT", "t")))
        .hasMessageContaining("LVG_BOOTSTRAP_API_KEY");
    assertThatThrownBy(
            () -> GatewayConfig.fromSettings(Map.of("LVG_STORAGE_ROOT", "relative/path")))
        .hasMessageContaining("LVG_STORAGE_ROOT");
    assertThatThrownBy(
            () -> GatewayConfig.load(Map.of("LVG_CONFIG", dir.resolve("missing").toString())))
        .hasMessageContaining("LVG_CONFIG");
    Path file = dir.resolve("typo.properties");
    Files.writeString(file, "LVG_PORT=1\nPORT=2\n");
    assertThatThrownBy(() -> GatewayConfig.load(Map.of("LVG_CONFIG", file.toString())))
        .hasMessageContaining("PORT");
  }

  @Test
  void insideAKubernetesPodTheEmbeddedDatabaseIsAnExplicitChoice() {
    String pod = "KUBERNETES_SERVICE_HOST";
    String config = "LVG_CONFIG";
    String shipped = "k8s/base/gateway.properties";
    assertThatThrownBy(() -> GatewayConfig.load(Map.of(config, shipped, pod, "10.0.0.1")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("LVG_DB_URL is empty")
        .hasMessageContaining("LVG_EMBEDDED_DB=true");
    assertThat(
            GatewayConfig.load(Map.of(config, shipped, pod, "10.0.0.1", "LVG_EMBEDDED_DB", "true"))
                .embeddedDatabase())
        .isTrue();
    assertThat(
            GatewayConfig.load(
                    Map.of(config, shipped, pod, "10.0.0.1", "LVG_DB_URL", "postgresql://db/lvg"))
                .embeddedDatabase())
        .isFalse();
    assertThat(GatewayConfig.load(Map.of(config, shipped)).embeddedDatabase()).isTrue();
    assertThatThrownBy(() -> GatewayConfig.fromSettings(Map.of("LVG_EMBEDDED_DB", "false")))
        .hasMessageContaining("LVG_DB_URL is empty");
  }

  @Test
  void theShippedConfigFileLoads() {
    GatewayConfig config = GatewayConfig.load(Map.of("LVG_CONFIG", "conf/gateway.properties"));
    assertThat(config.port()).isEqualTo(2333);
    assertThat(config.embeddedDatabase()).isTrue();
  }

  @Test
  void secretsComeOnlyFromTheEnvironmentAndNeverPrint(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("secret.properties");
    Files.writeString(file, "LVG_S3_SECRET_ACCESS_KEY=hunter2\n");
    assertThatThrownBy(() -> GatewayConfig.load(Map.of("LVG_CONFIG", file.toString())))
        .hasMessageContaining("LVG_S3_SECRET_ACCESS_KEY")
        .hasMessageNotContaining("hunter2");
    GatewayConfig config =
        GatewayConfig.load(
            Map.of(
                "LVG_STORAGE_ROOT",
                "s3://bucket/root",
                "LVG_S3_ACCESS_KEY_ID",
                "AKIA",
                "LVG_S3_SECRET_ACCESS_KEY",
                "hunter2",
                "LVG_BOOTSTRAP_TENANT",
                "t",
                "LVG_BOOTSTRAP_API_KEY",
                "very-secret-key"));
    assertThat(config.s3().secretAccessKey()).isEqualTo("hunter2");
    assertThat(config.storageRoot().bucket()).isEqualTo("bucket");
    assertThat(config.toString()).doesNotContain("hunter2").doesNotContain("very-secret-key");
  }

  @Test
  void storageSettingsAreValidated() {
    assertThat(GatewayConfig.fromSettings(Map.of()).finalizeManifests()).isTrue();
    assertThat(
            GatewayConfig.fromSettings(Map.of("LVG_MANIFEST_MODE", "record")).finalizeManifests())
        .isFalse();
    assertThatThrownBy(() -> GatewayConfig.fromSettings(Map.of("LVG_MANIFEST_MODE", "sometimes")))
        .hasMessage("LVG_MANIFEST_MODE must be finalize or record, got 'sometimes'");
    assertThat(GatewayConfig.fromSettings(Map.of()).groupSync()).isTrue();
    assertThat(GatewayConfig.fromSettings(Map.of("LVG_STORAGE_SYNC", "file")).groupSync())
        .isFalse();
    assertThatThrownBy(() -> GatewayConfig.fromSettings(Map.of("LVG_STORAGE_SYNC", "never")))
        .hasMessage("LVG_STORAGE_SYNC must be group or file, got 'never'");
    assertThatThrownBy(
            () -> GatewayConfig.fromSettings(Map.of("LVG_STORAGE_ROOT", "s3:///nobucket")))
        .hasMessageContaining("LVG_STORAGE_ROOT");
    assertThat(GatewayConfig.fromSettings(Map.of()).storageRoot().bucket()).isNull();
  }

  @Test
  void admissionAndQuotasAreValidated() {
    GatewayConfig defaults = GatewayConfig.fromSettings(Map.of());
    assertThat(defaults.admission().enabled()).isTrue();
    assertThat(defaults.admission().minLimit())
        .isLessThanOrEqualTo(defaults.admission().initialLimit());
    assertThat(defaults.admission().acceptedLatencyMillis()).isEqualTo(15);
    assertThat(defaults.admission().floorLatencyMillis()).isEqualTo(20);
    assertThat(defaults.tenantQuotas().any()).isFalse();
    GatewayConfig quotas =
        GatewayConfig.fromSettings(Map.of("LVG_TENANT_RATES", "acme=100:200, beta=5"));
    assertThat(quotas.tenantQuotas().overrides())
        .containsEntry("acme", new TenantQuotas.Quota(100, 200))
        .containsEntry("beta", new TenantQuotas.Quota(5, 5));
    assertThatThrownBy(() -> GatewayConfig.fromSettings(Map.of("LVG_TENANT_RATES", "acme")))
        .hasMessageContaining("LVG_TENANT_RATES");
    assertThatThrownBy(
            () ->
                GatewayConfig.fromSettings(
                    Map.of("LVG_ADMISSION_MIN_LIMIT", "64", "LVG_ADMISSION_INITIAL_LIMIT", "8")))
        .hasMessageContaining("LVG_ADMISSION_MIN_LIMIT");
    assertThatThrownBy(() -> GatewayConfig.fromSettings(Map.of("LVG_ADMISSION_TOLERANCE", "x")))
        .hasMessageContaining("LVG_ADMISSION_TOLERANCE");
    assertThatThrownBy(() -> GatewayConfig.fromSettings(Map.of("LVG_ADMISSION_ENABLED", "yes")))
        .hasMessageContaining("LVG_ADMISSION_ENABLED");
  }

  @Test
  void writersGetNoStaticKeysUnlessAskedAndVendingExcludesSharing() {
    GatewayConfig plain =
        GatewayConfig.fromSettings(
            Map.of("LVG_S3_ACCESS_KEY_ID", "AKIA", "LVG_STORAGE_ROOT", "s3://b/p"));
    assertThat(plain.s3().shareStaticKeys()).isFalse();
    assertThat(plain.s3().vends()).isFalse();
    assertThat(plain.s3().vendedSeconds()).isEqualTo(3600);
    assertThatThrownBy(
            () ->
                GatewayConfig.fromSettings(
                    Map.of("LVG_S3_SHARE_STATIC_KEYS", "true", "LVG_STS_ROLE_ARN", "arn:x")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("LVG_S3_SHARE_STATIC_KEYS");
    assertThatThrownBy(
            () -> GatewayConfig.fromSettings(Map.of("LVG_VENDED_CREDENTIALS_SECONDS", "899")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("LVG_VENDED_CREDENTIALS_SECONDS");
    assertThatThrownBy(() -> GatewayConfig.fromSettings(Map.of("LVG_S3_SHARE_STATIC_KEYS", "yes")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("LVG_S3_SHARE_STATIC_KEYS");
  }
}
