package dev.slidegate.rls;

import java.util.List;

/**
 * A bean only where the service was built with what serves Envoy's rate-limit service ({@code quarkus-grpc} and
 * {@code jackson-dataformat-yaml}; added with {@link RlsServer} by {@link RlsParts}): start-up asks for it, without
 * touching a class of those libraries, before it lets {@code slidegate.rls.enabled=true} pass, and reads the rule files
 * through it. Everything that touches those libraries is reached only through an instance of this class or of
 * {@link RlsServer}, never through a static method, a constructor or an observer of a class that is always a bean: a
 * native build of a service without them analyses what it can reach, and fails on a class it cannot find
 * ({@code ArchitectureTest.optionalLibrariesAreReachedOnlyThroughTheirOptionalBeans}).
 */
public class RlsSupport {

    /** The rules of {@code paths} ({@code slidegate.rls.config}), or one sentence ({@link RlsRuleFiles#read}). */
    public RlsRules read(List<String> paths) {
        return RlsRuleFiles.read(paths);
    }
}
