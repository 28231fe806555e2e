package dev.lvg.sink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.config.SinkSettings;
import dev.lvg.http.Json;
import dev.lvg.tenancy.Tenant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Subjects: one token per name, what NATS reads as structure written {@code %XX}. */
class NatsPublisherTest {
  private static final NatsPublisher PUBLISHER =
      new NatsPublisher(
          null,
          new SinkSettings(
              null, "t", null, false, "nats://x", "lance.feed", "S", null, null, null, false, 100));

  @Test
  void eachNameIsOneTokenWithTheCharactersNatsGivesAMeaningEscaped() {
    assertThat(NatsPublisher.token("events")).isEqualTo("events");
    assertThat(NatsPublisher.token("a.b")).isEqualTo("a%2Eb");
    assertThat(NatsPublisher.token("*>")).isEqualTo("%2A%3E");
    assertThat(NatsPublisher.token("100%")).isEqualTo("100%25");
    assertThat(NatsPublisher.token("two words\ttab")).isEqualTo("two%20words%09tab");
    assertThat(NatsPublisher.token("données café")).isEqualTo("données%20café");
  }

  @Test
  void aSubjectIsThePrefixTheTenantAndEveryNameOfTheObject() {
    ObjectNode event = Json.object();
    List.of("ns", "sub.ns", "t").forEach(event.putObject("data").putArray("id")::add);
    assertThat(PUBLISHER.subject(new Tenant(1, "acme.eu"), event))
        .isEqualTo("lance.feed.acme%2Eeu.ns.sub%2Ens.t");
    assertThat(PUBLISHER.subject(new Tenant(1, "acme"), Json.object()))
        .isEqualTo("lance.feed.acme");
  }
}
