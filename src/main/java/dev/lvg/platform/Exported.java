package dev.lvg.platform;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a class of a feature that other features may use: its module, and the few types its module
 * hands to others (a service, a record they carry). Everything else in a feature's package is its
 * own; the architecture test fails a feature that reaches into another's unmarked classes.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.TYPE)
public @interface Exported {}
