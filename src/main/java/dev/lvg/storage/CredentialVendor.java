package dev.lvg.storage;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.http.DependencyException;
import dev.lvg.http.Json;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sts.StsAsyncClient;
import software.amazon.awssdk.services.sts.StsAsyncClientBuilder;
import software.amazon.awssdk.services.sts.model.Credentials;

/**
 * Short-lived S3 credentials for one table, from STS {@code AssumeRole} with a session policy that
 * allows nothing outside the table's prefix: reading gets {@code s3:GetObject} under it and {@code
 * s3:ListBucket} for keys under it; writing also {@code s3:PutObject}, {@code s3:DeleteObject} and
 * {@code s3:AbortMultipartUpload} under it. Credentials are kept per (tenant, location, right) and
 * handed out again until a quarter of their life is left, so STS is not asked on every describe;
 * writers are told to refresh when a tenth is left.
 */
public final class CredentialVendor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CredentialVendor.class);

  /** What one vend hands a writer, and until when the gateway hands it out again. */
  public record Vended(Map<String, String> options, long expiresAtMillis, long reuseUntilMillis) {}

  /** The role assumed, for how long, to reach which bucket. */
  record Role(String arn, int seconds, String bucket) {}

  private final Vertx vertx;
  private final StsAsyncClient sts;
  private final Role role;
  private final Clock clock;
  private final Map<String, Future<Vended>> cache = new ConcurrentHashMap<>();

  CredentialVendor(Vertx vertx, StsAsyncClient sts, Role role, Clock clock) {
    this.vertx = vertx;
    this.sts = sts;
    this.role = role;
    this.clock = clock;
  }

  /**
   * The vendor for {@code root}, or {@code null} when writers get no vended credentials there (a
   * local root, or S3 without a role); logs which, and warns when the gateway's own keys are
   * shared. An STS call that has not answered within {@code timeoutMillis} (retries included)
   * fails.
   */
  public static CredentialVendor forRoot(
      Vertx vertx, S3Settings s3, StorageRoot root, Clock clock, long timeoutMillis) {
    if (root.isLocal()) {
      LOG.info("writers reach tables on the local file system; no credentials are vended");
      return null;
    }
    if (s3.vends()) {
      LOG.info(
          "writers get S3 credentials vended through STS, scoped to one table, for {} s",
          s3.vendedSeconds());
      return create(vertx, s3, root, clock, timeoutMillis);
    }
    if (s3.shareStaticKeys() && s3.accessKeyId() != null) {
      LOG.warn(
          "LVG_S3_SHARE_STATIC_KEYS=true: every writer of every tenant gets the gateway's own S3"
              + " keys; only for a gateway that serves a single tenant");
    } else {
      LOG.info(
          "writers get no S3 credentials from the gateway (set LVG_STS_ROLE_ARN to vend them)");
    }
    return null;
  }

  private static CredentialVendor create(
      Vertx vertx, S3Settings s3, StorageRoot root, Clock clock, long timeoutMillis) {
    StsAsyncClientBuilder builder =
        StsAsyncClient.builder()
            .region(Region.of(s3.region()))
            .overrideConfiguration(
                override -> override.apiCallTimeout(Duration.ofMillis(timeoutMillis)));
    String endpoint = s3.stsEndpoint() != null ? s3.stsEndpoint() : s3.endpoint();
    if (endpoint != null) {
      builder.endpointOverride(URI.create(endpoint));
    }
    if (s3.accessKeyId() != null) {
      builder.credentialsProvider(
          StaticCredentialsProvider.create(
              AwsBasicCredentials.create(s3.accessKeyId(), s3.secretAccessKey())));
    }
    return new CredentialVendor(
        vertx, builder.build(), new Role(s3.roleArn(), s3.vendedSeconds(), root.bucket()), clock);
  }

  /**
   * Credentials for the table whose objects lie under {@code prefix} (a key in the bucket, without
   * a trailing slash), for reading or also writing.
   */
  public Future<Vended> vend(String tenant, String prefix, boolean write) {
    String key = tenant + '\n' + prefix + '\n' + write;
    long now = clock.millis();
    Future<Vended> cached = cache.get(key);
    if (cached != null && (!cached.isComplete() || cached.result().reuseUntilMillis() > now)) {
      return onCallersContext(cached);
    }
    Future<Vended> fresh = assume(tenant, prefix, write);
    cache.put(key, fresh);
    fresh.onFailure(failure -> cache.remove(key, fresh));
    return fresh;
  }

  /**
   * {@code shared}, answered on the caller's context: a call still running was started by a request
   * on another event loop, and its answer must not run this request's work there.
   */
  private static Future<Vended> onCallersContext(Future<Vended> shared) {
    Context caller = Vertx.currentContext();
    if (caller == null || shared.isComplete()) {
      return shared;
    }
    Promise<Vended> answer = Promise.promise();
    shared.onComplete(result -> caller.runOnContext(ignored -> answer.handle(result)));
    return answer.future();
  }

  private Future<Vended> assume(String tenant, String prefix, boolean write) {
    String policy = sessionPolicy(role.bucket(), prefix, write);
    return Future.fromCompletionStage(
            sts.assumeRole(
                request ->
                    request
                        .roleArn(role.arn())
                        .roleSessionName(sessionName(tenant))
                        .durationSeconds(role.seconds())
                        .policy(policy)),
            vertx.getOrCreateContext())
        .recover(
            failure ->
                Future.failedFuture(
                    new DependencyException(
                        "credential service (STS)",
                        "AssumeRole for " + prefix + " failed: " + failure.getMessage(),
                        failure)))
        .map(response -> vended(response.credentials()));
  }

  private Vended vended(Credentials credentials) {
    long expires = credentials.expiration().toEpochMilli();
    long life = role.seconds() * 1000L;
    long refreshOffset = life / 10;
    return new Vended(
        Map.of(
            "aws_access_key_id", credentials.accessKeyId(),
            "aws_secret_access_key", credentials.secretAccessKey(),
            "aws_session_token", credentials.sessionToken(),
            "expires_at_millis", Long.toString(expires),
            "refresh_offset_millis", Long.toString(refreshOffset)),
        expires,
        expires - life / 4);
  }

  /** STS session names allow {@code [\w+=,.@-]}, 2 to 64 characters. */
  static String sessionName(String tenant) {
    String cleaned = tenant.replaceAll("[^\\w+=,.@-]", "_");
    String name = "lvg-" + cleaned;
    return name.length() > 64 ? name.substring(0, 64) : name;
  }

  /**
   * The session policy, as compact JSON (some S3-compatible STS services refuse white space): the
   * table's prefix and nothing else.
   */
  static String sessionPolicy(String bucket, String prefix, boolean write) {
    String objects = "arn:aws:s3:::" + bucket + "/" + prefix + "/*";
    ObjectNode policy = Json.object().put("Version", "2012-10-17");
    ArrayNode statements = policy.putArray("Statement");
    ObjectNode read = statements.addObject().put("Effect", "Allow");
    read.putArray("Action").add("s3:GetObject");
    read.putArray("Resource").add(objects);
    ObjectNode list = statements.addObject().put("Effect", "Allow");
    list.putArray("Action").add("s3:ListBucket");
    list.putArray("Resource").add("arn:aws:s3:::" + bucket);
    list.putObject("Condition")
        .putObject("StringLike")
        .putArray("s3:prefix")
        .add(prefix + "/*")
        .add(prefix + "/");
    if (write) {
      ObjectNode change = statements.addObject().put("Effect", "Allow");
      change
          .putArray("Action")
          .add("s3:PutObject")
          .add("s3:DeleteObject")
          .add("s3:AbortMultipartUpload");
      change.putArray("Resource").add(objects);
    }
    return policy.toString();
  }

  @Override
  public void close() {
    sts.close();
  }
}
