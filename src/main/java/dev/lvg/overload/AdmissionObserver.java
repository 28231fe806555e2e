package dev.lvg.overload;

/** Hears every decision of a {@link ConcurrencyLimiter}, for the meters. */
public interface AdmissionObserver {
  void admitted(String requester, long waitedNanos, Grant grant);

  void refused(String requester, RefusalReason reason);
}
