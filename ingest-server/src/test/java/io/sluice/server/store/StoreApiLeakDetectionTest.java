package io.sluice.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.netty.shaded.io.netty.util.ResourceLeakDetector;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.server.config.QueryOptions;
import io.sluice.server.config.StoreApiOptions;
import io.sluice.server.query.QueryFixture;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The StoreAPI server turns leak detection off in gRPC's relocated Netty only: never in the HTTP API's
 * own Netty, never through a system property, never over a level a user chose (by property or by
 * {@code setLevel}), and only while a server runs. Real servers on real ports; both Netty copies'
 * levels and the properties are put back after each test.
 */
class StoreApiLeakDetectionTest {
    private static final List<String> SHADED_PROPERTIES = List.of(
            "io.grpc.netty.shaded.io.netty.leakDetection.level",
            "io.grpc.netty.shaded.io.netty.leakDetectionLevel",
            "io.grpc.netty.shaded.io.netty.noResourceLeakDetection");
    private static final List<String> PLAIN_PROPERTIES = List.of(
            "io.netty.leakDetection.level", "io.netty.leakDetectionLevel", "io.netty.noResourceLeakDetection");
    private static final io.netty.util.ResourceLeakDetector.Level PLAIN_PARANOID =
            io.netty.util.ResourceLeakDetector.Level.PARANOID;

    @TempDir
    Path dir;
    private QueryFixture fx;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private io.netty.util.ResourceLeakDetector.Level plainBefore;
    private ResourceLeakDetector.Level shadedBefore; // gRPC's relocated copy (imported)
    private final Map<String, String> propertiesBefore = new HashMap<>();

    @BeforeEach
    void setUp() throws Exception {
        plainBefore = io.netty.util.ResourceLeakDetector.getLevel();
        shadedBefore = ResourceLeakDetector.getLevel();
        for (String p : SHADED_PROPERTIES) { // given to this JVM: put back after the test
            String value = System.clearProperty(p);
            if (value != null) {
                propertiesBefore.put(p, value);
            }
        }
        fx = new QueryFixture(dir, 1, QueryOptions.DEFAULTS);
    }

    @AfterEach
    void tearDown() {
        fx.close();
        registry.close();
        io.netty.util.ResourceLeakDetector.setLevel(plainBefore);
        ResourceLeakDetector.setLevel(shadedBefore);
        SHADED_PROPERTIES.forEach(System::clearProperty);
        propertiesBefore.forEach(System::setProperty);
    }

    private StoreApiServer start() throws Exception {
        return StoreApiServer.start(new StoreApiOptions("127.0.0.1", 0, Map.of(), 1 << 20, null, null), fx.head,
                QueryOptions.DEFAULTS, 1, registry, () -> null);
    }

    @Test
    void offInGrpcsNettyOnlyAndOnlyWhileServing() throws Exception {
        io.netty.util.ResourceLeakDetector.setLevel(PLAIN_PARANOID); // as a test hunting HTTP API leaks sets it
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE); // Netty's default
        try (StoreApiServer first = start()) {
            assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.DISABLED);
            assertThat(io.netty.util.ResourceLeakDetector.getLevel()).as("the HTTP API's Netty").isEqualTo(PLAIN_PARANOID);
            for (String p : SHADED_PROPERTIES) {
                assertThat(System.getProperty(p)).as(p).isNull();
            }
            for (String p : PLAIN_PROPERTIES) {
                assertThat(System.getProperty(p)).as(p).isNull();
            }
            try (StoreApiServer second = start()) {
                assertThat(second.port()).isNotEqualTo(first.port());
            }
            assertThat(ResourceLeakDetector.getLevel()).as("while one server still runs")
                    .isEqualTo(ResourceLeakDetector.Level.DISABLED);
        }
        assertThat(ResourceLeakDetector.getLevel()).as("after the last server closed")
                .isEqualTo(ResourceLeakDetector.Level.SIMPLE);
        assertThat(io.netty.util.ResourceLeakDetector.getLevel()).isEqualTo(PLAIN_PARANOID);
    }

    @Test
    void aUsersPropertyWins() throws Exception {
        for (String p : SHADED_PROPERTIES) {
            // the property is read when Netty loads: here it names the level Netty already has
            System.setProperty(p, p.endsWith("noResourceLeakDetection") ? "false" : "simple");
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE);
            try (StoreApiServer server = start()) {
                assertThat(ResourceLeakDetector.getLevel()).as(p).isEqualTo(ResourceLeakDetector.Level.SIMPLE);
            }
            assertThat(ResourceLeakDetector.getLevel()).as(p).isEqualTo(ResourceLeakDetector.Level.SIMPLE);
            System.clearProperty(p);
        }
    }

    @Test
    void aLevelSetInCodeWins() throws Exception {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        try (StoreApiServer server = start()) {
            assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.PARANOID);
        }
        assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.PARANOID);
    }
}
