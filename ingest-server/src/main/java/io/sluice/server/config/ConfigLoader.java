package io.sluice.server.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Loads the configuration: defaults, then presets (the demo's), then the YAML file, then
 * {@code SLUICE_*} environment variables, then {@code --key=value} flags; a later source wins per
 * key. Every key is checked: an unknown key, a bad value or a missing required value is a
 * {@link ConfigException} with one readable line.
 */
public final class ConfigLoader {
    private ConfigLoader() {
    }

    /**
     * @param file        the YAML file, or null for none
     * @param environment the process environment (only {@code SLUICE_*} variables are read)
     * @param flags       {@code --key=value} arguments
     */
    public static SluiceConfig load(Path file, Map<String, String> environment, List<String> flags) throws ConfigException {
        return load(Map.of(), file, environment, flags);
    }

    /** As {@link #load(Path, Map, List)}, with {@code presets} (key → value) replacing the defaults. */
    public static SluiceConfig load(Map<String, String> presets, Path file, Map<String, String> environment,
                                    List<String> flags) throws ConfigException {
        List<Setting> layers = new ArrayList<>();
        for (ConfigKey key : ConfigKey.values()) {
            if (key.defaultValue() != null) {
                layers.add(new Setting(key.key(), key.defaultValue(), "default"));
            }
        }
        new TreeMap<>(presets).forEach((k, v) -> layers.add(new Setting(k, v, "preset")));
        if (file != null) {
            layers.addAll(YamlSettings.read(file));
        }
        layers.addAll(EnvironmentSettings.read(environment));
        layers.addAll(FlagSettings.read(flags));
        return resolve(layers);
    }

    private static SluiceConfig resolve(List<Setting> layers) throws ConfigException {
        Map<String, Setting> lastByKey = new LinkedHashMap<>();
        for (Setting setting : layers) {
            lastByKey.remove(setting.key()); // keep the order in which the winning values were given
            lastByKey.put(setting.key(), setting);
        }
        Map<ConfigKey, Setting> known = new EnumMap<>(ConfigKey.class);
        Map<String, String> kafkaProperties = new TreeMap<>();
        for (Setting setting : lastByKey.values()) {
            ConfigKey key = ConfigKey.byName(setting.key());
            if (key != null) {
                known.put(key, setting);
            } else if (setting.key().startsWith(KafkaProperties.PREFIX) && setting.key().indexOf('-') < 0) {
                kafkaProperties.put(KafkaProperties.propertyOf(setting), setting.value().strip());
            } else {
                throw new ConfigException("unknown key '" + setting.key() + "' (" + setting.source() + ")"
                        + Suggestions.didYouMean(setting.key(), ConfigKey::key));
            }
        }
        return new ConfigBinder(known, kafkaProperties).bind();
    }
}
