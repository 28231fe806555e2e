/** The management port: health, readiness, metrics and the served OpenAPI documents. */
package dev.lvg.management;
