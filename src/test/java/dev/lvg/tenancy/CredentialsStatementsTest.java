package dev.lvg.tenancy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CredentialsStatementsTest {
  @Test
  void changesAreNotifiedOnTheChannelTheGatewaysListenOn() {
    assertThat(Credentials.NOTIFY).contains("pg_notify('" + Credentials.CHANNEL + "', $1)");
  }
}
