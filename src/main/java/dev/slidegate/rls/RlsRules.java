package dev.slidegate.rls;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The rate-limit rules of Envoy's rate-limit service, in the configuration format of envoyproxy/ratelimit (one document
 * per domain: {@code domain}, then nested {@code descriptors} of {@code key}, optional {@code value}, optional
 * {@code rate_limit}), read as that service reads them, and the match of a request's descriptor against them. What
 * Slidegate cannot honour is refused here with one sentence naming the file and the entry.
 *
 * <p>
 * Matching, as the reference service does it: the descriptor's entries are walked level by level; at each level an entry
 * {@code (k, v)} selects the rule with key {@code k} and value {@code v}, else one with key {@code k} whose value pattern
 * ({@code *} for any characters) matches {@code v}, else the rule with key {@code k} and no value. The limit is the rule
 * reached by the last entry, if it has one: a descriptor longer or shorter than the rules is not limited.
 */
public final class RlsRules {

    /** The units of {@code rate_limit.unit} and their length in seconds (a month is 30 days, a year 365). */
    public enum Unit {
        SECOND(1),
        MINUTE(60),
        HOUR(3_600),
        DAY(86_400),
        WEEK(7 * 86_400L),
        MONTH(30 * 86_400L),
        YEAR(365 * 86_400L);

        public final long seconds;

        Unit(long seconds) {
            this.seconds = seconds;
        }

        /** The unit's length in microseconds. */
        public long micros() {
            return seconds * 1_000_000;
        }
    }

    /**
     * A rule's {@code rate_limit}: {@code perUnit} per {@code unit}, or unlimited ({@code unit} then {@code null}).
     *
     * @param id the rule's place, unique in all domains ({@code domain.key_value.key}), which names its policy
     */
    public record Limit(String id, String domain, long perUnit, Unit unit, boolean unlimited, String name,
            List<String> replaces, boolean shadow, List<Plan> plans) {

        Limit(String id, String domain, long perUnit, Unit unit, boolean unlimited, String name, List<String> replaces,
                boolean shadow) {
            this(id, domain, perUnit, unit, unlimited, name, replaces, shadow, List.of());
        }

        /** This rule's limit for callers of {@code plan}: its place, name and shadow mode, the plan's rate. */
        public Limit of(Plan plan) {
            return new Limit(id + "." + plan.name(), domain, plan.perUnit(), plan.unit(), false, name, replaces, shadow,
                    List.of());
        }
    }

    /**
     * A plan's rate for a rule (Slidegate's own field {@code plans} of a {@code rate_limit}): {@code perUnit} per
     * {@code unit} for callers whose plan ({@code slidegate.rls.plan-entry}) is {@code name}.
     */
    public record Plan(String name, long perUnit, Unit unit) {
    }

    /** One rule: a key, an optional value (a pattern when it holds {@code *}), its limit and the rules below it. */
    static final class Rule {
        final String key;
        final String value;
        final boolean pattern;
        final boolean shareThreshold;
        Limit limit;
        final Map<String, Rule> exact = new HashMap<>();
        final List<Rule> patterns = new ArrayList<>();
        final Map<String, Rule> anyValue = new HashMap<>();

        Rule(String key, String value, boolean shareThreshold) {
            this.key = key;
            this.value = value;
            this.pattern = value != null && value.indexOf('*') >= 0;
            this.shareThreshold = shareThreshold;
        }

        void add(Rule child, String where) {
            Rule old;
            if (child.value == null) {
                old = anyValue.putIfAbsent(child.key, child);
            } else if (child.pattern) {
                old = patterns.stream().filter(r -> r.key.equals(child.key) && r.value.equals(child.value)).findFirst()
                        .orElse(null);
                if (old == null) {
                    patterns.add(child);
                }
            } else {
                old = exact.putIfAbsent(child.key + '\u0000' + child.value, child);
            }
            if (old != null) {
                throw new IllegalArgumentException(where + ": key '" + child.key + "'"
                        + (child.value == null ? "" : " with value '" + child.value + "'")
                        + " is listed twice at the same level");
            }
        }

        Rule next(String k, String v) {
            Rule r = exact.get(k + '\u0000' + v);
            if (r != null) {
                return r;
            }
            for (Rule p : patterns) {
                if (p.key.equals(k) && Glob.matches(p.value, v)) {
                    return p;
                }
            }
            return anyValue.get(k);
        }
    }

    /** The limit a descriptor reached and the key its permits are counted under, or {@code null} for none. */
    public record Match(Limit limit, String key) {
    }

