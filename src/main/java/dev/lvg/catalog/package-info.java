/**
 * Namespaces, tables and branches: their operations, repositories, table locations and the
 * background deletion of dropped tables' data. Uses storage, transaction, audit, auth, tenancy and
 * http.
 */
package dev.lvg.catalog;
