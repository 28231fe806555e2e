/**
 * Batch-create and batch-commit, through the catalog's and the versions' services. Uses catalog,
 * version, transaction, audit, auth and http.
 */
package dev.lvg.batch;
