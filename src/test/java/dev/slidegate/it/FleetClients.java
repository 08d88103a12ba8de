package dev.slidegate.it;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Random;

/**
 * Clients that call a fleet flat out, each its own thread, spread over the instances in turn: the load of the fleet
 * tests. What each call asks and records is the test's; anything a call throws is recorded as unexpected.
 */
final class FleetClients {

    /** One call of one client: {@code random} is the client's own (seeded with its number). */
    interface Call {
        void ask(HttpClient http, ServiceProcess target, Random random) throws Exception;
    }

    private FleetClients() {
    }

    /** Runs {@code count} clients over {@code instances} for {@code nanos}, then waits for their last calls. */
    static void run(List<ServiceProcess> instances, int count, long nanos, Queue<String> unexpected, Call call)
            throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        long stop = System.nanoTime() + nanos;
        List<Thread> clients = new ArrayList<>();
        for (int t = 0; t < count; t++) {
            int client = t;
            Thread th = new Thread(() -> {
                Random random = new Random(client);
                int i = client;
                while (System.nanoTime() < stop) {
                    try {
                        call.ask(http, instances.get(i++ % instances.size()), random);
                    } catch (InterruptedException e) {
                        return;
                    } catch (Exception e) {
                        unexpected.add(e.toString());
                    }
                }
            });
            th.start();
            clients.add(th);
        }
        for (Thread th : clients) {
            th.join();
        }
    }
}
