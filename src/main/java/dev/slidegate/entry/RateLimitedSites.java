package dev.slidegate.entry;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.build.compatible.spi.BeanInfo;
import jakarta.enterprise.inject.build.compatible.spi.BuildCompatibleExtension;
import jakarta.enterprise.inject.build.compatible.spi.Parameters;
import jakarta.enterprise.inject.build.compatible.spi.Registration;
import jakarta.enterprise.inject.build.compatible.spi.Synthesis;
import jakarta.enterprise.inject.build.compatible.spi.SyntheticBeanCreator;
import jakarta.enterprise.inject.build.compatible.spi.SyntheticComponents;
import jakarta.enterprise.lang.model.AnnotationInfo;
import jakarta.enterprise.lang.model.declarations.ClassInfo;
import jakarta.enterprise.lang.model.declarations.MethodInfo;
import jakarta.inject.Singleton;

import dev.slidegate.api.RateLimitKey;
import dev.slidegate.api.RateLimited;

/**
 * Finds every {@link RateLimited} method of every bean while the application is built (a CDI Lite
 * build compatible extension, run by Quarkus' ArC at build time) and hands them to the running service
 * as the {@link Sites} bean. Start-up then checks each one's policy without reflection, so a bad
 * policy name, limit or key source stops a native executable at start-up exactly as it stops the JVM,
 * instead of at the method's first call (a native image lists the methods only of classes registered
 * for reflection).
 */
public class RateLimitedSites implements BuildCompatibleExtension {

    /**
     * What the build found, one entry per {@code @RateLimited}, in parallel lists handed to run time as the synthetic
     * bean's parameters: the annotation itself (ArC recreates it at run time), and what only the build can see of its
     * method.
     */
    private final List<AnnotationInfo> found = new ArrayList<>();
    private final List<String> wheres = new ArrayList<>();
    private final List<String> returnTypes = new ArrayList<>();
    private final List<Integer> keyParameters = new ArrayList<>();
    private final List<String> signatures = new ArrayList<>();
    /** The REST client a site's calls go out through ({@link RestClients#name}), or empty for a method of this service. */
    private final List<String> clients = new ArrayList<>();
    /** The classes whose methods are recorded: each once, even were a class two beans. */
    private final Set<String> seen = new java.util.HashSet<>();

    @Registration(types = Object.class)
    public void bean(BeanInfo bean) {
        if (!bean.isClassBean() || bean.isInterceptor()) { // the interceptor carries the binding itself
            return;
        }
        ClassInfo type = bean.declaringClass();
        if (!seen.add(type.name())) {
            return;
        }
        ClassInfo restClient = restClientOf(type);
        String owner = restClient != null ? restClient.simpleName() : type.simpleName();
        String client = restClient == null ? "" : clientName(restClient);
        List<AnnotationInfo> onClass = bindings(type.annotations(a -> isBinding(a)));
        if (onClass.isEmpty() && restClient != null) {
            onClass = bindings(restClient.annotations(a -> isBinding(a)));
        }
        Set<String> declared = restClient == null ? null : new java.util.HashSet<>();
        if (restClient != null) { // the bean's own plumbing (close, setMock...) is no call to the upstream
            restClient.methods().stream().filter(m -> !m.isStatic()).forEach(m -> declared.add(nameAndParameters(m)));
        }
        Set<String> done = new java.util.HashSet<>();
        for (MethodInfo m : type.methods()) { // a class's own methods, then those it inherits (once: an override is met first)
            if ((declared != null && !declared.contains(nameAndParameters(m))) || !done.add(nameAndParameters(m))) {
                continue;
            }
            List<AnnotationInfo> on = bindings(m.annotations(a -> isBinding(a)));
            if (on.isEmpty() && !onClass.isEmpty() && !m.isStatic() && !m.isConstructor()
                    && !java.lang.reflect.Modifier.isPrivate(m.modifiers())) {
                on = onClass;
            }
            if (on.isEmpty()) {
                continue;
            }
            int keyParameters = (int) m.parameters().stream().filter(p -> p.hasAnnotation(RateLimitKey.class)).count();
            String signature = signature(type, m);
            for (AnnotationInfo a : on) {
                found.add(a);
                wheres.add(owner + "#" + m.name());
                clients.add(client);
                returnTypes.add(m.returnType().toString());
                this.keyParameters.add(keyParameters);
                signatures.add(signature);
            }
        }
    }

    @Synthesis
    public void register(SyntheticComponents components) {
        components.addBean(Sites.class).type(Sites.class).scope(Singleton.class)
                .withParam("bindings", found.toArray(new AnnotationInfo[0]))
                .withParam("wheres", wheres.toArray(new String[0]))
                .withParam("returnTypes", returnTypes.toArray(new String[0]))
                .withParam("keyParameters", keyParameters.stream().mapToInt(Integer::intValue).toArray())
                .withParam("signatures", signatures.toArray(new String[0]))
                .withParam("clients", clients.toArray(new String[0]))
                .createWith(Sites.Creator.class);
    }

    /**
     * The REST Client interface {@code type} implements when it is the CDI bean Quarkus makes of one (which carries the
     * interface's {@code @RateLimited}), else {@code null}.
     */
    private static ClassInfo restClientOf(ClassInfo type) {
        if (!type.name().endsWith(RestClients.WRAPPER_SUFFIX)) {
            return null;
        }
        for (jakarta.enterprise.lang.model.types.Type t : type.superInterfaces()) {
            if (t.isClass() && t.asClass().declaration().hasAnnotation(a -> a.name().equals(RestClients.REGISTER))) {
                return t.asClass().declaration();
            }
        }
        return null;
    }

