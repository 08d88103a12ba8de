#!/usr/bin/env bash
# What a request allocates on the JVM, exactly: the service's jar on Epsilon GC (nothing is ever collected) without
# thread-local allocation buffers (no slack), the heap's used bytes read before and after N requests on one
# kept-alive connection, after as many to warm up.
#
#   docs/bench/jvm-alloc.sh JAR PATH [N] [-Dproperty=value ...]
#   e.g. docs/bench/jvm-alloc.sh /tmp/host/slidegate-0.1.0-SNAPSHOT-properties/target/quarkus-app/quarkus-run.jar /orders 2000
#   env: PORT=18091
set -uo pipefail
jar=${1:?usage: jvm-alloc.sh JAR PATH [N] [-D...]}; path=${2:?usage}; shift 2
n=2000; [[ ${1:-} =~ ^[0-9]+$ ]] && { n=$1; shift; }
port=${PORT:-18091}
log=$(mktemp); trap 'rm -f "$log"' EXIT
java -XX:+UnlockExperimentalVMOptions -XX:+UseEpsilonGC -XX:-UseTLAB -Xms3g -Xmx3g -Dquarkus.http.port="$port" "$@" \
    -jar "$jar" > "$log" 2>&1 & pid=$!
until curl -s -o /dev/null "http://127.0.0.1:$port$path"; do
  kill -0 $pid 2>/dev/null || { tail -5 "$log" >&2; exit 1; }; sleep 0.3
done
used() { # the used part of the heap, in bytes: the top of Epsilon's space less its bottom
  jcmd $pid GC.heap_info | grep -m1 "used \[" | grep -o '0x[0-9a-f]*' | head -2 \
      | { read -r bottom; read -r top; echo $(( top - bottom )); }
}
curl -s -o /dev/null "http://127.0.0.1:$port$path?warm=[1-$n]"
before=$(used)
statuses=$(curl -s -o /dev/null -w '%{http_code}\n' "http://127.0.0.1:$port$path?r=[1-$n]" | sort | uniq -c | tr -s ' \n' ' ')
after=$(used)
echo "$(basename "$(dirname "$(dirname "$(dirname "$jar")")")") $path $*: $(( (after - before) / n )) bytes a request over $n (statuses:$statuses)"
kill $pid; wait $pid 2>/dev/null
