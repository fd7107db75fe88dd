package io.sluice.server.config;

/**
 * One key = value as a source gave it, before it is parsed.
 *
 * @param key    the dotted key, e.g. {@code http.port}, {@code kafka.fetch.max.bytes}
 * @param value  the raw text; empty means "unset" for optional keys
 * @param source where it came from, for error messages: {@code flag --http.port},
 *               {@code environment SLUICE_HTTP_PORT}, {@code sluice.yaml line 3}, {@code default}
 */
public record Setting(String key, String value, String source) {
}
