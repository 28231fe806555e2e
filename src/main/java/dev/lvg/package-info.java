/**
 * The composition: {@code Main} (arguments, the UTF-8 relaunch, the admin command), {@code Gateway}
 * (a running gateway: database, pools, verticles, the ordered stop) and {@code ApiVerticle} (the
 * router and the chain every declared operation is served behind). It may use every package; no
 * package uses it.
 */
package dev.lvg;
