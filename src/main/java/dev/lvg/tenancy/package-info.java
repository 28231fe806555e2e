/**
 * Tenants, keys and rights: resolving and remembering credentials, hearing about their changes,
 * administering them. Uses http.
 */
package dev.lvg.tenancy;
