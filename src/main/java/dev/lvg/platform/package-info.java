/**
 * What every feature starts from: {@code Module} (a feature's lifecycle), {@code Platform} (Vert.x,
 * configuration, pools, meters, limits, tenants, storage, clock, jobs), {@code Jobs} (named
 * background work, metered, stopped in order), {@code Exported} (the classes of a feature others
 * may use). Uses config, db, tenancy, overload, metrics, storage, auth and http; imports no
 * feature.
 */
package dev.lvg.platform;
