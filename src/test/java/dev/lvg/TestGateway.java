package dev.lvg;

import dev.lvg.config.GatewayConfig;
import dev.lvg.tenancy.Tenant;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A real gateway on ports it picks itself (port 0) for the tests: an embedded PostgreSQL by
 * default, or the server named by {@code LVG_TEST_DB_URL}. One shared instance serves every test
 * class; each test makes its own tenants so tests never see each other's data, also on a reused
 * external database.
 */
public final class TestGateway {
  private static TestGateway shared;

  public final Gateway gateway;
  public final GatewayConfig config;
  public final String baseUrl;

  /** Where the admin API is served: the API port, unless a test gives it a listener of its own. */
  public final String adminUrl;

  public final String managementUrl;

  private TestGateway(Map<String, String> overrides) {
    this(overrides, java.time.Clock.systemUTC());
  }

  private TestGateway(Map<String, String> overrides, java.time.Clock clock) {
    Map<String, String> settings = new HashMap<>();
    settings.put("LVG_HOST", "127.0.0.1");
    settings.put("LVG_PORT", "0");
    settings.put("LVG_MANAGEMENT_PORT", "0");
    settings.put("LVG_DATA_DIR", tempDir().toString());
    settings.put("LVG_MANIFEST_MODE", "record");
    // Race tests send bursts far above the default admission limit: they should wait for a slot,
    // not be shed (tests of shedding set their own limits).
    settings.put("LVG_ADMISSION_MAX_WAIT_MS", "30000");
    settings.put("LVG_ADMISSION_MIN_LIMIT", "64");
    settings.put("LVG_ADMISSION_INITIAL_LIMIT", "64");
    // Every test gateway shares one database: only the webhook tests' own gateways deliver, with
    // their own settings.
    settings.put("LVG_WEBHOOK_DELIVER", "false");
    // Test gateways listen on loopback only, so the admin API is served beside the API there, on
    // one port; AdminListenerIT checks the listener of its own.
    settings.put("LVG_ADMIN_LISTENER", "api");
    settings.put("LVG_ADMIN_PORT", "0");
    String external = System.getenv("LVG_TEST_DB_URL");
    if (external != null && !external.isBlank()) {
      settings.put("LVG_DB_URL", external);
    }
    settings.putAll(overrides);
    config = GatewayConfig.fromSettings(settings);
    gateway = Gateway.start(config, clock);
    baseUrl = "http://127.0.0.1:" + gateway.apiPort();
    managementUrl = "http://127.0.0.1:" + gateway.managementPort();
    adminUrl = "http://127.0.0.1:" + gateway.adminPort();
  }

  /** The gateway most tests share, started on first use and stopped when the JVM exits. */
  public static synchronized TestGateway shared() {
    if (shared == null) {
      shared = new TestGateway(Map.of());
      Runtime.getRuntime().addShutdownHook(new Thread(shared.gateway::close));
    }
    return shared;
  }

  private static TestGateway finalizing;

  /**
   * A gateway that finalizes manifests on the local file system (the default configuration), on the
   * shared gateway's database; started on first use.
   */
  public static synchronized TestGateway finalizing() {
    if (finalizing == null) {
      finalizing =
          new TestGateway(
              Map.of("LVG_MANIFEST_MODE", "finalize", "LVG_DB_URL", shared().databaseUrl()));
      Runtime.getRuntime().addShutdownHook(new Thread(finalizing.gateway::close));
    }
    return finalizing;
  }

  /**
   * A JDBC connection to the gateway's database, for tests that stage states no request can make.
   */
  public java.sql.Connection jdbc() throws java.sql.SQLException {
    var options = io.vertx.pgclient.PgConnectOptions.fromUri(databaseUrl());
    var properties = new java.util.Properties();
    properties.setProperty("user", options.getUser());
    if (options.getPassword() != null && !options.getPassword().isEmpty()) {
      properties.setProperty("password", options.getPassword());
    }
    return java.sql.DriverManager.getConnection(
        "jdbc:postgresql://"
            + options.getHost()
            + ":"
            + options.getPort()
            + "/"
            + options.getDatabase(),
        properties);
  }

  /** A gateway of its own with some settings changed; the caller closes it. */
  public static TestGateway dedicated(Map<String, String> overrides) {
    return new TestGateway(overrides);
  }

  /** A gateway of its own that judges vended credentials' age by {@code clock}. */
  public static TestGateway dedicated(Map<String, String> overrides, java.time.Clock clock) {
    return new TestGateway(overrides, clock);
  }

  /** A new tenant with a new API key; returns the key. */
  public String newTenant(String prefix) {
    return tenantWithKey(prefix + "-" + UUID.randomUUID().toString().substring(0, 8));
  }

  /** Makes sure the tenant {@code name} exists with a new API key; returns the key. */
  public String tenantWithKey(String name) {
    String key = "key-" + UUID.randomUUID();
    try {
      Tenant tenant =
          gateway
              .tenants()
              .ensureTenantWithKey(name, key)
              .toCompletionStage()
              .toCompletableFuture()
              .get(30, TimeUnit.SECONDS);
      if (!tenant.name().equals(name)) {
        throw new IllegalStateException("tenant " + name + " was not created");
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return key;
  }

  /** A new key of the existing tenant {@code name} with the read right alone; returns it. */
  public String readKey(String name) throws java.sql.SQLException {
    String key = "reader-" + UUID.randomUUID();
    try (java.sql.Connection db = jdbc();
        java.sql.PreparedStatement insert =
            db.prepareStatement(
                "INSERT INTO api_keys (key_hash, tenant_id, key_id, scopes)"
                    + " SELECT ?, id, ?, '{read}' FROM tenants WHERE name = ?")) {
      insert.setString(1, dev.lvg.tenancy.KeyDigest.hash(key));
      insert.setString(2, "k_" + key.substring(7, 31).replace("-", ""));
      insert.setString(3, name);
      if (insert.executeUpdate() != 1) {
        throw new IllegalStateException("no tenant " + name);
      }
    }
    return key;
  }

  /** The PostgreSQL URL this gateway uses, embedded or external. */
  public String databaseUrl() {
    return gateway.embeddedDatabase() != null ? gateway.embeddedDatabase().url() : config.dbUrl();
  }

  public Api api(String apiKey) {
    return new Api(baseUrl, apiKey);
  }

  private static Path tempDir() {
    try {
      return Files.createTempDirectory("lvg-test-");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
