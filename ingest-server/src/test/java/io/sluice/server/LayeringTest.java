package io.sluice.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.library.dependencies.SliceRule;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Layering inside the server, read from its compiled classes (every reference counts: imports,
 * fully qualified names, signatures, calls): payload formats know nothing of where payloads come
 * from or go; the query side knows nothing of Kafka; configuration knows no transport and no layer
 * (each layer's options are records in {@code config}); the server's packages, each with its
 * subpackages ({@code PayloadFormat} is the catalog of the format packages below it), form no cycle;
 * and the root's classes (the service's wiring) know nothing of the command line that starts them.
 * The rules name packages, not classes, so they hold as classes move between them. The core's packages
 * (read from the classpath) form no cycle: the series store fills {@code SeriesSnapshot}s of its own
 * package, and the read side ({@code HeadQuery}, {@code LabelOrder}) sits above the shards it reads. Module boundaries
 * (server -> core -> wal) are the enforcer's bannedDependencies in each module's pom.
 */
class LayeringTest {
    private static final String FORMAT = "..server.format..";
    private static final String QUERY = "..server.query..";
    private static final String CONFIG = "..server.config..";
    private static final String KAFKA = "..server.kafka..";
    private static final String HTTP = "..server.http..";
    private static final String KAFKA_CLIENTS = "org.apache.kafka..";
    private static final String NETTY = "io.netty..";


    private static JavaClasses server;
    private static JavaClasses core;

    @BeforeAll
    static void importTheServer() {
        // The module's own main classes only; what they reference is named, not read (archunit.properties).
        server = new ClassFileImporter().importPath(Path.of("target", "classes"));
        core = new ClassFileImporter().importPackages("io.sluice.core");
    }

    @Test
    void theServerIsThere() {
        // A rule over no classes passes: make sure the import found the server and each layer.
        for (String layer : new String[] {"format", "query", "config", "kafka", "http"}) {
            assertThat(server.stream().anyMatch(c -> c.getPackageName().startsWith("io.sluice.server." + layer)))
                    .as("classes in io.sluice.server.%s", layer).isTrue();
        }
        assertThat(core.stream().anyMatch(c -> c.getPackageName().equals("io.sluice.core.head.shard")))
                .as("the core's classes").isTrue();
    }

    @Test
    void formatsKnowNoTransportAndNoQuery() {
        check(noClasses().that().resideInAPackage(FORMAT)
                .should().dependOnClassesThat().resideInAnyPackage(KAFKA, QUERY, HTTP, KAFKA_CLIENTS, NETTY)
                .because("a payload format turns bytes into samples, whatever carried them"));
    }

    @Test
    void theQuerySideKnowsNoKafka() {
        check(noClasses().that().resideInAPackage(QUERY)
                .should().dependOnClassesThat().resideInAnyPackage(KAFKA, KAFKA_CLIENTS)
                .because("queries read the head; ingestion from Kafka is another path"));
    }

    @Test
    void configurationKnowsNoTransport() {
        check(noClasses().that().resideInAPackage(CONFIG)
                .should().dependOnClassesThat().resideInAnyPackage(KAFKA, HTTP, NETTY)
                .orShould().dependOnClassesThat(kafkaBeyondItsPropertyNames())
                .because("configuration is parsed and checked without opening a connection; the only Kafka classes "
                        + "it reads are the clients' catalogs of property names, to reject a misspelt kafka.* key"));
    }

    @Test
    void theServerPackagesFormNoCycle() {
        serverCycles().because("configuration holds every layer's options and the layers read them; the query side "
                + "writes through http; the StoreAPI reads no query class").check(server);
    }

    @Test
    void theServiceKnowsNoCommandLine() {
        check(noClasses().that().resideInAPackage("io.sluice.server")
                .should().dependOnClassesThat().resideInAPackage("..server.cli..")
                .because("the commands start the service (cli.Main is the entry point); the service runs without them"));
    }

    @Test
    void theCorePackagesFormNoCycle() {
        coreCycles().because("the shard calls checkpoints, replay, series and chunk files, which never reach back into it: "
                + "the counters (head.stats) and stream ids (head.stream) they share sit below them all, and the read side "
                + "above the shards").check(core);
    }

    /**
     * The rules fail where they should: a class of the server that does use Kafka breaks the query rule,
     * and slicing the server by every package finds the format catalog's cycle with its subpackages.
     */
    @Test
    void theRulesCanFail() {
        JavaClasses kafkaLayer = server.that(JavaClass.Predicates.resideInAPackage(KAFKA));
        EvaluationResult result = noClasses().that().resideInAPackage(KAFKA)
                .should().dependOnClassesThat().resideInAnyPackage(KAFKA_CLIENTS)
                .evaluate(kafkaLayer);
        assertThat(result.hasViolation()).isTrue();
        assertThat(slices().matching("io.sluice.server.(**)").should().beFreeOfCycles().evaluate(server).hasViolation())
                .as("the format catalog's cycle with the format packages").isTrue();
    }

    private static SliceRule serverCycles() {
        return slices().matching("io.sluice.server.(*)..").should().beFreeOfCycles();
    }

    private static SliceRule coreCycles() {
        return slices().matching("io.sluice.core.(**)").should().beFreeOfCycles();
    }

    /** Kafka classes other than the clients' {@code *Config} property catalogs. */
    private static DescribedPredicate<JavaClass> kafkaBeyondItsPropertyNames() {
        return DescribedPredicate.describe("are Kafka classes other than the clients' *Config property catalogs",
                c -> c.getPackageName().startsWith("org.apache.kafka")
                        && !(c.getPackageName().startsWith("org.apache.kafka.clients.") && c.getSimpleName().endsWith("Config")));
    }

    private static void check(ArchRule rule) {
        rule.check(server);
    }
}
