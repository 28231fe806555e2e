/**
 * Who changed what: the actor of a request (credential name, request id, context, never a secret)
 * and the audit trail's statements. Uses auth, tenancy and http.
 */
package dev.lvg.audit;
