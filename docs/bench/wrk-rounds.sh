#!/usr/bin/env bash
# Requests per second and the service's CPU per request (user + kernel, from /proc/PID/stat) of several native
# executables (or settings), in interleaved rounds: wrk -t2 -c64 for 10 s after a 5 s warm-up, one process a run.
#
#   docs/bench/wrk-rounds.sh ROUNDS PATH LABEL=EXECUTABLE[,-Dproperty=value...] ...
#   e.g. docs/bench/wrk-rounds.sh 3 /api/products before=/tmp/runner-before after=target/slidegate-0.1.0-SNAPSHOT-runner
#        docs/bench/wrk-rounds.sh 3 /api/products off=java,-Dslidegate.enabled=false,-jar,target/quarkus-app/quarkus-run.jar
#        docs/bench/wrk-rounds.sh 2 /api/products admitted=target/slidegate-0.1.0-SNAPSHOT-runner,-Dslidegate.policies.products.limits=1000000000/1m \
#                                                 refused=target/slidegate-0.1.0-SNAPSHOT-runner,-Dslidegate.policies.products.limits=1/1h
#   env: PORT=18086; needs wrk (apt-get install wrk)
set -uo pipefail
rounds=${1:?usage: wrk-rounds.sh ROUNDS PATH LABEL=EXECUTABLE[,-D...] ...}; path=${2:?usage}; shift 2; port=${PORT:-18086}
hz=$(getconf CLK_TCK)
for ((r = 1; r <= rounds; r++)); do
  for spec in "$@"; do
    label=${spec%%=*}; IFS=, read -r -a cmd <<< "${spec#*=}"
    # the port right after the executable: before java's -jar, where a system property must go
    "${cmd[0]}" -Dquarkus.http.port="$port" "${cmd[@]:1}" > /dev/null 2>&1 & pid=$!
    until curl -s -o /dev/null "http://127.0.0.1:$port/q/health/live"; do sleep 0.02; kill -0 $pid 2>/dev/null || exit 1; done
    wrk -t2 -c64 -d5s "http://127.0.0.1:$port$path" > /dev/null
    read -r u0 s0 < <(awk '{print $14, $15}' /proc/$pid/stat)
    out=$(wrk -t2 -c64 -d10s "http://127.0.0.1:$port$path")
    read -r u1 s1 < <(awk '{print $14, $15}' /proc/$pid/stat)
    n=$(awk '/requests in/{print $1}' <<< "$out")
    printf 'round %d %-10s %s requests/s, service CPU %s us/request (user %s, kernel %s), non-2xx %s\n' "$r" "$label" \
      "$(awk '/Requests\/sec/{print $2}' <<< "$out")" \
      "$(awk -v c=$((u1 - u0 + s1 - s0)) -v n="$n" -v hz="$hz" 'BEGIN{printf "%.1f", c * 1e6 / hz / n}')" \
      "$(awk -v c=$((u1 - u0)) -v n="$n" -v hz="$hz" 'BEGIN{printf "%.1f", c * 1e6 / hz / n}')" \
      "$(awk -v c=$((s1 - s0)) -v n="$n" -v hz="$hz" 'BEGIN{printf "%.1f", c * 1e6 / hz / n}')" \
      "$(awk '/Non-2xx/{print $5}' <<< "$out")"
    kill $pid; wait $pid 2>/dev/null
  done
done
