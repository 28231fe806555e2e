/**
 * The change feed: pages of a tenant's events as CloudEvents, live tails and webhooks, their
 * expiry. Uses overload, auth, tenancy, version (a version's row in its event), config and http.
 */
package dev.lvg.feed;
