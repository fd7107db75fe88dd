package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;

/**
 * {@code sluice bench replay --aot-cache} on the packaged jar (the JDK builds AOT caches from jars
 * only): the first restart is the training run and leaves the cache behind, the second starts from
 * it, and both restarted heads hold every sample written; a cache older than the jar is retrained.
 */
class BenchReplayAotTest {
    @Test
    void theFirstRestartWritesTheCacheAndTheNextStartsFromIt() throws Exception {
        Path work = E2eEnvironment.newWorkDir("bench-aot");
        Path data = work.resolve("data");
        Path cache = work.resolve("replay.aot");
        SluiceCli.Result training = SluiceCli.run("bench", "replay", "--samples", "20000", "--series", "100",
                "--dir", data.toString(), "--shards", "2", "--aot-cache", cache.toString());
        assertThat(training.exitCode()).as(training.output()).isZero();
        assertThat(training.output()).contains("AOT training run").contains("restart| replay_done samples=20000 series=100")
                .doesNotContain("[warning][aot]"); // the training's per-class warnings are silenced (-Xlog:aot=error)
        assertThat(cache).as("the training run's AOT cache").isNotEmptyFile();

        SluiceCli.Result fromCache = SluiceCli.run("bench", "replay", "--replay-only", "--samples", "20000",
                "--dir", data.toString(), "--shards", "2", "--aot-cache", cache.toString());
        assertThat(fromCache.exitCode()).as(fromCache.output()).isZero();
        assertThat(fromCache.output()).contains("starts from the AOT cache").contains("restart| replay_done samples=20000 series=100")
                .doesNotContain("[aot]"); // the JVM warns on an unusable cache: this one fits the jar it was trained with

        // A cache older than the jar is retrained, not used: a JDK 25 cache does not notice a rebuilt jar.
        Files.setLastModifiedTime(cache, FileTime.fromMillis(System.currentTimeMillis() - 86_400_000L));
        SluiceCli.Result stale = SluiceCli.run("bench", "replay", "--replay-only", "--samples", "20000",
                "--dir", data.toString(), "--shards", "2", "--aot-cache", cache.toString());
        assertThat(stale.exitCode()).as(stale.output()).isZero();
        assertThat(stale.output()).contains("is older than the jar: retraining it").contains("AOT training run")
                .doesNotContain("starts from the AOT cache");
        assertThat(Files.getLastModifiedTime(cache).toMillis()).as("the retrained cache")
                .isGreaterThan(System.currentTimeMillis() - 3_600_000L);
    }
}
