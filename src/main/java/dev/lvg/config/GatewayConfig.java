package dev.lvg.config;

import dev.lvg.storage.S3Settings;
import dev.lvg.storage.StorageRoot;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Every setting of the gateway, read once at start-up from {@code conf/gateway.properties} (or the
 * file named by {@code LVG_CONFIG}) and overridden by {@code LVG_*} environment variables of the
 * same name.
 */
public record GatewayConfig(
    String host,
    int port,
    int managementPort,
    int httpInstances,
    String dbUrl,
    int dbPoolSize,
    int dbReadPoolSize,
    int dbQueueSize,
    Path dataDir,
    StorageRoot storageRoot,
    boolean groupSync,
    String bootstrapTenant,
    String bootstrapApiKey,
    long maxBodyBytes,
    AdmissionSettings admission,
    int listDefaultLimit,
    int listMaxLimit,
    boolean finalizeManifests,
    S3Settings s3,
    TenantQuotas tenantQuotas,
    OAuth2Settings oauth2,
    int commitBatchSize,
    int commitBatchesInFlight,
    Deadlines deadlines,
    boolean accessLog,
    int dbStartTimeoutSeconds,
    String managementHost,
    String adminApiKey,
    TlsSettings tlsSettings,
    FeedSettings feed,
    boolean console,
    AdminListener admin) {

  /**
   * True when the admin API is on a listener of its own: so configured, and on at all (an operator
   * key or bearer tokens, which may grant the admin scope).
   */
  public boolean adminApart() {
    return admin.own() && (adminApiKey != null || oauth2.enabled());
  }

  /** True when the API port serves TLS (and HTTP/2 through ALPN). */
  public boolean tls() {
    return tlsSettings.on();
  }

  /**
   * Bearer tokens (JWTs) validated locally against the issuer's JWKS; {@code jwksUrl} null means
   * bearer tokens are refused. The tenant is the value of {@code tenantClaim}. With {@code
   * roleClaim} set, what a token may do in its tenant comes from the grants of that claim's values
   * (a string or an array of strings) alone, not from its scopes.
   */
  public record OAuth2Settings(
      String jwksUrl,
      String issuer,
      String audience,
      String tenantClaim,
      String roleClaim,
      String readScope,
      String writeScope,
      String adminScope) {
    public boolean enabled() {
      return jwksUrl != null;
    }
  }

  /** Secrets that may come only from the environment, never from a file. */
  static final Set<String> SECRETS =
      Set.of("LVG_BOOTSTRAP_API_KEY", "LVG_S3_SECRET_ACCESS_KEY", "LVG_ADMIN_API_KEY");

  @Override
  public String toString() {
    return "GatewayConfig[host="
        + host
        + ", port="
        + port
        + ", managementPort="
        + managementPort
        + ", db="
        + (dbUrl == null ? "embedded" : "external")
        + ", dataDir="
        + dataDir
        + ", storageRoot="
        + storageRoot.uri()
        + ", finalizeManifests="
        + finalizeManifests
        + ", s3="
        + s3
        + "]";
  }

  public static final String CONFIG_FILE_VARIABLE = "LVG_CONFIG";

  public static final String DEFAULT_CONFIG_FILE = "conf/gateway.properties";

  /** True when no external database is configured and the gateway runs its own. */
  public boolean embeddedDatabase() {
    return dbUrl == null;
  }

  /** Loads the config file named by the environment (if any) and applies the environment on top. */
  public static GatewayConfig load(Map<String, String> environment) {
    Map<String, String> settings = new HashMap<>();
    String file = environment.get(CONFIG_FILE_VARIABLE);
    Path path = Path.of(file == null || file.isBlank() ? DEFAULT_CONFIG_FILE : file);
    if (Files.isRegularFile(path)) {
      settings.putAll(readProperties(path));
    } else if (file != null && !file.isBlank()) {
      throw new ConfigException(CONFIG_FILE_VARIABLE + ": no such file " + path);
    }
    environment.forEach(
        (key, value) -> {
          if (key.startsWith("LVG_")) {
            settings.put(key, value);
          }
        });
    EmbeddedDatabaseChoice.defaultFor(settings, environment);
    return fromSettings(settings);
  }

  /** Builds and validates the config from {@code LVG_*} keys; absent keys take their defaults. */
  public static GatewayConfig fromSettings(Map<String, String> settings) {
    Settings s = new Settings(settings);
    Path dataDir = Path.of(s.string("LVG_DATA_DIR", "./data")).toAbsolutePath().normalize();
    StorageRoot storageRoot;
    try {
      storageRoot =
          StorageRoot.parse(s.string("LVG_STORAGE_ROOT", "file://" + dataDir.resolve("tables")));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("LVG_STORAGE_ROOT " + e.getMessage());
    }
    String dbUrl = s.string("LVG_DB_URL", "");
    if (!dbUrl.isEmpty()
        && !dbUrl.startsWith("postgresql://")
        && !dbUrl.startsWith("postgres://")) {
      throw new ConfigException("LVG_DB_URL must look like postgresql://user:pass@host:port/db");
    }
    EmbeddedDatabaseChoice.check(dbUrl, s);
    String tenant = s.string("LVG_BOOTSTRAP_TENANT", "");
    String apiKey = s.string("LVG_BOOTSTRAP_API_KEY", "");
    if (tenant.isEmpty() != apiKey.isEmpty()) {
      throw new ConfigException(
          "LVG_BOOTSTRAP_TENANT and LVG_BOOTSTRAP_API_KEY must be set together");
    }
    int listDefault = s.integer("LVG_LIST_DEFAULT_LIMIT", 100, 1, 100_000);
    int listMax = s.integer("LVG_LIST_MAX_LIMIT", 1000, 1, 100_000);
    if (listDefault > listMax) {
      throw new ConfigException("LVG_LIST_DEFAULT_LIMIT must not exceed LVG_LIST_MAX_LIMIT");
    }
    // Read by the logging set-up; checked here so a typo stops the gateway with the others.
    s.choice("LVG_LOG_FORMAT", "text", "json");
    String manifestMode = s.choice("LVG_MANIFEST_MODE", "finalize", "record");
    return new GatewayConfig(
        s.string("LVG_HOST", "0.0.0.0"),
        s.integer("LVG_PORT", 2333, 0, 65535),
        s.integer("LVG_MANAGEMENT_PORT", 2334, 0, 65535),
        s.integer("LVG_HTTP_INSTANCES", Runtime.getRuntime().availableProcessors(), 1, 256),
        dbUrl.isEmpty() ? null : dbUrl,
        s.integer("LVG_DB_POOL_SIZE", 16, 1, 1000),
        s.integer("LVG_DB_READ_POOL_SIZE", 8, 1, 1000),
        s.integer("LVG_DB_QUEUE_SIZE", 1024, 1, 1_000_000),
        dataDir,
        storageRoot,
        s.choice("LVG_STORAGE_SYNC", "group", "file").equals("group"),
        tenant.isEmpty() ? null : tenant,
        apiKey.isEmpty() ? null : apiKey,
        s.integer("LVG_MAX_BODY_BYTES", 1_048_576, 1024, 64 * 1_048_576),
        AdmissionSettings.from(s),
        listDefault,
        listMax,
        manifestMode.equals("finalize"),
        s3(s),
        TenantQuotas.from(s),
        new OAuth2Settings(
            emptyToNull(s.string("LVG_OAUTH2_JWKS_URL", "")),
            emptyToNull(s.string("LVG_OAUTH2_ISSUER", "")),
            s.string("LVG_OAUTH2_AUDIENCE", "lance-version-gateway"),
            s.string("LVG_OAUTH2_TENANT_CLAIM", "tenant"),
            emptyToNull(s.string("LVG_OAUTH2_ROLE_CLAIM", "")),
            s.string("LVG_OAUTH2_READ_SCOPE", "lance:read"),
            s.string("LVG_OAUTH2_WRITE_SCOPE", "lance:write"),
            s.string("LVG_OAUTH2_ADMIN_SCOPE", "lance:admin")),
        s.integer("LVG_COMMIT_BATCH_SIZE", 256, 1, 1000),
        s.integer("LVG_COMMIT_BATCHES_IN_FLIGHT", 1, 1, 256),
        Deadlines.from(s),
        s.bool("LVG_ACCESS_LOG", false),
        s.integer("LVG_DB_START_TIMEOUT_S", 60, 0, 3600),
        s.string("LVG_MANAGEMENT_HOST", s.string("LVG_HOST", "0.0.0.0")),
        emptyToNull(s.string("LVG_ADMIN_API_KEY", "")),
        TlsSettings.from(s),
        FeedSettings.from(s),
        s.bool("LVG_CONSOLE", false),
        AdminListener.from(s));
  }

  private static S3Settings s3(Settings s) {
    boolean share = s.bool("LVG_S3_SHARE_STATIC_KEYS", false);
    String roleArn = emptyToNull(s.string("LVG_STS_ROLE_ARN", ""));
    if (share && roleArn != null) {
      throw new ConfigException(
          "LVG_S3_SHARE_STATIC_KEYS=true and LVG_STS_ROLE_ARN exclude each other: writers get"
              + " either vended credentials or the gateway's own keys");
    }
    return new S3Settings(
        emptyToNull(s.string("LVG_S3_ENDPOINT", "")),
        s.string("LVG_S3_REGION", "us-east-1"),
        Boolean.parseBoolean(s.string("LVG_S3_PATH_STYLE", "false")),
        emptyToNull(s.string("LVG_S3_ACCESS_KEY_ID", "")),
        emptyToNull(s.string("LVG_S3_SECRET_ACCESS_KEY", "")),
        share,
        emptyToNull(s.string("LVG_STS_ENDPOINT", "")),
        roleArn,
        s.integer("LVG_VENDED_CREDENTIALS_SECONDS", 3600, 900, 43_200));
  }

  private static String emptyToNull(String value) {
    return value.isEmpty() ? null : value;
  }

  private static Map<String, String> readProperties(Path path) {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(path)) {
      properties.load(reader);
    } catch (IOException e) {
      throw new ConfigException("cannot read " + path + ": " + e.getMessage());
    }
    Map<String, String> result = new HashMap<>();
    for (String name : properties.stringPropertyNames()) {
      if (!name.startsWith("LVG_")) {
        throw new ConfigException(path + ": unknown key " + name + " (every key starts with LVG_)");
      }
      if (SECRETS.contains(name) && !properties.getProperty(name).isBlank()) {
        throw new ConfigException(
            path + ": " + name + " is a secret; set it in the environment, not in a file");
      }
      result.put(name, properties.getProperty(name).trim());
    }
    return result;
  }
}
