package dev.lvg;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.concurrent.EventExecutor;
import io.vertx.core.internal.VertxInternal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The management port is served apart from the API's event loops. */
class ManagementLoopIT {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private static HttpRequest get(String url) {
    return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build();
  }

  @Test
  void probesAndScrapesAreAnsweredWhileEveryApiEventLoopIsBusy() throws Exception {
    TestGateway gw =
        TestGateway.dedicated(Map.of("LVG_DB_URL", TestGateway.shared().databaseUrl()));
    try {
      CountDownLatch release = new CountDownLatch(1);
      CountDownLatch busy = new CountDownLatch(gw.config.httpInstances());
      for (EventExecutor loop : ((VertxInternal) gw.gateway.apiVertx()).nettyEventLoopGroup()) {
        loop.execute(
            () -> {
              busy.countDown();
              try {
                release.await(60, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
      }
      CompletableFuture<HttpResponse<String>> api;
      try {
        assertThat(busy.await(10, TimeUnit.SECONDS)).isTrue();
        api =
            HTTP.sendAsync(
                HttpRequest.newBuilder(URI.create(gw.baseUrl + "/v1/namespace/x/list"))
                    .timeout(Duration.ofSeconds(60))
                    .GET()
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> ready =
            HTTP.send(
                get(gw.managementUrl + "/health/ready"), HttpResponse.BodyHandlers.ofString());
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(ready.body()).contains("UP");
        HttpResponse<String> live =
            HTTP.send(get(gw.managementUrl + "/health/live"), HttpResponse.BodyHandlers.ofString());
        assertThat(live.statusCode()).isEqualTo(200);
        HttpResponse<String> metrics =
            HTTP.send(get(gw.managementUrl + "/metrics"), HttpResponse.BodyHandlers.ofString());
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("lvg_admission_limit");
        assertThat(api).as("the API's event loops were still busy all along").isNotDone();
      } finally {
        release.countDown();
      }
      assertThat(api.get(10, TimeUnit.SECONDS).statusCode())
          .as("and answer once they are free")
          .isEqualTo(401);
    } finally {
      gw.gateway.close();
    }
  }
}
