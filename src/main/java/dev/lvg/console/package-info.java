/** The web console's static files, served on the API port; it uses nothing of the gateway. */
package dev.lvg.console;
