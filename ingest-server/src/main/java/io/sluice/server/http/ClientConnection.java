package io.sluice.server.http;

import io.netty.channel.Channel;
import java.util.function.BooleanSupplier;

/**
 * Whether the client of the request a blocking route is answering is still connected. The router sets
 * it on the worker thread for the duration of {@link Route#handle}; a long route (a PromQL query) polls
 * {@link #current()} to stop work nobody will read. Netty's event loop keeps reading the connection
 * while the worker runs, so a client that closes (or resets) it marks the channel inactive within
 * moments.
 */
public final class ClientConnection {
    private static final ThreadLocal<Channel> CHANNEL = new ThreadLocal<>();
    private static final BooleanSupplier NEVER = () -> false;

    private ClientConnection() {
    }

    /**
     * A supplier that answers true once the current request's client has gone away; always false
     * outside a blocking route (tests calling a route directly, event-loop routes).
     */
    public static BooleanSupplier current() {
        Channel channel = CHANNEL.get();
        return channel == null ? NEVER : () -> !channel.isActive();
    }

    static void set(Channel channel) {
        CHANNEL.set(channel);
    }

    static void clear() {
        CHANNEL.remove();
    }
}
