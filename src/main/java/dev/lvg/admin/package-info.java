/**
 * The admin API (tenants, keys, the audit trail, admission) and the same operations from the
 * command line. Uses audit, auth, tenancy, db, config, overload and http.
 */
package dev.lvg.admin;
