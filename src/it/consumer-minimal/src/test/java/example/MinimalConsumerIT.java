package example;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/**
 * {@link MinimalConsumerTest} against the packaged service: the jar, and with the main build's {@code -Dnative} the
 * native executable of a service that has Slidegate and none of its optional libraries.
 */
@QuarkusIntegrationTest
class MinimalConsumerIT extends MinimalConsumerTest {
}
