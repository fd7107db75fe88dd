package io.sluice.e2e;

import org.junit.jupiter.api.AfterEach;

/** A test on one {@link CrashScenario}, closed after each test (kills the server, even after a failure). */
abstract class ScenarioTest {
    protected CrashScenario scenario;

    @AfterEach
    void closeScenario() {
        if (scenario != null) {
            scenario.close();
            scenario = null;
        }
    }
}
