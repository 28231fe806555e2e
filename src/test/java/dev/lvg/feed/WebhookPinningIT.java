package dev.lvg.feed;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.VertxInstances;
import dev.lvg.http.Json;
import io.vertx.core.Vertx;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A webhook is sent to the address its host was judged by, over real HTTP: the host names here
 * resolve only through the resolver each test gives, so an event that arrives went to the judged
 * address; and a name that answers a public address when registered and loopback when delivered
 * (DNS rebinding) is refused at delivery without a connection being made.
 */
class WebhookPinningIT {
  private Vertx vertx;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void stop() throws Exception {
    VertxInstances.close(vertx);
  }

  private static ObjectNode event() {
    return Json.object().put("id", "e.1").put("specversion", "1.0");
  }

  private static <T> T await(io.vertx.core.Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
  }

  @Test
  void theConnectionGoesToTheJudgedAddressWithTheUrlsHostInTheHostHeader() throws Exception {
    try (WebhookIT.Receiver receiver = new WebhookIT.Receiver()) {
      WebhookTargets targets =
          new WebhookTargets(
              vertx,
              true,
              host -> {
                if (host.equals("pinned.test")) {
                  return new InetAddress[] {InetAddress.getByName("127.0.0.1")};
                }
                throw new UnknownHostException(host);
              });
      WebhookSender sender = new WebhookSender(vertx, targets, 5000);
      String url = "http://pinned.test:" + receiver.port + "/hook";
      WebhookTargets.Target target = await(targets.resolve(url));
      WebhookSender.Answer answer = await(sender.post(target, List.of("whsec_c2VjcmV0"), event()));
      assertThat(answer.status()).as(answer.error()).isEqualTo(200);
      assertThat(receiver.received).hasSize(1);
      assertThat(receiver.received.get(0).headers().get("host"))
          .isEqualTo("pinned.test:" + receiver.port);
    }
  }

  @Test
  void aNameThatRebindsToLoopbackAfterRegistrationIsRefusedAtDelivery() throws Exception {
    try (WebhookIT.Receiver receiver = new WebhookIT.Receiver()) {
      List<InetAddress> answers =
          new ArrayList<>(
              List.of(
                  InetAddress.getByName("93.184.216.34"),
                  InetAddress.getByName("127.0.0.1"),
                  InetAddress.getByName("127.0.0.1")));
      WebhookTargets targets =
          new WebhookTargets(vertx, false, host -> new InetAddress[] {answers.remove(0)});
      WebhookSender sender = new WebhookSender(vertx, targets, 5000);
      String url = "http://rebind.test:" + receiver.port + "/hook";
      assertThat(await(targets.check(url)).getHost()).isEqualTo("rebind.test");
      WebhookTargets.Target target = await(targets.resolve(url));
      assertThat(target.refusal()).contains("127.0.0.1");
      WebhookSender.Answer answer = await(sender.post(target, List.of("whsec_c2VjcmV0"), event()));
      assertThat(answer.status()).isZero();
      assertThat(answer.error()).contains("127.0.0.1");
      assertThat(receiver.received).isEmpty();
    }
  }
}
