package dev.slidegate.it;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.slidegate.testing.RedisServer;

/**
 * One redis-server and three instances of the service (the jar, or the executable), shared by the fleet tests whose
 * policies no other of them calls: {@link ThreeInstancesIT} ({@code reports}), {@link InFlightFleetIT} ({@code archives}),
 * {@link WaitingInstancesIT} ({@code warehouse}) and {@link SettledFleetIT} ({@code completion-tokens}, {@code chat-*}).
 * Each names the settings it changes; the fleet starts with all of them, at the first use, and stops after the last
 * (or when the JVM ends, if a run leaves some of them out): three starts of three instances fewer in a run. Each test
 * still warms up under keys of its own, and judges only the calls it made; a fleet that served other callers first is
 * how a service runs.
 */
final class SharedFleet implements AutoCloseable {

    /** Its users, each with the settings it changes (the demo's archives as shipped: none). */
    private static final Map<Class<?>, List<String>> USERS = Map.of(ThreeInstancesIT.class, ThreeInstancesIT.SETTINGS,
            InFlightFleetIT.class, List.of(), WaitingInstancesIT.class, WaitingInstancesIT.SETTINGS, SettledFleetIT.class,
            SettledFleetIT.SETTINGS);
    private static final Set<Class<?>> DONE = new HashSet<>();
    private static RedisServer redis;
    private static ServiceProcess.Fleet fleet;

    private final Class<?> user;

    private SharedFleet(Class<?> user) {
        this.user = user;
    }

    /** The shared fleet for {@code user}, one of {@link #USERS}; started if it is the first. */
    static synchronized SharedFleet use(Class<?> user) {
        if (!USERS.containsKey(user)) {
            throw new IllegalArgumentException(user + " is not a user of the shared fleet: add it and its settings");
        }
        if (fleet == null) {
            redis = RedisServer.start();
            List<String> properties = new ArrayList<>(List.of("-Dquarkus.redis.hosts=" + redis.uri()));
            USERS.values().forEach(properties::addAll);
            try {
                fleet = ServiceProcess.fleet(3, properties.toArray(String[]::new));
            } catch (RuntimeException e) {
                redis.close();
                redis = null;
                throw e;
            }
        }
        return new SharedFleet(user);
    }

    List<ServiceProcess> instances() {
        return fleet.instances();
    }

    /** This user is done with the fleet; after the last, it stops. */
    @Override
    public void close() {
        synchronized (SharedFleet.class) {
            DONE.add(user);
            if (DONE.containsAll(USERS.keySet()) && fleet != null) {
                fleet.close();
                redis.close();
                fleet = null;
                redis = null;
                DONE.clear();
            }
        }
    }
}
