/**
 * Admission: the one place a request is admitted, made to wait or refused with 503 "Slow down"; the
 * adaptive concurrency limit, fair shares among tenants, each tenant's share of the reads' time,
 * and tenant quotas. Uses auth, tenancy and http.
 */
package dev.lvg.overload;
