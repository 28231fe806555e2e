/**
 * {@code version/create} and the version family: the group-commit pipeline, the decision, the
 * finalization of manifests, the repository and its statements. Uses catalog, storage, transaction,
 * audit, auth, tenancy, db, metrics and http.
 */
package dev.lvg.version;
