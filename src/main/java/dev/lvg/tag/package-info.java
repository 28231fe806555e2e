/**
 * The tag operations, on the tag files Lance keeps in the dataset. Uses catalog, storage,
 * transaction, audit, auth, tenancy and http.
 */
package dev.lvg.tag;
