#!/usr/bin/env python3
"""A flood of callers waiting for the slots of a policy of calls in flight, judged by the endpoint's own clock.

Start the demo jar on Redis with a max-wait on its archives policy (2 slots per API key), e.g.
  redis-server --port 6390 --save "" --daemonize yes
  SLIDEGATE_POLICIES_ARCHIVES_MAX_WAIT=10s QUARKUS_HTTP_PORT=8091 java -Dslidegate.store=redis \
      -Dquarkus.redis.hosts=redis://localhost:6390 -jar target/quarkus-app/quarkus-run.jar
then:
  python3 docs/bench/slot-flood.py 8091 1000 4 0.2        # 2 holders of 4 s, then 1000 waiters of 0.2 s each
  python3 docs/bench/slot-flood.py 8091 1000 6 0.2 1.0    # the same, each waiter's client leaving after 1 s
It prints when the holders ended, when the first waiter started (the archive's own startedAt), how many ran and
how many slot-seconds they used of those free before their max-wait ran out; with leavers, whether a caller of a
fresh key is still answered and the holders kept their slots. Local traffic only; it ends by itself.
"""
import datetime
import http.client
import json
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


start = time.time()
holders = [threading.Thread(target=call, args=(hold, "holder", 60)) for _ in range(2)]
for t in holders:
    t.start()
time.sleep(0.5)
waiters = [threading.Thread(target=call, args=(work, "waiter", leave or 60)) for _ in range(n)]
for t in waiters:
    t.start()
for t in waiters:
    t.join()
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
