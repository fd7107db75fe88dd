package io.sluice.server.config;

import java.util.Arrays;
import java.util.Collection;
import java.util.function.Function;

/** "Did you mean" for unknown keys: the closest known key within a small edit distance. */
final class Suggestions {
    private Suggestions() {
    }

    /** {@code "; did you mean 'http.port'?"} or "" when nothing is close. */
    static String didYouMean(String unknown, Function<ConfigKey, String> spelling) {
        return didYouMean(unknown, Arrays.stream(ConfigKey.values()).map(spelling).toList());
    }

    /** {@code "; did you mean 'x'?"} for the closest of {@code candidates}, or "". */
    static String didYouMean(String unknown, Collection<String> candidates) {
        String best = null;
        int bestDistance = Math.max(2, unknown.length() / 4) + 1;
        for (String candidate : candidates) {
            int d = distance(unknown, candidate);
            if (d < bestDistance) {
                bestDistance = d;
                best = candidate;
            }
        }
        return best == null ? "" : "; did you mean '" + best + "'?";
    }

    /** Levenshtein distance (two rows; keys are short). */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
