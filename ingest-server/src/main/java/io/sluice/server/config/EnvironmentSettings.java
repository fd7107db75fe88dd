package io.sluice.server.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Settings from {@code SLUICE_*} environment variables. A key's variable is {@code SLUICE_} and the
 * key in upper case with {@code .} and {@code -} as {@code _}: {@code http.port} is
 * {@code SLUICE_HTTP_PORT}, {@code head.max-series-per-shard} is
 * {@code SLUICE_HEAD_MAX_SERIES_PER_SHARD}. Any other {@code SLUICE_KAFKA_X_Y} is the Kafka client
 * property {@code kafka.x.y} (Kafka property names use dots only). Any other {@code SLUICE_*}
 * variable is an unknown key.
 */
final class EnvironmentSettings {
    static final String PREFIX = "SLUICE_";
    private static final String KAFKA_PREFIX = PREFIX + "KAFKA_";

    private EnvironmentSettings() {
    }

    static List<Setting> read(Map<String, String> environment) throws ConfigException {
        List<Setting> settings = new ArrayList<>();
        for (Map.Entry<String, String> e : new TreeMap<>(environment).entrySet()) {
            String name = e.getKey();
            if (!name.startsWith(PREFIX)) {
                continue;
            }
            settings.add(new Setting(keyOf(name), e.getValue(), "environment " + name));
        }
        return settings;
    }

    private static String keyOf(String variable) throws ConfigException {
        for (ConfigKey key : ConfigKey.values()) {
            if (key.environmentVariable().equals(variable)) {
                return key.key();
            }
        }
        if (variable.startsWith(KAFKA_PREFIX) && variable.length() > KAFKA_PREFIX.length()) {
            return "kafka." + variable.substring(KAFKA_PREFIX.length()).toLowerCase(Locale.ROOT).replace('_', '.');
        }
        throw new ConfigException("unknown key: environment variable " + variable + " names no configuration key"
                + Suggestions.didYouMean(variable, ConfigKey::environmentVariable));
    }
}