    private static final Set<String> RULE_FIELDS = Set.of("key", "value", "descriptors", "rate_limit", "shadow_mode",
            "detailed_metric", "value_to_metric", "share_threshold");
    private static final Set<String> LIMIT_FIELDS = Set.of("unit", "requests_per_unit", "unlimited", "name", "replaces",
            "plans");
    /** A plan's name: as the plans of {@code slidegate.plans.api-keys} and a policy's name allow. */
    private static final java.util.regex.Pattern PLAN_NAME = java.util.regex.Pattern.compile("[A-Za-z0-9_-]{1,32}");
    /** The longest key or value a rule names, and the deepest nesting, as bounds against a mistyped document. */
    static final int MAX_TEXT = 256;
    static final int MAX_DEPTH = 16;

    private final Map<String, Rule> domains;
    private final List<Limit> limits;

    private RlsRules(Map<String, Rule> domains, List<Limit> limits) {
        this.domains = domains;
        this.limits = List.copyOf(limits);
    }

    /** No domain at all. */
    public static RlsRules none() {
        return new RlsRules(Map.of(), List.of());
    }

    /**
     * The rules of {@code documents}: each one parsed YAML document (maps, lists, strings, numbers, booleans) of one
     * domain, by the name of its file. Several documents of one domain are refused, as the reference service does by
     * default.
     *
     * @throws IllegalArgumentException with one sentence naming the file and the entry that cannot be honoured
     */
    public static RlsRules of(Map<String, Object> documents) {
        Map<String, Rule> domains = new LinkedHashMap<>();
        Map<String, String> fileOf = new HashMap<>();
        List<Limit> limits = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (Map.Entry<String, Object> doc : documents.entrySet()) {
            String file = doc.getKey();
            Map<String, Object> top = map(doc.getValue(), file, "the document");
            for (String field : top.keySet()) {
                if (!field.equals("domain") && !field.equals("descriptors")) {
                    throw new IllegalArgumentException(file + ": unknown field '" + field
                            + "' at the top (a domain has 'domain' and 'descriptors')");
                }
            }
            String domain = text(top.get("domain"), file, "'domain'");
            if (domain == null || domain.isEmpty()) {
                throw new IllegalArgumentException(file + ": 'domain' is missing or empty");
            }
            String other = fileOf.putIfAbsent(domain, file);
            if (other != null) {
                throw new IllegalArgumentException(file + ": domain '" + domain + "' is configured in " + other
                        + " already; keep each domain in one file");
            }
            Rule root = new Rule(null, null, false);
            read(root, top.get("descriptors"), file, domain, domain, 1, limits, ids);
            domains.put(domain, root);
        }
        Set<String> names = new HashSet<>();
        for (Limit l : limits) {
            if (l.name() != null) {
                names.add(l.domain() + '\u0000' + l.name());
            }
        }
        for (Limit l : limits) {
            for (String r : l.replaces()) {
                if (!names.contains(l.domain() + '\u0000' + r)) {
                    throw new IllegalArgumentException(
                            "rule " + l.id() + " replaces '" + r + "', a name no rate_limit of domain '"
                                    + l.domain() + "' has");
                }
            }
        }
        return new RlsRules(domains, limits);
    }

