package dev.lvg.tenancy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.TestGateway;
import dev.lvg.VertxInstances;
import dev.lvg.db.Database;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Resolving API keys against a real PostgreSQL, with every key lookup the directory sends counted:
 * requests that find nothing remembered share one lookup, a key in steady use is looked up again
 * ahead of its expiry, never under its requests, and one that lookup finds gone or disabled is
 * forgotten at once.
 */
class TenantDirectoryIT {
  private static final long CACHE_NANOS = TimeUnit.SECONDS.toNanos(4);

  private final TestGateway gateway = TestGateway.shared();
  private final AtomicInteger keyLookups = new AtomicInteger();
  private volatile boolean poolBroken;
  private Vertx vertx;
  private Pool pool;
  private TenantDirectory tenants;

  @BeforeEach
  void connect() {
    vertx = Vertx.vertx();
    pool = Database.pool(vertx, gateway.databaseUrl(), "directory-test", 4, 256, 1);
    Pool counted =
        (Pool)
            Proxy.newProxyInstance(
                Pool.class.getClassLoader(),
                new Class<?>[] {Pool.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("preparedQuery")
                      && TenantDirectory.FIND_BY_KEY.equals(args[0])) {
                    keyLookups.incrementAndGet();
                    if (poolBroken) {
                      throw new IllegalStateException("pool closed");
                    }
                  }
                  try {
                    return method.invoke(pool, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    tenants = new TenantDirectory(counted, CACHE_NANOS);
  }

  @AfterEach
  void close() throws Exception {
    VertxInstances.close(vertx);
  }

  @Test
  void requestsThatFindNothingRememberedShareOneLookup() throws Exception {
    String key = gateway.newTenant("shared-lookup");
    List<CompletableFuture<Principal>> answers = new ArrayList<>();
    CompletableFuture<Void> sent = new CompletableFuture<>();
    vertx.runOnContext(
        now -> {
          for (int i = 0; i < 50; i++) {
            answers.add(tenants.authenticate(key).toCompletionStage().toCompletableFuture());
          }
          sent.complete(null);
        });
    sent.get(10, TimeUnit.SECONDS);
    for (CompletableFuture<Principal> answer : answers) {
      assertThat(answer.get(10, TimeUnit.SECONDS)).isNotNull();
    }
    assertThat(keyLookups.get()).isEqualTo(1);
    assertThat(await(tenants.authenticate(key))).isNotNull();
    assertThat(keyLookups.get()).as("then remembered").isEqualTo(1);
  }

  @Test
  void aKeyInSteadyUseIsLookedUpAgainAheadOfItsExpiry() throws Exception {
    String key = gateway.newTenant("refreshed");
    Principal first = await(tenants.authenticate(key));
    assertThat(first).isNotNull();
    assertThat(keyLookups.get()).isEqualTo(1);

    // Past half its time: answered at once from memory, and looked up again meanwhile.
    Thread.sleep(2_200);
    Future<Principal> halfway = tenants.authenticate(key);
    assertThat(halfway.isComplete()).isTrue();
    assertThat(halfway.result()).isEqualTo(first);
    assertThat(keyLookups.get()).isEqualTo(2);
    assertThat(tenants.authenticate(key).isComplete()).isTrue();
    assertThat(keyLookups.get()).as("one request looks it up, not each").isEqualTo(2);

    // Past the first answer's expiry, the second one keeps it answered from memory.
    Thread.sleep(2_200);
    Future<Principal> later = tenants.authenticate(key);
    assertThat(later.isComplete()).isTrue();
    assertThat(later.result()).isEqualTo(first);
  }

  @Test
  void aKeyALookupAgainFindsGoneIsForgottenBeforeItWouldExpire() throws Exception {
    String key = gateway.newTenant("unconfirmed");
    assertThat(await(tenants.authenticate(key))).isNotNull();
    long firstLookup = System.nanoTime();
    // Removed behind the directory's back: no notification tells it.
    behindItsBack("DELETE FROM api_keys WHERE key_hash = ?", KeyDigest.hash(key));
    Thread.sleep(2_200);
    assertThat(tenants.authenticate(key).result())
        .as("remembered, while it looks again")
        .isNotNull();
    assertThat(answerOnceLookedUpAgain(key).result()).as("gone").isNull();
    assertThat(System.nanoTime() - firstLookup).isLessThan(CACHE_NANOS);
  }

  @Test
  void aTenantALookupAgainFindsDisabledIsRefusedBeforeItWouldExpire() throws Exception {
    String key = gateway.newTenant("disabled-later");
    assertThat(await(tenants.authenticate(key))).isNotNull();
    long firstLookup = System.nanoTime();
    behindItsBack(
        "UPDATE tenants SET disabled = true WHERE id = (SELECT tenant_id FROM api_keys"
            + " WHERE key_hash = ?)",
        KeyDigest.hash(key));
    Thread.sleep(2_200);
    assertThat(tenants.authenticate(key).result()).isNotNull();
    Throwable refused = answerOnceLookedUpAgain(key).cause();
    assertThat(refused).isInstanceOf(ApiException.class).hasMessageContaining("is disabled");
    assertThat(((ApiException) refused).errorCode()).isEqualTo(ErrorCode.PERMISSION_DENIED);
    assertThat(System.nanoTime() - firstLookup).isLessThan(CACHE_NANOS);
  }

  private void behindItsBack(String sql, String keyHash) throws Exception {
    try (Connection db = gateway.jdbc();
        PreparedStatement statement = db.prepareStatement(sql)) {
      statement.setString(1, keyHash);
      assertThat(statement.executeUpdate()).isEqualTo(1);
    }
  }

  /**
   * The answer to the first request that did not find the key remembered, after the lookup again of
   * a request just served from memory (the second lookup) has finished.
   */
  private Future<Principal> answerOnceLookedUpAgain(String key) throws Exception {
    assertThat(keyLookups.get()).isEqualTo(2);
    for (int i = 0; i < 100; i++) {
      Future<Principal> answer = tenants.authenticate(key);
      answer
          .toCompletionStage()
          .toCompletableFuture()
          .handle((v, e) -> v)
          .get(10, TimeUnit.SECONDS);
      if (keyLookups.get() > 2) {
        return answer;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("the key stayed remembered after it was looked up again");
  }

  @Test
  void aRefreshThatCannotStartLeavesTheRememberedAnswerInUse() throws Exception {
    String key = gateway.newTenant("unrefreshed");
    Principal first = await(tenants.authenticate(key));
    poolBroken = true;
    Thread.sleep(2_200);
    Future<Principal> served = tenants.authenticate(key);
    assertThat(keyLookups.get()).as("the refresh was tried").isEqualTo(2);
    assertThat(served.result()).isEqualTo(first);
    assertThat(tenants.authenticate(key).result()).isEqualTo(first);
    assertThat(keyLookups.get()).as("and is tried again only a second later").isEqualTo(2);
  }

  private static Principal await(Future<Principal> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
