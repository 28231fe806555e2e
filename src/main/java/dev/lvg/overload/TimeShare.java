package dev.lvg.overload;

/** How much of the time its requests take each requester may use: a rate and a burst. */
public record TimeShare(double rate, long burstNanos) {}