    private static void read(Rule parent, Object list, String file, String domain, String path, int depth,
            List<Limit> limits, Set<String> ids) {
        if (list == null) {
            return;
        }
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException(file + ": " + path + " nests descriptors deeper than " + MAX_DEPTH + " levels");
        }
        if (!(list instanceof List<?> rules)) {
            throw new IllegalArgumentException(file + ": 'descriptors' of " + path + " is not a list");
        }
        for (Object o : rules) {
            Map<String, Object> m = map(o, file, "a descriptor of " + path);
            for (String field : m.keySet()) {
                if (!RULE_FIELDS.contains(field)) {
                    throw new IllegalArgumentException(file + ": unknown field '" + field + "' in a descriptor of " + path
                            + (field.equals("quota_mode") || field.equals("metadata")
                                    ? " (Slidegate does not implement it)"
                                    : " (known: " + new java.util.TreeSet<>(RULE_FIELDS) + ")"));
                }
            }
            String key = text(m.get("key"), file, "'key' in " + path);
            if (key == null || key.isEmpty()) {
                throw new IllegalArgumentException(file + ": a descriptor of " + path + " has no 'key'");
            }
            String value = text(m.get("value"), file, "'value' of key '" + key + "' in " + path);
            String here = path + "." + key + (value == null ? "" : "_" + value);
            boolean share = flag(m.get("share_threshold"), file, here, "share_threshold");
            if (share && (value == null || value.indexOf('*') < 0)) {
                throw new IllegalArgumentException(file + ": " + here + " sets share_threshold, which needs a value with '*'");
            }
            flag(m.get("detailed_metric"), file, here, "detailed_metric");
            flag(m.get("value_to_metric"), file, here, "value_to_metric");
            Rule rule = new Rule(key, value, share);
            parent.add(rule, file + ": " + path);
            boolean shadow = flag(m.get("shadow_mode"), file, here, "shadow_mode");
            if (m.get("rate_limit") != null) {
                rule.limit = limit(m.get("rate_limit"), file, domain, here, shadow, ids);
                limits.add(rule.limit);
            } else if (shadow) {
                throw new IllegalArgumentException(file + ": " + here + " sets shadow_mode but has no rate_limit");
            }
            read(rule, m.get("descriptors"), file, domain, here, depth + 1, limits, ids);
        }
    }

    private static Limit limit(Object o, String file, String domain, String here, boolean shadow, Set<String> ids) {
        Map<String, Object> m = map(o, file, "rate_limit of " + here);
        for (String field : m.keySet()) {
            if (!LIMIT_FIELDS.contains(field)) {
                throw new IllegalArgumentException(file + ": unknown field '" + field + "' in rate_limit of " + here);
            }
        }
        String name = text(m.get("name"), file, "'name' in rate_limit of " + here);
        List<String> replaces = new ArrayList<>();
        if (m.get("replaces") != null) {
            if (!(m.get("replaces") instanceof List<?> list)) {
                throw new IllegalArgumentException(file + ": 'replaces' in rate_limit of " + here + " is not a list");
            }
            for (Object r : list) {
                Map<String, Object> rm = map(r, file, "'replaces' of " + here);
                String n = text(rm.get("name"), file, "'name' in 'replaces' of " + here);
                if (n == null || rm.size() != 1) {
                    throw new IllegalArgumentException(file + ": each entry of 'replaces' in " + here + " is '- name: <name>'");
                }
                replaces.add(n);
            }
        }
        String id = unique(here, ids);
        if (flag(m.get("unlimited"), file, here, "unlimited")) {
            if (m.get("unit") != null || m.get("requests_per_unit") != null) {
                throw new IllegalArgumentException(file + ": rate_limit of " + here
                        + " is unlimited and names a unit or requests_per_unit too");
            }
            if (m.get("plans") != null) {
                throw new IllegalArgumentException(file + ": rate_limit of " + here + " is unlimited and has plans too");
            }
            return new Limit(id, domain, 0, null, true, name, List.copyOf(replaces), shadow);
        }
        String where = "rate_limit of " + here;
        Unit unit = unit(m.get("unit"), file, where);
        long perUnit = perUnit(m.get("requests_per_unit"), file, where);
        List<Plan> plans = new ArrayList<>();
        if (m.get("plans") != null) {
            Map<String, Object> byName = map(m.get("plans"), file, "'plans' of " + where);
            for (Map.Entry<String, Object> e : byName.entrySet()) {
                String plan = e.getKey();
                if (!PLAN_NAME.matcher(plan).matches()) {
                    throw new IllegalArgumentException(file + ": 'plans' of " + where + " names plan '"
                            + (plan.length() > 40 ? plan.substring(0, 40) + "..." : plan)
                            + "'; a plan's name is 1 to 32 letters, digits, '_' or '-'");
                }
                String at = "plan '" + plan + "' of " + where;
                Map<String, Object> pm = map(e.getValue(), file, at);
                for (String field : pm.keySet()) {
                    if (!field.equals("unit") && !field.equals("requests_per_unit")) {
                        throw new IllegalArgumentException(file + ": unknown field '" + field + "' in " + at
                                + " (a plan has 'unit' and 'requests_per_unit')");
                    }
                }
                long n = perUnit(pm.get("requests_per_unit"), file, at);
                if (n == 0) {
                    throw new IllegalArgumentException(file + ": " + at + " allows 0 requests; a plan allows at least 1 "
                            + "(leave its callers out of slidegate.plans.api-keys to give them the rule's own limit)");
                }
                plans.add(new Plan(plan, n, unit(pm.get("unit"), file, at)));
            }
        }
        return new Limit(id, domain, perUnit, unit, false, name, List.copyOf(replaces), shadow, List.copyOf(plans));
    }

    private static Unit unit(Object o, String file, String where) {
        String unitText = text(o, file, "'unit' in " + where);
        for (Unit u : Unit.values()) {
            if (u.name().equalsIgnoreCase(unitText == null ? "" : unitText.trim())) {
                return u;
            }
        }
        throw new IllegalArgumentException(file + ": " + where + " has unit '" + unitText
                + "'; one of second, minute, hour, day, week, month, year");
    }

    private static long perUnit(Object n, String file, String where) {
        if (!(n instanceof Number number) || number.longValue() != number.doubleValue() || number.longValue() < 0
                || number.longValue() > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException(file + ": " + where + " has requests_per_unit '" + n
                    + "'; a whole number from 0 to 4294967295");
        }
        return number.longValue();
    }

    /** A rule's place as an id: unique among all rules, even where two places differ only in characters dropped later. */
    private static String unique(String here, Set<String> ids) {
        String id = here;
        for (int i = 2; !ids.add(id.toLowerCase(Locale.ROOT)); i++) {
            id = here + "#" + i;
        }
        return id;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o, String file, String what) {
        if (!(o instanceof Map<?, ?> m)) {
            throw new IllegalArgumentException(file + ": " + what + " is not a map of fields");
        }
        for (Object k : m.keySet()) {
            if (!(k instanceof String)) {
                throw new IllegalArgumentException(file + ": " + what + " has a field named " + k + ", not a word");
            }
        }
        return (Map<String, Object>) m;
    }

    private static String text(Object o, String file, String what) {
        if (o == null) {
            return null;
        }
        if (o instanceof Map || o instanceof List) {
            throw new IllegalArgumentException(file + ": " + what + " is not a text");
        }
        String s = String.valueOf(o);
        if (s.length() > MAX_TEXT) {
            throw new IllegalArgumentException(file + ": " + what + " is longer than " + MAX_TEXT + " characters");
        }
        return s;
    }

    private static boolean flag(Object o, String file, String here, String field) {
        if (o == null) {
            return false;
        }
        if (!(o instanceof Boolean b)) {
            throw new IllegalArgumentException(file + ": " + field + " of " + here + " is '" + o + "', not true or false");
        }
        return b;
    }

    /** Every limit of every domain, in the order of the files. */
    public List<Limit> limits() {
        return limits;
    }

    /** Whether {@code domain} is configured. */
    public boolean knows(String domain) {
        return domains.containsKey(domain);
    }

    /** The domains configured. */
    public Set<String> domains() {
        return Collections.unmodifiableSet(domains.keySet());
    }

    /**
     * The limit a descriptor of {@code domain} reaches and its key, or {@code null} when it reaches none (an unknown
     * domain, no rule for it, or a rule without {@code rate_limit}).
     *
     * @param keys the entries' keys
     * @param values the entries' values, in the same order
     */
    public Match match(String domain, List<String> keys, List<String> values) {
        Rule at = domains.get(domain);
        if (at == null || keys.isEmpty()) {
            return null;
        }
        StringBuilder key = new StringBuilder();
        for (int i = 0; i < keys.size(); i++) {
            Rule next = at.next(keys.get(i), values.get(i));
            if (next == null) {
                return null;
            }
            if (i > 0) {
                key.append('|');
            }
            escape(key, keys.get(i)).append('=');
            escape(key, next.shareThreshold ? next.value : values.get(i));
            at = next;
        }
        return at.limit == null ? null : new Match(at.limit, key.toString());
    }

    /** Appends {@code s} with {@code %}, {@code |} and {@code =} escaped, so that no two descriptors share a key. */
    private static StringBuilder escape(StringBuilder out, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%' || c == '|' || c == '=') {
                out.append('%').append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 15, 16));
            } else {
                out.append(c);
            }
        }
        return out;
    }

    /** {@code *} for any run of characters (none included), every other character itself. */
    static final class Glob {
        private Glob() {
        }

        static boolean matches(String pattern, String text) {
            int p = 0;
            int t = 0;
            int star = -1;
            int mark = 0;
            while (t < text.length()) {
                if (p < pattern.length() && pattern.charAt(p) != '*' && pattern.charAt(p) == text.charAt(t)) {
                    p++;
                    t++;
                } else if (p < pattern.length() && pattern.charAt(p) == '*') {
                    star = p++;
                    mark = t;
                } else if (star >= 0) {
                    p = star + 1;
                    t = ++mark;
                } else {
                    return false;
                }
            }
            while (p < pattern.length() && pattern.charAt(p) == '*') {
                p++;
            }
            return p == pattern.length();
        }
    }
}
