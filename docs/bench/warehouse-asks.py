#!/usr/bin/env python3
"""How often the demo's warehouse is asked, by its own clock (the askedAt of each answer), under a burst of calls.

The warehouse (a CDI bean method returning CompletionStage, policy warehouse: 20/1s, global, max-wait=1s) is asked
by GET /api/products/{id}/stock. Start one or more demo jars on one Redis, e.g.
  redis-server --port 6390 --save "" --daemonize yes
  QUARKUS_HTTP_PORT=8191 java -Dslidegate.store=redis -Dquarkus.redis.hosts=redis://localhost:6390 \
      -jar target/quarkus-app/quarkus-run.jar &
  QUARKUS_HTTP_PORT=8192 java ... (the same, another port) &
then:  python3 docs/bench/warehouse-asks.py 8191,8192 60
It sends the calls at once, spread over the instances, and prints the answers and the most asks that fell in any
1 s and in any 0.95 s (the window less slidegate.wait.late-tolerance). Local traffic only; it ends by itself.
"""
import datetime
import http.client
import json
import sys
import threading
from collections import Counter

ports = [int(p) for p in sys.argv[1].split(",")]
n = int(sys.argv[2])
asked, statuses, lock = [], [], threading.Lock()


def call(i):
    try:
        c = http.client.HTTPConnection("localhost", ports[i % len(ports)], timeout=30)
        c.request("GET", "/api/products/%d/stock" % (1 + i % 3))
        r = c.getresponse()
        body = r.read().decode()
        with lock:
            statuses.append(r.status)
            if r.status == 200:
                at = json.loads(body)["askedAt"].replace("Z", "+00:00")
                asked.append(datetime.datetime.fromisoformat(at).timestamp())
    except Exception as e:
        with lock:
            statuses.append(type(e).__name__)


threads = [threading.Thread(target=call, args=(i,)) for i in range(n)]
for t in threads:
    t.start()
for t in threads:
    t.join()
asked.sort()


def most_in(window):
    most, j = 0, 0
    for i in range(len(asked)):
        while asked[i] - asked[j] >= window:
            j += 1
        most = max(most, i - j + 1)
    return most


print("answers", dict(Counter(statuses)), "most asks in any 1 s:", most_in(1.0), "in any 0.95 s:", most_in(0.95))
