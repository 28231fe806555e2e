package dev.lvg.overload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConcurrencyLimiterTest {
  private static final long MS = 1_000_000L;

  private long now = 1_000_000_000L;
  private final List<Object[]> timers = new ArrayList<>();
  private final List<String> decisions = new ArrayList<>();

  /** A request: admitted now, waiting, admitted after waiting, or refused. */
  private final class Request {
    final String tenant;
    ConcurrencyLimiter.Permit permit;
    ApiException refusal;
    boolean waited;

    Request(String tenant) {
      this.tenant = tenant;
    }

    void answered(Future<ConcurrencyLimiter.Permit> answer) {
      waited = !answer.isComplete();
      answer.onComplete(granted -> permit = granted, error -> refusal = (ApiException) error);
    }

    boolean running() {
      return permit != null;
    }

    boolean refused() {
      return refusal != null;
    }
  }

  private ConcurrencyLimiter limiter(int limit, long maxWaitMs) {
    return limiter(limit, limit, maxWaitMs);
  }

  private ConcurrencyLimiter limiter(int limit, int ceiling, long maxWaitMs) {
    return limiter(limit, ceiling, maxWaitMs, null);
  }

  private ConcurrencyLimiter limiter(int limit, int ceiling, long maxWaitMs, TimeShare share) {
    return new ConcurrencyLimiter(
        "writes",
        new LimiterSettings(limit, 1, ceiling, maxWaitMs * MS, 2.0, 0, 0),
        share,
        () -> now,
        (delay, task) -> {
          Object[] timer = {now + delay, task, false};
          timers.add(timer);
          return () -> timer[2] = true;
        },
        new AdmissionObserver() {
          @Override
          public void admitted(String tenant, long waitedNanos, Grant grant) {
            decisions.add("admitted " + tenant + " " + grant);
          }

          @Override
          public void refused(String tenant, RefusalReason reason) {
            decisions.add("refused " + tenant + " " + reason);
          }
        });
  }

  private Request ask(ConcurrencyLimiter limiter, String tenant) {
    Request request = new Request(tenant);
    request.answered(limiter.acquire(tenant));
    return request;
  }

  private void advance(long ms) {
    now += ms * MS;
    for (Object[] timer : List.copyOf(timers)) {
      if (!(Boolean) timer[2] && (Long) timer[0] <= now) {
        timer[2] = true;
        ((Runnable) timer[1]).run();
      }
    }
  }

  @Test
  void admitsUpToTheLimitThenQueuesAndHandsFreedSlotsOn() {
    ConcurrencyLimiter limiter = limiter(2, 10);
    Request a = ask(limiter, "t");
    Request b = ask(limiter, "t");
    Request c = ask(limiter, "t");
    assertThat(a.running()).isTrue();
    assertThat(b.running()).isTrue();
    assertThat(c.waited).isTrue();
    assertThat(c.running()).isFalse();
    assertThat(limiter.waiting()).isEqualTo(1);
    a.permit.release();
    assertThat(c.running()).isTrue();
    assertThat(limiter.running()).isEqualTo(2);
    assertThat(limiter.waiting()).isZero();
    assertThat(decisions)
        .containsExactly("admitted t FREE_SLOT", "admitted t FREE_SLOT", "admitted t WAITED");
  }

  @Test
  void aWaiterIsRefusedWhenItsDeadlinePasses() {
    ConcurrencyLimiter limiter = limiter(1, 10);
    Request running = ask(limiter, "t");
    Request waiting = ask(limiter, "t");
    advance(9);
    assertThat(waiting.refused()).isFalse();
    advance(2);
    assertThat(waiting.refused()).isTrue();
    assertThat(waiting.refusal.errorCode()).isEqualTo(ErrorCode.SERVICE_UNAVAILABLE);
    assertThat(waiting.refusal.isShed()).isTrue();
    assertThat(waiting.refusal.getMessage())
        .contains("limit of 1 concurrent writes")
        .contains("within 10 ms");
    running.permit.release();
    assertThat(waiting.running()).isFalse();
    assertThat(limiter.running()).isZero();
    assertThat(decisions).contains("refused t DEADLINE");
  }

  @Test
  void aFullWaitingRoomRefusesAtOnceNamingTheLimit() {
    ConcurrencyLimiter limiter = limiter(1, 10);
    ask(limiter, "t");
    List<Request> waiting = new ArrayList<>();
    for (int i = 0; i < ConcurrencyLimiter.MIN_WAITING_ROOM; i++) {
      waiting.add(ask(limiter, "t"));
    }
    assertThat(waiting).allMatch(request -> request.waited);
    Request refused = ask(limiter, "t");
    assertThat(refused.refused()).isTrue();
    assertThat(refused.refusal.getMessage()).contains("limit of 1 concurrent writes");
    assertThat(refused.refusal.retryAfterSeconds()).isBetween(1, 5);
  }

  @Test
  void withoutAWaitEveryRequestOverTheLimitIsRefusedAtOnce() {
    ConcurrencyLimiter limiter = limiter(1, 0);
    ask(limiter, "t");
    assertThat(ask(limiter, "t").refused()).isTrue();
    assertThat(timers).isEmpty();
  }

  @Test
  void freedSlotsGoToTheTenantWithFewestRunning() {
    ConcurrencyLimiter limiter = limiter(2, 10);
    Request noisy = ask(limiter, "noisy");
    Request quiet = ask(limiter, "quiet");
    Request noisyWaiting = ask(limiter, "noisy");
    Request quietWaiting = ask(limiter, "quiet");
    assertThat(noisyWaiting.waited).isTrue();
    assertThat(quietWaiting.waited).as("each holds its share: nothing to borrow").isTrue();
    quiet.permit.release();
    assertThat(quietWaiting.running())
        .as("the quiet tenant now runs nothing, so it goes before an older waiter")
        .isTrue();
    assertThat(noisyWaiting.running()).isFalse();
    noisy.permit.release();
    assertThat(noisyWaiting.running()).isTrue();
  }

  @Test
  void aTenantUnderItsShareBorrowsASlotOfATenantOverItsShare() {
    ConcurrencyLimiter limiter = limiter(4, 10);
    List<Request> noisy = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      noisy.add(ask(limiter, "noisy"));
    }
    Request noisyWaiting = ask(limiter, "noisy");
    assertThat(noisyWaiting.waited).isTrue();

    Request quiet1 = ask(limiter, "quiet");
    Request quiet2 = ask(limiter, "quiet");
    assertThat(quiet1.running()).as("under its share of 2, the noisy tenant holds 4").isTrue();
    assertThat(quiet2.running()).isTrue();
    assertThat(limiter.running()).isEqualTo(6);
    Request quiet3 = ask(limiter, "quiet");
    assertThat(quiet3.waited).as("at its share, it waits like everyone").isTrue();

    // The noisy tenant pays the loan back: its first two freed slots go to no one.
    noisy.get(0).permit.release();
    noisy.get(1).permit.release();
    assertThat(noisyWaiting.running()).isFalse();
    assertThat(quiet3.running()).isFalse();
    assertThat(limiter.running()).isEqualTo(4);
    noisy.get(2).permit.release();
    assertThat(quiet3.running())
        .as("back at the limit, the freed slot goes to the tenant running fewer")
        .isFalse();
    assertThat(noisyWaiting.running()).isTrue();
    assertThat(decisions).doesNotContain("refused quiet QUEUE_FULL");
  }

  @Test
  void aQuietTenantTakesTheWaitingPlaceOfATenantOverItsShareWhenNothingIsLeftToBorrow() {
    ConcurrencyLimiter limiter = limiter(3, 10);
    for (int i = 0; i < 3; i++) {
      ask(limiter, "noisy");
    }
    List<Request> noisyWaiting = new ArrayList<>();
    for (int i = 0; i < ConcurrencyLimiter.MIN_WAITING_ROOM; i++) {
      noisyWaiting.add(ask(limiter, "noisy"));
    }
    assertThat(noisyWaiting).allMatch(request -> request.waited && !request.refused());
    assertThat(ask(limiter, "b").running()).isTrue();
    assertThat(ask(limiter, "c").running())
        .as("the noisy tenant holds 2 beyond its share")
        .isTrue();
    Request quiet = ask(limiter, "quiet");
    assertThat(quiet.waited).as("both of those slots are lent").isTrue();
    assertThat(quiet.refused()).isFalse();
    assertThat(noisyWaiting.get(noisyWaiting.size() - 1).refused())
        .as("the newest waiter of the tenant over its share gives up its place")
        .isTrue();
    assertThat(decisions).contains("refused noisy FAIR_SHARE");
  }

  @Test
  void aTenantAtItsShareWhileOthersWaitIsRefused() {
    ConcurrencyLimiter limiter = limiter(4, 10);
    for (int i = 0; i < 4; i++) {
      ask(limiter, "a");
    }
    Request b = ask(limiter, "b");
    assertThat(b.running()).as("it borrows one of a's slots").isTrue();
    assertThat(decisions).contains("admitted a FREE_SLOT").endsWith("admitted b BORROWED_SLOT");
    int refusedOfA = 0;
    for (int i = 0; i < 20; i++) {
      if (ask(limiter, "a").refused()) {
        refusedOfA++;
      }
    }
    assertThat(refusedOfA).isPositive();
    assertThat(decisions).contains("refused a FAIR_SHARE");
  }

  /** A second in which each tenant asked for as many requests as given, each admitted and done. */
  private void secondOfDemand(ConcurrencyLimiter limiter, Map<String, Integer> asked) {
    asked.forEach(
        (tenant, count) -> {
          for (int i = 0; i < count; i++) {
            ask(limiter, tenant).permit.release();
          }
        });
    advance(1000);
  }

  /** {@code count} requests of {@code tenant}, asked now and left running or waiting. */
  private List<Request> asks(ConcurrencyLimiter limiter, String tenant, int count) {
    List<Request> requests = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      requests.add(ask(limiter, tenant));
    }
    return requests;
  }

  /** Less than an even share of what was served: 4 and 25 of 44 and 55 between two tenants. */
  @ParameterizedTest
  @CsvSource({"40, 4", "30, 25"})
  void aTenantAskingForLittleRunsOverTheLimitOnceItsShareOfConcurrencyIsUsedUp(
      int noisyAsked, int quietAsked) {
    ConcurrencyLimiter limiter = limiter(4, 64, 10);
    secondOfDemand(limiter, Map.of("noisy", noisyAsked, "quiet", quietAsked));
    assertThat(asks(limiter, "noisy", 5).get(4).waited).isTrue();
    // Its requests stay in flight (a slow sync, say): it holds more than its share of 2.
    assertThat(asks(limiter, "quiet", 5)).allMatch(Request::running);
    assertThat(limiter.running()).isEqualTo(9);
    assertThat(ask(limiter, "noisy").waited).as("the tenant asking for most still waits").isTrue();
    assertThat(decisions).contains("admitted quiet LITTLE_DEMAND");
  }

  @Test
  void aTenantAskingForMoreThanAnEvenShareOfWhatWasServedGoesThroughTheLimit() {
    ConcurrencyLimiter limiter = limiter(4, 64, 10);
    // 55 served between three tenants: an even share is 18.3, and 20 is over it.
    secondOfDemand(limiter, Map.of("noisy", 30, "quiet", 20, "other", 5));
    asks(limiter, "noisy", 4);
    List<Request> quiet = asks(limiter, "quiet", 5);
    assertThat(quiet.subList(0, 2))
        .as("up to its share of 2 it borrows noisy's slots")
        .allMatch(Request::running);
    assertThat(quiet.subList(2, 5))
        .as("past its share, asking for more than little, it waits or is refused")
        .noneMatch(Request::running)
        .allMatch(request -> request.waited || request.refused());
    assertThat(decisions)
        .contains("admitted quiet BORROWED_SLOT")
        .doesNotContain("admitted quiet LITTLE_DEMAND");
  }

  @Test
  void tenantsAskingAlikeAndALoneTenantGoThroughTheLimit() {
    ConcurrencyLimiter limiter = limiter(4, 64, 10);
    secondOfDemand(limiter, Map.of("a", 20, "b", 20));
    asks(limiter, "a", 4);
    assertThat(ask(limiter, "b").running()).as("it borrows one of a's slots").isTrue();
    assertThat(ask(limiter, "b").running()).isTrue();
    assertThat(ask(limiter, "b").waited).as("at its share, asking as much as a").isTrue();

    ConcurrencyLimiter alone = limiter(2, 64, 0);
    secondOfDemand(alone, Map.of("t", 40));
    assertThat(asks(alone, "t", 3).get(2).refused()).isTrue();
  }

  @Test
  void aLoneTenantAdmittedMoreThanItAskedInASecondStillGoesThroughTheLimit() {
    ConcurrencyLimiter limiter = limiter(2, 64, 10);
    secondOfDemand(limiter, Map.of("t", 40));
    List<Request> held = asks(limiter, "t", 2);
    advance(995);
    Request carried = ask(limiter, "t");
    advance(6);
    // A new second: a request asked in the one before is admitted in this one.
    Request next = ask(limiter, "t");
    held.get(0).permit.release();
    held.get(1).permit.release();
    assertThat(carried.running()).isTrue();
    assertThat(next.running()).isTrue();
    carried.permit.release();
    next.permit.release();
    for (int i = 0; i < 38; i++) {
      ask(limiter, "t").permit.release();
    }
    advance(1000);
    // That second it asked for 39 and was admitted 40, yet it asked for all that was served.
    assertThat(asks(limiter, "t", limiter.limit())).allMatch(Request::running);
    assertThat(ask(limiter, "t").waited).isTrue();
  }

  @Test
  void aTenantAskingForLittleStopsAtTheCeiling() {
    ConcurrencyLimiter limiter = limiter(2, 4, 10);
    secondOfDemand(limiter, Map.of("noisy", 40, "quiet", 2));
    asks(limiter, "noisy", 2);
    assertThat(asks(limiter, "quiet", 2)).allMatch(Request::running);
    assertThat(limiter.running()).isEqualTo(4);
    assertThat(ask(limiter, "quiet").waited).as("four run: the ceiling").isTrue();
  }

  @Test
  void aRequesterNotSeenInTheLastSecondGoesThroughTheLimit() {
    ConcurrencyLimiter limiter = limiter(2, 64, 10);
    secondOfDemand(limiter, Map.of("noisy", 40));
    asks(limiter, "noisy", 2);
    assertThat(ask(limiter, "new key 1").running()).as("it borrows").isTrue();
    assertThat(ask(limiter, "new key 2").waited)
        .as("nothing left to borrow, and no demand of its own to judge")
        .isTrue();
  }

  @Test
  void demandOlderThanTheWindowDoesNotCount() {
    ConcurrencyLimiter limiter = limiter(2, 64, 10);
    secondOfDemand(limiter, Map.of("noisy", 40, "quiet", 2));
    advance(1000L * Demand.SECONDS);
    asks(limiter, "noisy", 2);
    assertThat(ask(limiter, "quiet").running()).as("it borrows").isTrue();
    assertThat(ask(limiter, "quiet").waited)
        .as("no request in the last seconds: nothing to judge demand by")
        .isTrue();
  }

  @Test
  void aSlowSecondOrOneInWhichTheQuietTenantAskedNothingDoesNotMakeItLookLikeTheNoisyOne() {
    ConcurrencyLimiter limiter = limiter(2, 64, 10);
    secondOfDemand(limiter, Map.of("noisy", 40, "quiet", 4));
    // A stall: two requests served in a second, and the quiet tenant asked nothing in the next.
    secondOfDemand(limiter, Map.of("noisy", 2));
    secondOfDemand(limiter, Map.of("noisy", 30));
    asks(limiter, "noisy", 2);
    assertThat(asks(limiter, "quiet", 3))
        .as("4 of the 44 served in a second of the last ones is little")
        .allMatch(Request::running);
    assertThat(decisions).contains("admitted quiet LITTLE_DEMAND");
    assertThat(ask(limiter, "noisy").waited).isTrue();
  }

  @Test
  void aPermitIsReleasedOnce() {
    ConcurrencyLimiter limiter = limiter(1, 10);
    Request a = ask(limiter, "t");
    a.permit.release();
    a.permit.release();
    assertThat(limiter.running()).isZero();
    Request b = ask(limiter, "t");
    assertThat(b.running()).isTrue();
    assertThat(limiter.running()).isEqualTo(1);
  }

  @Test
  void refusalsAre503Code17AndSayHowLongToWait() {
    ConcurrencyLimiter limiter = limiter(1, 0);
    ask(limiter, "t");
    Request refused = ask(limiter, "t");
    assertThat(refused.waited).as("refused at once").isFalse();
    assertThat(refused.refusal)
        .satisfies(
            error -> {
              assertThat(error.errorCode().code).isEqualTo(17);
              assertThat(error.errorCode().title).isEqualTo("Slow down");
              assertThat(error.retryAfterSeconds()).isPositive();
            });
  }

  @Test
  void aTenantsOwnReportShowsItsOwnRequestsNotTheGatewaysTotals() {
    ConcurrencyLimiter limiter = limiter(4, 100);
    ask(limiter, "tenant:1");
    ask(limiter, "tenant:1");
    ask(limiter, "tenant:1");
    ask(limiter, "tenant:2");
    ask(limiter, "tenant:1");
    AdmissionReport report =
        new AdmissionReport(
            List.of(limiter), new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
    var own = report.of("tenant:2", "quiet").get("classes").get(0);
    assertThat(own.get("limit").asInt()).isEqualTo(4);
    assertThat(own.get("in_flight").asInt()).isEqualTo(1);
    assertThat(own.get("waiting").asInt()).isZero();
    var other = report.of("tenant:1", "busy").get("classes").get(0);
    assertThat(other.get("in_flight").asInt()).isEqualTo(3);
    assertThat(other.get("waiting").asInt()).isEqualTo(1);
    var all = report.all(java.util.Map.of()).get("classes").get(0);
    assertThat(all.get("in_flight").asInt()).isEqualTo(4);
    assertThat(all.get("waiting").asInt()).isEqualTo(1);
  }

  @Test
  void aTenantThatUsedItsShareOfTimeIsRefusedWhileOthersRun() {
    ConcurrencyLimiter limiter = limiter(8, 8, 0, new TimeShare(0.1, 100 * MS));
    Request heavy = ask(limiter, "tenant:heavy");
    now += 300 * MS;
    heavy.permit.release();
    Request again = ask(limiter, "tenant:heavy");
    assertThat(again.refusal).as("held while the time owed refills").isNull();
    advance(1_000);
    assertThat(again.refusal).as("answered within a second").isNotNull();
    assertThat(again.refusal.getMessage()).contains("used its share of the time writes may take");
    assertThat(again.refusal.retryAfterSeconds()).isBetween(1, 3);
    assertThat(decisions).contains("refused tenant:heavy DATABASE_TIME");
    assertThat(ask(limiter, "tenant:light").running()).isTrue();
    now += 3_000 * MS;
    assertThat(ask(limiter, "tenant:heavy").refusal).isNull();
  }
}
