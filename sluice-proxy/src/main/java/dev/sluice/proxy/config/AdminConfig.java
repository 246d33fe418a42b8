package dev.sluice.proxy.config;

/**
 * The admin listener: Prometheus metrics, the status page, readiness and liveness, the runtime
 * dump. It is plain HTTP and shows every address and upstream: bind it to loopback or a private
 * network.
 *
 * @param address where it listens (TCP only)
 */
public record AdminConfig(Endpoint.Tcp address) {}
