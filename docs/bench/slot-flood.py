#!/usr/bin/env python3
"""A flood of callers waiting for the slots of a policy of calls in flight, judged by the endpoint's own clock.

Start the demo jar on Redis with a max-wait on its archives policy (2 slots per API key), e.g.
  redis-server --port 6390 --save "" --daemonize yes
  SLIDEGATE_POLICIES_ARCHIVES_MAX_WAIT=10s QUARKUS_HTTP_PORT=8091 java -Dslidegate.store=redis \
      -Dquarkus.redis.hosts=redis://localhost:6390 -jar target/quarkus-app/quarkus-run.jar
then:
  python3 docs/bench/slot-flood.py 8091 1000 4 0.2        # 2 holders of 4 s, then 1000 waiters of 0.2 s each
  python3 docs/bench/slot-flood.py 8091 1000 6 0.2 1.0    # the same, each waiter's client leaving after 1 s
With PROBE=1 in the environment, a separate process also calls another API key of the same policy (0.1 s archives)
and another policy (GET /api/products) one after the other, 2 s alone before the flood and then all through it, and
prints their latencies (median, 99th percentile) alone and under the flood, side by side.
It prints when the holders ended, when the first waiter started (the archive's own startedAt), how many ran and
how many slot-seconds they used of those free before their max-wait ran out; with leavers, whether a caller of a
fresh key is still answered and the holders kept their slots. Local traffic only; it ends by itself.
"""
import datetime
import http.client
import json
import multiprocessing
import os
import sys
import threading
import time
from collections import Counter

port, n, hold, work = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
leave = float(sys.argv[5]) if len(sys.argv) > 5 else 0
key = "flood-%d" % time.time()
results, lock = [], threading.Lock()


def call(seconds, tag, timeout):
    t0 = time.time()
    try:
        c = http.client.HTTPConnection("localhost", port, timeout=timeout)
        c.request("GET", "/api/reports/archive?seconds=%s" % seconds, headers={"X-Api-Key": key})
        r = c.getresponse()
        body, status = r.read().decode(), r.status
    except Exception as e:  # a client that leaves
        body, status = "", type(e).__name__
    with lock:
        results.append((tag, t0, time.time(), status, body))


def probe(stop_at, stop, out):
    """Other keys and policies, one call after the other until stop_at or stop: (sent, kind, ms, status)."""
    other = "probe-%d" % time.time()
    seen = []
    while time.time() < stop_at and not stop.value:
        for kind, path, headers in (("other key", "/api/reports/archive?seconds=0.1", {"X-Api-Key": other}),
                                    ("other policy", "/api/products", {})):
            t0 = time.time()
            try:
                c = http.client.HTTPConnection("localhost", port, timeout=30)
                c.request("GET", path, headers=headers)
                r = c.getresponse()
                r.read()
                status = r.status
            except Exception as e:
                status = type(e).__name__
            ms = (time.time() - t0) * 1000 - (100 if kind == "other key" and status == 200 else 0)
            seen.append((t0, kind, ms, status))
        time.sleep(0.02)
    out.put(seen)


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


probing = os.environ.get("PROBE") == "1"
if probing:
    probes = multiprocessing.Queue()
    stop = multiprocessing.Value("i", 0)
    alone = multiprocessing.Process(target=probe, args=(time.time() + 2, stop, probes))
    alone.start()
    baseline = probes.get()
    alone.join()
start = time.time()
if probing:
    during = multiprocessing.Process(target=probe, args=(start + 0.5 + 60, stop, probes))
holders = [threading.Thread(target=call, args=(hold, "holder", 60)) for _ in range(2)]
for t in holders:
    t.start()
time.sleep(0.5)
waiters = [threading.Thread(target=call, args=(work, "waiter", leave or 60)) for _ in range(n)]
if probing:
    during.start()
for t in waiters:
    t.start()
for t in waiters:
    t.join()
if probing:
    stop.value = 1
    flood = probes.get()
    during.join()
    for kind in ("other key", "other policy"):
        a = [p[2] for p in baseline if p[1] == kind]
        f = [p[2] for p in flood if p[1] == kind]
        print("%s: alone median %.1f ms, p99 %.1f ms (%d calls); under the flood median %.1f ms, p99 %.1f ms (%d calls, "
              "statuses %s)" % (kind, percentile(a, 0.5), percentile(a, 0.99), len(a), percentile(f, 0.5),
                                percentile(f, 0.99), len(f), dict(Counter(p[3] for p in flood if p[1] == kind))))
if leave:
    t0 = time.time()
    c = http.client.HTTPConnection("localhost", port, timeout=10)
    c.request("GET", "/api/reports/archive?seconds=0.1", headers={"X-Api-Key": "fresh-%d" % time.time()})
    r = c.getresponse()
    r.read()
    print("a fresh key after the leavers: %s in %.0f ms" % (r.status, (time.time() - t0) * 1000))
for t in holders:
    t.join()
print("answers", dict(Counter((r[0], r[3]) for r in results)))
freed = max(r[2] for r in results if r[0] == "holder") - start
print("holders ended at %.2f s" % freed)
ran = [r for r in results if r[0] == "waiter" and r[3] == 200]
if ran:
    def at(s):
        return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp() - start
    starts = sorted(at(json.loads(r[4])["startedAt"]) for r in ran)
    deadline = 0.5 + 10  # the waiters' max-wait (10 s in the command above) from when they were sent
    free = max(0.0, deadline - freed) * 2
    print("first waiter started %.0f ms after the slots freed; %d ran, %.0f%% of the %.1f slot-seconds free until "
          "the max-wait ran out" % ((starts[0] - freed) * 1000, len(ran), 100 * min(1.0, len(ran) * work / free), free))
