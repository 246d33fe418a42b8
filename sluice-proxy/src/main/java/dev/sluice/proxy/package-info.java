/**
 * The Sluice proxy: listeners, routing, forwarding. It is built on {@code sluice-core}; the
 * forwarding hot path uses the core's borrowed read view and {@code writeTransient}, so an idle
 * proxied pair holds no buffer.
 */
package dev.sluice.proxy;
