package io.sluice.server.http;

import io.netty.handler.codec.http.HttpMethod;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Routes by method and path: exact paths first, then templates whose segments in braces match any
 * one non-empty segment ({@code /api/v1/label/{name}/values}; the route reads the segment itself,
 * e.g. with {@link #pathSegment}). Filled before the server starts, read-only afterwards (handed to
 * the server, which only reads it from event loop threads).
 *
 * <pre>{@code
 * Router router = new Router()
 *         .get("/-/healthy", request -> Reply.text(OK, "Sluice is Healthy."))
 *         .blocking(HttpMethod.GET, "/api/v1/query", queryRoute);
 * }</pre>
 */
public final class Router {
    /** A route and whether it runs off the event loop. */
    record Entry(Route route, boolean blocking) {
    }

    private final Map<String, Map<HttpMethod, Entry>> byPath = new LinkedHashMap<>();
    /** Template paths (with a {@code {name}} segment) in the order added, split into segments. */
    private final Map<String, String[]> templates = new LinkedHashMap<>();

    /** Adds a route that answers quickly from memory; it runs on the event loop. */
    public Router add(HttpMethod method, String path, Route route) {
        return put(method, path, new Entry(route, false));
    }

    /** Adds a GET route that answers quickly from memory. */
    public Router get(String path, Route route) {
        return add(HttpMethod.GET, path, route);
    }

    /** Adds a route that may take long; it runs on the server's worker threads, never on the event loop. */
    public Router blocking(HttpMethod method, String path, Route route) {
        return put(method, path, new Entry(route, true));
    }

    private Router put(HttpMethod method, String path, Entry entry) {
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("paths start with '/': " + path);
        }
        if (path.contains("{")) {
            templates.put(path, path.split("/", -1));
        }
        Entry previous = byPath.computeIfAbsent(path, p -> new LinkedHashMap<>()).putIfAbsent(method, entry);
        if (previous != null) {
            throw new IllegalArgumentException(method + " " + path + " is routed twice");
        }
        return this;
    }

    /** The route for method and path, or null. */
    Entry find(HttpMethod method, String path) {
        Map<HttpMethod, Entry> methods = byPath.get(routedPath(path));
        return methods == null ? null : methods.get(method);
    }

    /** The routed path {@code path} falls under: itself if routed exactly, else the first matching template. */
    private String routedPath(String path) {
        if (byPath.containsKey(path) || templates.isEmpty()) {
            return path;
        }
        String[] segments = path.split("/", -1);
        for (Map.Entry<String, String[]> t : templates.entrySet()) {
            if (matches(t.getValue(), segments)) {
                return t.getKey();
            }
        }
        return path;
    }

    private static boolean matches(String[] template, String[] segments) {
        if (template.length != segments.length) {
            return false;
        }
        for (int i = 0; i < template.length; i++) {
            boolean wildcard = template[i].startsWith("{") && template[i].endsWith("}");
            if (wildcard ? segments[i].isEmpty() : !template[i].equals(segments[i])) {
                return false;
            }
        }
        return true;
    }

    /** Segment {@code index} of a path ({@code /a/b/c}: 1 is {@code a}), or null when it has fewer. */
    public static String pathSegment(String path, int index) {
        String[] segments = path.split("/", -1);
        return index < segments.length ? segments[index] : null;
    }

    /** Methods routed for {@code path} (empty if the path is unknown), for 405's Allow header. */
    Set<String> allowedMethods(String path) {
        Set<String> allowed = new TreeSet<>();
        Map<HttpMethod, Entry> methods = byPath.get(routedPath(path));
        if (methods != null) {
            methods.keySet().forEach(m -> allowed.add(m.name()));
        }
        return allowed;
    }
}
