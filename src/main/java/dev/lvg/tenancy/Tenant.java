package dev.lvg.tenancy;

/** The owner of every namespace, table and version a request touches. */
public record Tenant(long id, String name) {}
