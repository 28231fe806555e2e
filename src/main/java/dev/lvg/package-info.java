/**
 * The composition: {@code Main} (arguments, the UTF-8 relaunch, the admin command), {@code Gateway}
 * (a running gateway and its database), {@code Assembly} (the order it comes up and goes down in),
 * {@code Modules} (the module map), {@code ApiVerticle} (one event loop's router and listeners) and
 * {@code ChainedRoutes} (the chain every declared operation is served behind). It may use every
 * package; no package uses it.
 */
package dev.lvg;
