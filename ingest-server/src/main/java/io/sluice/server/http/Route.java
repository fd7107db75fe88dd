package io.sluice.server.http;

import io.netty.handler.codec.http.FullHttpRequest;

/**
 * Answers one method and path. Runs on a Netty event loop thread unless registered as blocking
 * ({@link Router#blocking}): a route that may take long (a query over many series) must be blocking,
 * because a busy event loop delays every other request, scrapes included.
 */
@FunctionalInterface
public interface Route {
    Reply handle(FullHttpRequest request) throws Exception;
}
