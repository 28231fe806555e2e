/**
 * PostgreSQL: the pools (writes and reads apart), the embedded database, migrations, waiting for a
 * database at start-up. Uses config and http.
 */
package dev.lvg.db;
