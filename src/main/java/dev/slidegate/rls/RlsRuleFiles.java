package dev.slidegate.rls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * Reads envoyproxy/ratelimit's rule files (YAML, one domain a file) with Jackson's YAML parser into maps, lists and
 * scalars, for {@link RlsRules}. Only touched where the service turned the rate-limit service on, so a service without
 * {@code jackson-dataformat-yaml} never loads it.
 */
final class RlsRuleFiles {

    /** The prefix of a file packaged with the service: {@code classpath:rules/edge.yaml}. */
    static final String CLASSPATH = "classpath:";

    private RlsRuleFiles() {
    }

    /**
     * The rules of the files and directories {@code paths} names.
     *
     * @throws ConfigurationException with one sentence: no file, a file that cannot be read or parsed, a rule that cannot
     *         be honoured
     */
    static RlsRules read(List<String> paths) {
        if (paths.isEmpty()) {
            throw new ConfigurationException("slidegate.rls.enabled=true needs slidegate.rls.config: the rule files (or "
                    + "directories of them) in envoyproxy/ratelimit's YAML format");
        }
        Map<String, Object> documents = new LinkedHashMap<>();
        YAMLMapper yaml = new YAMLMapper();
        for (String p : paths) {
            if (p.trim().startsWith(CLASSPATH)) { // a file packaged with the service (a native image lists it in its resources)
                String name = p.trim().substring(CLASSPATH.length());
                ClassLoader loader = Thread.currentThread().getContextClassLoader();
                try (java.io.InputStream in = (loader != null ? loader : RlsRuleFiles.class.getClassLoader())
                        .getResourceAsStream(name)) {
                    if (in == null) {
                        throw new ConfigurationException("slidegate.rls.config: " + p.trim() + " is not on the class path"
                                + " (a native executable has it only where quarkus.native.resources.includes names it)");
                    }
                    documents.put(p.trim(), yaml.readValue(in, Object.class));
                } catch (IOException e) {
                    throw new ConfigurationException("slidegate.rls.config: " + p.trim() + " is not YAML Slidegate can read ("
                            + firstLine(e.getMessage()) + ")");
                }
                continue;
            }
            Path path = Path.of(p.trim());
            List<Path> files = new ArrayList<>();
            if (Files.isDirectory(path)) {
                try (Stream<Path> list = Files.list(path)) {
                    list.filter(
                            f -> Files.isRegularFile(f) && (f.toString().endsWith(".yaml") || f.toString().endsWith(".yml")))
                            .sorted().forEach(files::add);
                } catch (IOException e) {
                    throw new ConfigurationException("slidegate.rls.config: cannot list " + path + " (" + e.getMessage() + ")");
                }
            } else if (Files.isRegularFile(path)) {
                files.add(path);
            } else {
                throw new ConfigurationException("slidegate.rls.config: " + path + " is no file or directory");
            }
            for (Path f : files) {
                try {
                    documents.put(f.toString(), yaml.readValue(f.toFile(), Object.class));
                } catch (IOException e) {
                    throw new ConfigurationException("slidegate.rls.config: " + f + " is not YAML Slidegate can read ("
                            + firstLine(e.getMessage()) + ")");
                }
            }
        }
        if (documents.isEmpty()) {
            throw new ConfigurationException("slidegate.rls.config: no .yaml or .yml file in " + paths);
        }
        try {
            return RlsRules.of(documents);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException("slidegate.rls.config: " + e.getMessage());
        }
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "no detail";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }

    /** For tests: the rules of YAML texts, by a file name each. */
    static RlsRules parse(Map<String, String> texts) {
        Map<String, Object> documents = new LinkedHashMap<>();
        YAMLMapper yaml = new YAMLMapper();
        texts.forEach((file, text) -> {
            try {
                documents.put(file, yaml.readValue(text, Object.class));
            } catch (IOException e) {
                throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
            }
        });
        return RlsRules.of(documents);
    }
}
