package io.sluice.bench.e2e;

import java.util.Locale;

/**
 * What an end-to-end run measured. Samples counted by the head must equal those produced (the run
 * fails otherwise); rates are over the phase's wall time; per core = divided by the machine's
 * cores; per CPU-second = divided by the CPU the whole process used (broker and producer included
 * when they run in it).
 *
 * @param holds whether the sustained phase kept up: ingest within 5 % of the target rate and the
 *              lag at its end below two seconds of the target rate
 */
record E2eReport(String preset, String date, String loadAverage, int cores, boolean embeddedBroker,
                 int activeSeries, long seriesCreated, long producedSamples, long appendedSamples, long seriesInHead,
                 Phase drain, Phase sustain, double targetRate, boolean holds,
                 long peakRssBytes, long heapUsedBytes, long liveHeapBytes, long offheapBytes, int gcPauses, double gcPauseP99Ms,
                 double gcPauseMaxMs, double chunkBytesPerSample, double walBytesPerSample) {

    /** One phase: samples stored, time, rates, queue-in to WAL-durable latency, lag in samples. */
    record Phase(long samples, double seconds, double samplesPerSecond, double samplesPerSecondPerCore,
                 double samplesPerCpuSecond, double latencyP50Ms, double latencyP99Ms, double latencyP999Ms,
                 long maxLagSamples, long endLagSamples) {
        static final Phase NONE = new Phase(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

        String json() {
            return String.format(Locale.ROOT, "{\"samples\": %d, \"seconds\": %.3f, \"samplesPerSecond\": %.0f, "
                            + "\"samplesPerSecondPerCore\": %.0f, \"samplesPerCpuSecond\": %.0f, \"latencyP50Ms\": %.2f, "
                            + "\"latencyP99Ms\": %.2f, \"latencyP999Ms\": %.2f, \"maxLagSamples\": %d, \"endLagSamples\": %d}",
                    samples, seconds, samplesPerSecond, samplesPerSecondPerCore, samplesPerCpuSecond, latencyP50Ms,
                    latencyP99Ms, latencyP999Ms, maxLagSamples, endLagSamples);
        }

        String text(String name) {
            return String.format(Locale.ROOT, "%-8s %,d samples in %.1f s = %,.0f samples/s (%,.0f per core, %,.0f per CPU-s); "
                            + "batch queue-in to durable p50 %.1f ms, p99 %.1f ms, p999 %.1f ms; lag max %,d end %,d samples",
                    name, samples, seconds, samplesPerSecond, samplesPerSecondPerCore, samplesPerCpuSecond,
                    latencyP50Ms, latencyP99Ms, latencyP999Ms, maxLagSamples, endLagSamples);
        }
    }

    String json() {
        return String.format(Locale.ROOT, "{\n  \"preset\": \"%s\", \"date\": \"%s\", \"loadAverage\": \"%s\", \"cores\": %d, "
                        + "\"embeddedBroker\": %b,\n  \"activeSeries\": %d, \"seriesCreated\": %d, \"producedSamples\": %d, "
                        + "\"appendedSamples\": %d, \"seriesInHead\": %d,\n  \"drain\": %s,\n  \"sustain\": %s,\n  \"targetRate\": %.0f, "
                        + "\"holds\": %b,\n  \"peakRssBytes\": %d, \"heapUsedBytes\": %d, \"liveHeapBytes\": %d, \"offheapBytes\": %d, \"gcPauses\": %d, "
                        + "\"gcPauseP99Ms\": %.2f, \"gcPauseMaxMs\": %.2f,\n  \"chunkBytesPerSample\": %.3f, \"walBytesPerSample\": %.3f\n}\n",
                preset, date, loadAverage, cores, embeddedBroker, activeSeries, seriesCreated, producedSamples, appendedSamples,
                seriesInHead, drain.json(), sustain.json(), targetRate, holds, peakRssBytes, heapUsedBytes, liveHeapBytes, offheapBytes,
                gcPauses, gcPauseP99Ms, gcPauseMaxMs, chunkBytesPerSample, walBytesPerSample);
    }

    String text() {
        return String.format(Locale.ROOT, "%s: %,d active series (%,d created, %,d in the head), %,d samples produced, %,d stored%n"
                        + "%s%n%s%n"
                        + "sustained target %,.0f samples/s: %s%n"
                        + "memory: peak RSS %,d MB, heap in use %,d MB (live after a full GC %,d MB), off-heap %,d MB; GC: %d pauses, p99 %.1f ms, max %.1f ms%n"
                        + "bytes/sample: chunks %.2f, WAL %.2f%n"
                        + "%s, load average %s, %d cores, broker %s",
                preset, activeSeries, seriesCreated, seriesInHead, producedSamples, appendedSamples,
                drain.text("drain"), sustain.text("sustain"), targetRate,
                sustain.samples() == 0 ? "no sustained phase" : holds ? "HOLDS" : "does NOT hold",
                peakRssBytes >> 20, heapUsedBytes >> 20, liveHeapBytes >> 20, offheapBytes >> 20, gcPauses, gcPauseP99Ms, gcPauseMaxMs,
                chunkBytesPerSample, walBytesPerSample, date, loadAverage, cores, embeddedBroker ? "embedded (same JVM)" : "external");
    }
}
