/**
 * Transaction ids: recorded with their change, described on request. Uses audit, auth, tenancy and
 * http.
 */
package dev.lvg.transaction;
