package dev.lvg;

import java.net.URI;
import java.net.http.HttpRequest;

/** One scrape of a gateway's Prometheus metrics, for tests that assert what changed. */
public final class Metrics {
  private final String text;

  private Metrics(String text) {
    this.text = text;
  }

  public static Metrics scrape(TestGateway gw) {
    return scrape(gw.managementUrl);
  }

  /** A scrape of the gateway whose management listener is at {@code managementUrl}. */
  public static Metrics scrape(String managementUrl) {
    Api.Response response =
        Api.send(HttpRequest.newBuilder(URI.create(managementUrl + "/metrics")).GET().build());
    if (response.status() != 200) {
      throw new AssertionError("metrics answered " + response.status());
    }
    return new Metrics(response.text());
  }

  public String text() {
    return text;
  }

  /**
   * The value of one series, e.g. {@code lvg_version_create_total{outcome="created"}}; 0 if absent.
   */
  public double value(String series) {
    return text.lines()
        .filter(line -> line.startsWith(series + " "))
        .mapToDouble(line -> Double.parseDouble(line.substring(series.length() + 1).trim()))
        .findFirst()
        .orElse(0);
  }

  /**
   * Admission decisions (any class, outcome and reason) for {@code requester} since {@code before}.
   */
  public double admissionsSince(Metrics before, String requester) {
    String label = "requester=\"" + requester + "\"";
    return text.lines()
        .filter(line -> line.startsWith("lvg_admission_total{") && line.contains(label))
        .mapToDouble(line -> since(before, line.substring(0, line.lastIndexOf(' '))))
        .sum();
  }

  /** How much a series grew since {@code before}. */
  public double since(Metrics before, String series) {
    return value(series) - before.value(series);
  }

  public static String createOutcome(String outcome) {
    return "lvg_version_create_total{outcome=\"" + outcome + "\"}";
  }
}
