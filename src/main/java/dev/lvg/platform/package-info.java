/**
 * What every feature starts from: {@code Module} (a feature's lifecycle), {@code Platform} (Vert.x,
 * configuration, pools, meters, limits, tenants, storage, clock, jobs), {@code Jobs} (named
 * background work, metered, stopped in order). Uses config, db, tenancy, overload, metrics,
 * storage, auth and http; imports no feature.
 */
package dev.lvg.platform;
