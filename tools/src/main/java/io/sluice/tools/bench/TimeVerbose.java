package io.sluice.tools.bench;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What GNU {@code /usr/bin/time -v} reports about a process: wall, user and system seconds and the
 * peak resident set. Parsed from its stderr lines such as
 * {@code "\tElapsed (wall clock) time (h:mm:ss or m:ss): 0:01.57"}.
 */
public record TimeVerbose(double wallSeconds, double userSeconds, double systemSeconds, long maxRssKb) {
    private static final Pattern LINE = Pattern.compile("^\\s*(.+?):\\s+(\\S+)\\s*$");

    public double cpuSeconds() {
        return userSeconds + systemSeconds;
    }

    /** Parses the report among {@code lines}; null if a field is missing (not GNU time, or the process was killed). */
    public static TimeVerbose parse(List<String> lines) {
        double wall = -1;
        double user = -1;
        double system = -1;
        long rss = -1;
        for (String line : lines) {
            Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            String key = m.group(1);
            String value = m.group(2);
            if (key.startsWith("Elapsed (wall clock) time")) {
                wall = clockSeconds(value);
            } else if (key.equals("User time (seconds)")) {
                user = Double.parseDouble(value);
            } else if (key.equals("System time (seconds)")) {
                system = Double.parseDouble(value);
            } else if (key.equals("Maximum resident set size (kbytes)")) {
                rss = Long.parseLong(value);
            }
        }
        return wall < 0 || user < 0 || system < 0 || rss < 0 ? null : new TimeVerbose(wall, user, system, rss);
    }

    /** "h:mm:ss" or "m:ss.ss" to seconds. */
    public static double clockSeconds(String clock) {
        double seconds = 0;
        for (String part : clock.split(":")) {
            seconds = seconds * 60 + Double.parseDouble(part);
        }
        return seconds;
    }
}
