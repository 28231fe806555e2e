/**
 * Object storage: the root and its confinement, local files and S3, manifests' final names,
 * credential vending, deadlines on every call. Uses http.
 */
package dev.lvg.storage;
