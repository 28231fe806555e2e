/**
 * The operation catalogue: {@code GatewayOperation} (every operation, named once, with its
 * contract, right, event type) and {@code Right}. A leaf: it uses no other package of the gateway.
 */
package dev.lvg.operation;
