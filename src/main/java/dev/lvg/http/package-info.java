/**
 * The toolbox every feature uses: the error model and its one responder, failure classification,
 * request ids, the contracts requests are checked against and their bounds, bodies and ids. It uses
 * nothing of the gateway.
 */
package dev.lvg.http;
