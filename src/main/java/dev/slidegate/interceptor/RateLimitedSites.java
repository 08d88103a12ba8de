package dev.slidegate.interceptor;

import java.util.ArrayList;
import java.util.LinkedHashSet;
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
import jakarta.enterprise.lang.model.AnnotationMember;
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

    /** Separates the fields of one site, and the items of a list field: characters no Java name or annotation member holds. */
    static final char FIELD = '\u001f';
    static final char ITEM = '\u001e';

    private final Set<String> found = new LinkedHashSet<>();

    @Registration(types = Object.class)
    public void bean(BeanInfo bean) {
        if (!bean.isClassBean() || bean.isInterceptor()) { // the interceptor carries the binding itself
            return;
        }
        ClassInfo type = bean.declaringClass();
        List<AnnotationInfo> onClass = bindings(type.annotations(a -> isBinding(a)));
        for (MethodInfo m : type.methods()) {
            List<AnnotationInfo> on = bindings(m.annotations(a -> isBinding(a)));
            if (on.isEmpty() && !onClass.isEmpty() && !m.isStatic() && !m.isConstructor()
                    && !java.lang.reflect.Modifier.isPrivate(m.modifiers())) {
                on = onClass;
            }
            if (on.isEmpty()) {
                continue;
            }
            int keyParameters = (int) m.parameters().stream().filter(p -> p.hasAnnotation(RateLimitKey.class)).count();
            for (AnnotationInfo a : on) {
                found.add(String.join(String.valueOf(FIELD), type.simpleName(), m.name(), m.returnType().toString(),
                        Integer.toString(keyParameters), text(a, "value"), list(a, "limits"), text(a, "strategy"),
                        text(a, "key"), enumName(a, "countRejected"), enumName(a, "dryRun"),
                        Integer.toString(number(a, "cost")), signature(type, m)));
            }
        }
    }

    @Synthesis
    public void register(SyntheticComponents components) {
        components.addBean(Sites.class).type(Sites.class).scope(Singleton.class)
                .withParam("sites", found.toArray(new String[0])).createWith(Sites.Creator.class);
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

    private static String text(AnnotationInfo a, String member) {
        return a.hasMember(member) ? a.member(member).asString() : "";
    }

    private static String list(AnnotationInfo a, String member) {
        if (!a.hasMember(member)) {
            return "";
        }
        List<String> items = a.member(member).asArray().stream().map(AnnotationMember::asString).toList();
        return String.join(String.valueOf(ITEM), items);
    }

    private static String enumName(AnnotationInfo a, String member) {
        return a.hasMember(member) ? a.member(member).asEnumConstant() : RateLimited.Toggle.UNSET.name();
    }

    private static int number(AnnotationInfo a, String member) {
        return a.hasMember(member) ? a.member(member).asInt() : 0;
    }

    /** Every {@code @RateLimited} of the application, as found while it was built: one entry per annotation. */
    public static final class Sites {

        /** One {@code @RateLimited} on one method. */
        public record Site(String where, String returnType, int keyParameters, String value, List<String> limits,
                String strategy, String key, RateLimited.Toggle countRejected, RateLimited.Toggle dryRun, int cost,
                String signature) {

            static Site parse(String encoded) {
                String[] f = encoded.split(String.valueOf(FIELD), -1);
                List<String> limits = f[5].isEmpty() ? List.of() : List.of(f[5].split(String.valueOf(ITEM), -1));
                return new Site(f[0] + "#" + f[1], f[2], Integer.parseInt(f[3]), f[4], limits, f[6], f[7],
                        RateLimited.Toggle.valueOf(f[8]), RateLimited.Toggle.valueOf(f[9]), Integer.parseInt(f[10]), f[11]);
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
                String[] encoded = params.get("sites", String[].class, new String[0]);
                List<Site> sites = new ArrayList<>();
                for (String e : encoded) {
                    sites.add(Site.parse(e));
                }
                return new Sites(sites);
            }
        }
    }
}
