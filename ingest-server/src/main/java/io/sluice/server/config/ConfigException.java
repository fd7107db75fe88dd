package io.sluice.server.config;

/**
 * A configuration the service cannot start with: an unknown key, a bad or missing value, an
 * unreachable broker. The message is one readable line that names the key and where its value came
 * from; the command line prints it alone (no stack trace) and exits with code 2.
 */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message, null, false, false);
    }

    /** A bad value of {@code key}, e.g. {@code http.port: 'x' is not a port number 0..65535 (flag --http.port)}. */
    static ConfigException badValue(Setting setting, String problem) {
        return new ConfigException(setting.key() + ": '" + setting.value() + "' " + problem + " (" + setting.source() + ")");
    }
}
