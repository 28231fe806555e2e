/**
 * {@code RestoreTable}: an old version's manifest written again as the next version, as Lance's own
 * restore writes it, and committed through the version feature's commit path. Uses the platform,
 * the catalog's branches, the version service, storage and http.
 */
package dev.lvg.restore;
