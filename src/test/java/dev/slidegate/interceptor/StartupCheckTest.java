package dev.slidegate.interceptor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.util.logging.Level;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.RateLimited;
import dev.slidegate.testing.LogCapture;

/** The start-up check skips only what cannot be listed, says so, and lets any other failure through. */
class StartupCheckTest {

    /** Absent from the loader below: a method signature of {@link UsesMissingType} names it. */
    public static final class MissingType {
    }

    /** A rate-limited bean class whose methods cannot be listed when {@link MissingType} is missing. */
    @RateLimited(limits = "3/1m")
    public static class UsesMissingType {
        public MissingType make() {
            return new MissingType();
        }
    }

    /** Loads UsesMissingType itself (child first) and cannot find MissingType; everything else from the parent. */
    private static final class WithoutMissingType extends ClassLoader {
        WithoutMissingType() {
            super(StartupCheckTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.equals(MissingType.class.getName())) {
                throw new ClassNotFoundException(name);
            }
            if (!name.equals(UsesMissingType.class.getName())) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded != null) {
                    return loaded;
                }
                try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                    byte[] bytes = in.readAllBytes();
                    return defineClass(name, bytes, 0, bytes.length);
                } catch (IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
            }
        }
    }

    // a rate-limited class whose methods cannot be listed (a missing optional class) does not stop the
    // start-up, but a WARNING names it and says its policies are checked at first call
    @Test
    void aClassWhoseMethodsCannotBeListedIsNamed() throws Exception {
        Class<?> type = new WithoutMissingType().loadClass(UsesMissingType.class.getName());
        assertThrows(LinkageError.class, type::getDeclaredMethods, "the scenario: listing fails");
        try (LogCapture log = LogCapture.of("dev.slidegate")) {
            assertEquals(0, StartupCheck.check(type, null));
            assertTrue(log.records().stream()
                    .anyMatch(r -> r.getLevel().intValue() >= Level.WARNING.intValue()
                            && r.getMessage().contains("UsesMissingType")
                            && r.getMessage().contains("first call")),
                    log.lines().toString());
        }
    }
}
