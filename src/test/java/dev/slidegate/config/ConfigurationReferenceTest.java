package dev.slidegate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

/**
 * The configuration reference names every setting (issue 58): each setting the declarations hold
 * ({@link SettingsCheck#SETTINGS}, derived from {@link SlidegateConfig}) is in {@code docs/configuration.md}, a
 * service-wide one by its full name, a member of a policy (or of the defaults, which take the same members) in the
 * policies' table, a plan's member as {@code plans.<plan>.<member>}. A setting added to the mapping without a line in
 * the reference fails the build.
 */
class ConfigurationReferenceTest {

    @Test
    void everyDeclaredSettingIsInTheReference() throws IOException {
        String doc = Files.readString(Path.of("docs/configuration.md"));
        Map<String, String> missing = new TreeMap<>();
        for (String setting : SettingsCheck.SETTINGS.keySet()) {
            List<String> forms = documentedAs(setting);
            if (forms.stream().noneMatch(doc::contains)) {
                missing.put(setting, String.join(" or ", forms));
            }
        }
        assertEquals(Map.of(), missing, "settings the reference does not name (setting = what it should say)");
        assertTrue(SettingsCheck.SETTINGS.size() > 80);
    }

    /** How the reference may name a setting: a row of its section's table, or its full name anywhere. */
    static List<String> documentedAs(String setting) {
        for (String prefix : List.of("slidegate.policies.*.plans.*.", "slidegate.defaults.plans.*.")) {
            if (setting.startsWith(prefix)) {
                return List.of("plans.<plan>." + setting.substring(prefix.length()) + "`");
            }
        }
        for (String prefix : List.of("slidegate.policies.*.", "slidegate.defaults.")) {
            if (setting.startsWith(prefix)) {
                String member = setting.substring(prefix.length());
                return List.of("| `" + member + "` |", "`slidegate.policies.<name>." + member + "`");
            }
        }
        return List.of("`" + setting.replace(".*", ".<plan>") + "`");
    }
}
