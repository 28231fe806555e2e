package dev.lvg.overload;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.http.Json;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * What admission control is doing now, for people rather than Prometheus: each class's limit, the
 * requests running and waiting, and each requester's admitted and shed requests since the gateway
 * started (read from the same counters as {@code lvg_admission_total}), with version creates by
 * outcome for the whole gateway. A reader polls it and takes differences for rates.
 */
public final class AdmissionReport {
  private final List<ConcurrencyLimiter> limiters;
  private final MeterRegistry registry;

  public AdmissionReport(List<ConcurrencyLimiter> limiters, MeterRegistry registry) {
    this.limiters = limiters;
    this.registry = registry;
  }

  /**
   * The classes and every requester, each named by {@code names} (a tenant's requester {@code
   * tenant:<id>} by the tenant's name; others keep their label), and the gateway's version creates.
   */
  public ObjectNode all(Map<String, String> names) {
    ObjectNode answer = report(null, names);
    ObjectNode creates = answer.putObject("version_creates");
    for (Counter counter : registry.find("lvg_version_create").counters()) {
      creates.put(counter.getId().getTag("outcome"), (long) counter.count());
    }
    return answer;
  }

  /**
   * One requester's view, under {@code name}: each class's limit and its own requests running and
   * waiting (never the gateway's totals, which would show other tenants' load), and its counters.
   */
  public ObjectNode of(String requester, String name) {
    return report(requester, Map.of(requester, name));
  }

  /** The report of {@code only} (a requester), or of every requester and the totals (null). */
  private ObjectNode report(String only, Map<String, String> names) {
    Predicate<String> shown = only == null ? requester -> true : only::equals;
    ObjectNode answer = Json.object();
    ArrayNode classes = answer.putArray("classes");
    for (ConcurrencyLimiter limiter : limiters) {
      classes
          .addObject()
          .put("class", limiter.name())
          .put("limit", limiter.limit())
          .put("in_flight", only == null ? limiter.running() : limiter.running(only))
          .put("waiting", only == null ? limiter.waiting() : limiter.waiting(only));
    }
    Map<String, ObjectNode> requesters = new TreeMap<>();
    for (Counter counter : registry.find("lvg_admission").counters()) {
      String requester = counter.getId().getTag("requester");
      if (requester == null || !shown.test(requester)) {
        continue;
      }
      ObjectNode row =
          requesters.computeIfAbsent(
              requester,
              label ->
                  Json.object()
                      .put("requester", names.getOrDefault(label, label))
                      .put("admitted", 0L)
                      .put("shed", 0L));
      long count = (long) counter.count();
      String outcome = counter.getId().getTag("outcome");
      row.put(outcome, row.get(outcome).asLong() + count);
      if ("shed".equals(outcome)) {
        ObjectNode reasons =
            row.has("shed_by_reason")
                ? (ObjectNode) row.get("shed_by_reason")
                : row.putObject("shed_by_reason");
        String reason = counter.getId().getTag("reason");
        reasons.put(reason, reasons.path(reason).asLong() + count);
      }
    }
    answer.putArray("requesters").addAll(requesters.values());
    return answer;
  }
}
