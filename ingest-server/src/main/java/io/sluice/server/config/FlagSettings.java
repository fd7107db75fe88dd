package io.sluice.server.config;

import java.util.ArrayList;
import java.util.List;

/** Settings from {@code --key=value} command-line flags, e.g. {@code --http.port=8080}. */
final class FlagSettings {
    private FlagSettings() {
    }

    static List<Setting> read(List<String> flags) throws ConfigException {
        List<Setting> settings = new ArrayList<>();
        for (String flag : flags) {
            if (!flag.startsWith("--") || flag.length() == 2) {
                throw new ConfigException("unexpected argument '" + flag + "': configuration flags look like --key=value");
            }
            int eq = flag.indexOf('=');
            if (eq < 0) {
                throw new ConfigException("flag " + flag + " has no value: write " + flag + "=VALUE");
            }
            String key = flag.substring(2, eq);
            settings.add(new Setting(key, flag.substring(eq + 1), "flag --" + key));
        }
        return settings;
    }
}
