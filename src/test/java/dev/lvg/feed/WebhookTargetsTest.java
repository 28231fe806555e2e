package dev.lvg.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lvg.http.ApiException;
import java.net.InetAddress;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which webhook targets are refused: every IPv6 form that embeds or maps a non-public IPv4 address,
 * the non-public ranges of both families, and hosts written as numbers readers disagree on.
 */
class WebhookTargetsTest {
  private static boolean isPublic(String literal) throws Exception {
    return PublicAddresses.isPublic(InetAddress.getByName(literal));
  }

  @Test
  void ipv6FormsThatEmbedANonPublicIpv4AddressAreJudgedByIt() throws Exception {
    for (String literal :
        List.of(
            "::127.0.0.1",
            "::7f00:1",
            "::10.0.0.1",
            "::169.254.169.254",
            "64:ff9b::7f00:1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b:1:7f00:0:1::",
            "2002:7f00:1::",
            "2002:a00:1::1",
            "::ffff:0:127.0.0.1",
            "::ffff:127.0.0.1",
            "2001:0:4136:e378:8000:63bf:80ff:fffe", // Teredo, client 127.0.0.1
            "2001:0:7f00:1::5db8:d822", // Teredo, server 127.0.0.1
            "::",
            "::1")) {
      assertThat(isPublic(literal)).as(literal).isFalse();
    }
    for (String literal :
        List.of(
            "64:ff9b::5db8:d822", // NAT64 of 93.184.216.34
            "2002:5db8:d822::1",
            "::ffff:93.184.216.34",
            "2606:2800:220:1:248:1893:25c8:1946")) {
      assertThat(isPublic(literal)).as(literal).isTrue();
    }
  }

  @Test
  void nonPublicRangesOfBothFamiliesAreRefused() throws Exception {
    for (String literal :
        List.of(
            "0.1.2.3",
            "10.1.2.3",
            "100.64.0.1",
            "127.0.0.1",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "192.88.99.1",
            "192.168.1.1",
            "198.18.0.1",
            "198.51.100.1",
            "203.0.113.1",
            "224.0.0.1",
            "240.0.0.1",
            "255.255.255.255",
            "fd00::1",
            "fe80::1",
            "fec0::1",
            "ff02::1",
            "100::1",
            "2001:db8::1",
            "2001:10::1",
            "2001:20::1",
            "2001:2::1")) {
      assertThat(isPublic(literal)).as(literal).isFalse();
    }
    for (String literal : List.of("93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1")) {
      assertThat(isPublic(literal)).as(literal).isTrue();
    }
  }

  @Test
  void hostsWrittenAsNumbersOtherThanFourDecimalPartsAreRefused() {
    for (String host :
        List.of(
            "0177.0.0.1",
            "0x7f.0.0.1",
            "0x7f000001",
            "2130706433",
            "127.1",
            "127.0.0.01",
            "1.2.3.4.5",
            "127.0.0.1.",
            "example.0x10",
            "example.123")) {
      assertThat(WebhookTargets.ambiguousNumber(host)).as(host).isNotNull();
      assertThatThrownBy(() -> WebhookTargets.parse("http://" + host + "/hook"))
          .as(host)
          .isInstanceOf(ApiException.class);
    }
    for (String host :
        List.of("93.184.216.34", "0.0.0.0", "example.com", "1e100.net", "[::1]", "a.b2")) {
      assertThat(WebhookTargets.ambiguousNumber(host)).as(host).isNull();
    }
  }

  @Test
  void theRealResolverRefusesEveryFormThatReachesLoopbackOrPrivateAddresses() {
    WebhookTargets targets = new WebhookTargets(null, false);
    for (String url :
        List.of(
            "http://[::127.0.0.1]:8080/",
            "http://[::7f00:1]/",
            "http://[::10.0.0.1]/",
            "http://[::169.254.169.254]/",
            "http://[64:ff9b::7f00:1]/",
            "http://[2002:7f00:1::]/",
            "http://[::ffff:0:127.0.0.1]/",
            "http://localhost/")) {
      assertThat(targets.judge(URI.create(url)).refusal()).as(url).isNotNull();
    }
    assertThat(targets.judge(URI.create("http://93.184.216.34/")).refusal()).isNull();
  }

  @Test
  void eachJudgementResolvesAgainAndConnectsToTheAddressItJudged() throws Exception {
    InetAddress publicAddress = InetAddress.getByName("93.184.216.34");
    InetAddress loopback = InetAddress.getByName("127.0.0.1");
    List<InetAddress> answers = new java.util.ArrayList<>(List.of(publicAddress, loopback));
    WebhookTargets targets =
        new WebhookTargets(null, false, host -> new InetAddress[] {answers.remove(0)});
    URI url = URI.create("http://rebind.test/hook");
    WebhookTargets.Target first = targets.judge(url);
    assertThat(first.refusal()).isNull();
    assertThat(first.address()).isEqualTo(publicAddress);
    WebhookTargets.Target second = targets.judge(url);
    assertThat(second.refusal()).contains("127.0.0.1");
    assertThat(second.address()).isNull();
  }
}
