package dev.lvg.feed;

import dev.lvg.config.FeedSettings;
import dev.lvg.http.ApiException;
import dev.lvg.tenancy.Principal;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The live tails a gateway holds, counted in all, per tenant and per credential, each under its
 * cap, so that one key, or one tenant's keys together, cannot take the slots every other tenant's
 * tails need. Shared by every event loop.
 */
final class StreamSlots {
  private final FeedSettings settings;
  private final AtomicInteger open = new AtomicInteger();
  private final ConcurrentHashMap<Long, Integer> byTenant = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Integer> byCredential = new ConcurrentHashMap<>();

  StreamSlots(FeedSettings settings) {
    this.settings = settings;
  }

  /** Tails open on this gateway. */
  int open() {
    return open.get();
  }

  /**
   * Takes a slot for a tail of {@code principal}; null when taken, else the 503 that refuses it.
   */
  ApiException take(Principal principal) {
    if (open.incrementAndGet() > settings.maxStreams()) {
      open.decrementAndGet();
      return refusal(
          "this gateway already serves " + settings.maxStreams() + " live tails",
          "LVG_EVENTS_MAX_STREAMS");
    }
    long tenant = principal.tenant().id();
    if (!takeOne(byTenant, tenant, settings.maxStreamsPerTenant())) {
      open.decrementAndGet();
      return refusal(
          "this tenant already has "
              + settings.maxStreamsPerTenant()
              + " live tails on this gateway",
          "LVG_EVENTS_MAX_STREAMS_PER_TENANT");
    }
    if (!takeOne(byCredential, credentialOf(principal), settings.maxStreamsPerCredential())) {
      open.decrementAndGet();
      giveOne(byTenant, tenant);
      return refusal(
          "this credential already has "
              + settings.maxStreamsPerCredential()
              + " live tails on this gateway",
          "LVG_EVENTS_MAX_STREAMS_PER_KEY");
    }
    return null;
  }

  /** Gives back the slot {@link #take} gave a tail of {@code principal}. */
  void give(Principal principal) {
    open.decrementAndGet();
    giveOne(byTenant, principal.tenant().id());
    giveOne(byCredential, credentialOf(principal));
  }

  private static String credentialOf(Principal principal) {
    return principal.tenant().id() + "/" + principal.credential();
  }

  /** Counts one more under {@code key} if that keeps it within {@code max}; answers whether. */
  private static <K> boolean takeOne(ConcurrentHashMap<K, Integer> counts, K key, int max) {
    boolean[] taken = {false};
    counts.compute(
        key,
        (k, count) -> {
          int now = count == null ? 0 : count;
          if (now >= max) {
            return count;
          }
          taken[0] = true;
          return now + 1;
        });
    return taken[0];
  }

  private static <K> void giveOne(ConcurrentHashMap<K, Integer> counts, K key) {
    counts.computeIfPresent(key, (k, count) -> count <= 1 ? null : count - 1);
  }

  private static ApiException refusal(String why, String setting) {
    return ApiException.shed(why + " (" + setting + "); close one or retry later");
  }
}