    /** A REST client's name: its {@code configKey}, else its interface's full name, as Quarkus names its settings. */
    private static String clientName(ClassInfo restClient) {
        AnnotationInfo register = restClient.annotations(a -> a.name().equals(RestClients.REGISTER)).stream().findFirst()
                .orElse(null);
        String configKey = register != null && register.hasMember("configKey") ? register.member("configKey").asString() : "";
        return configKey.isBlank() ? restClient.name() : configKey.trim();
    }

    private static String nameAndParameters(MethodInfo m) {
        return m.name() + "(" + String.join(",", m.parameters().stream().map(p -> p.type().toString()).toList()) + ")";
    }

    /** The method exactly, e.g. {@code com.example.Shop#get(int,java.lang.String)}: overloads differ here. */
    private static String signature(ClassInfo type, MethodInfo m) {
        return type.name() + "#" + m.name() + "("
                + String.join(",", m.parameters().stream().map(p -> p.type().toString()).toList()) + ")";
    }

    private static boolean isBinding(AnnotationInfo a) {
        String name = a.name();
        return name.equals(RateLimited.class.getName()) || name.equals(RateLimited.List.class.getName());
    }

    /** Each {@code @RateLimited}, the repeated ones taken out of their container. */
    private static List<AnnotationInfo> bindings(java.util.Collection<AnnotationInfo> annotations) {
        List<AnnotationInfo> out = new ArrayList<>();
        for (AnnotationInfo a : annotations) {
            if (a.name().equals(RateLimited.List.class.getName())) {
                a.value().asArray().forEach(v -> out.add(v.asNestedAnnotation()));
            } else {
                out.add(a);
            }
        }
        return out;
    }

    /** Every {@code @RateLimited} of the application, as found while it was built: one entry per annotation. */
    public static final class Sites {

        /** One {@code @RateLimited} on one method. */
        public record Site(String where, String returnType, int keyParameters, String value, List<String> limits,
                String strategy, String key, RateLimited.Toggle countRejected, RateLimited.Toggle dryRun, int cost,
                String maxWait, String signature, String client, int maxInFlight, String lease, String unit) {

            /** A site that names no unit. */
            Site(String where, String returnType, int keyParameters, String value, List<String> limits, String strategy,
                    String key, RateLimited.Toggle countRejected, RateLimited.Toggle dryRun, int cost, String maxWait,
                    String signature, String client, int maxInFlight, String lease) {
                this(where, returnType, keyParameters, value, limits, strategy, key, countRejected, dryRun, cost, maxWait,
                        signature, client, maxInFlight, lease, "");
            }

            /** A site that sets no concurrency limit. */
            Site(String where, String returnType, int keyParameters, String value, List<String> limits, String strategy,
                    String key, RateLimited.Toggle countRejected, RateLimited.Toggle dryRun, int cost, String maxWait,
                    String signature, String client) {
                this(where, returnType, keyParameters, value, limits, strategy, key, countRejected, dryRun, cost, maxWait,
                        signature, client, 0, "");
            }

            /** A site from its annotation, as the build handed it over, and what the build saw of its method. */
            static Site of(RateLimited a, String where, String returnType, int keyParameters, String signature,
                    String client) {
                return new Site(where, returnType, keyParameters, a.value(), List.of(a.limits()), a.strategy(), a.key(),
                        a.countRejected(), a.dryRun(), a.cost(), a.maxWait(), signature, client, a.maxInFlight(), a.lease(),
                        a.unit());
            }

            /** Whether its calls go out to an upstream through a REST client. */
            boolean outgoing() {
                return !client.isEmpty();
            }

            /** The method's simple class name, e.g. {@code ReportResource} of {@code ReportResource#list}. */
            String className() {
                return where.substring(0, where.indexOf('#'));
            }

            String methodName() {
                return where.substring(where.indexOf('#') + 1);
            }
        }

        private final List<Site> sites;

        Sites(List<Site> sites) {
            this.sites = List.copyOf(sites);
        }

        public List<Site> all() {
            return sites;
        }

        /** Creates the bean at run time from what the build found. */
        public static final class Creator implements SyntheticBeanCreator<Sites> {
            @Override
            public Sites create(Instance<Object> lookup, Parameters params) {
                java.lang.annotation.Annotation[] bindings = params.get("bindings", java.lang.annotation.Annotation[].class,
                        new java.lang.annotation.Annotation[0]);
                String[] wheres = params.get("wheres", String[].class, new String[0]);
                String[] returnTypes = params.get("returnTypes", String[].class, new String[0]);
                int[] keyParameters = params.get("keyParameters", int[].class, new int[0]);
                String[] signatures = params.get("signatures", String[].class, new String[0]);
                String[] clients = params.get("clients", String[].class, new String[0]);
                List<Site> sites = new ArrayList<>(bindings.length);
                for (int i = 0; i < bindings.length; i++) {
                    sites.add(Site.of((RateLimited) bindings[i], wheres[i], returnTypes[i], keyParameters[i], signatures[i],
                            clients[i]));
                }
                return new Sites(sites);
            }
        }
    }
}
