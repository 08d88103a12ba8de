#!/usr/bin/env bash
# What requests allocate in a native executable: its resident memory (all / anonymous / file-backed) at the
# first answer, after 200 requests and after 2 000 more, all on one kept-alive connection. The native heap is
# not collected until its young generation fills, so the anonymous growth is what the requests allocated.
#
#   docs/bench/alloc-probe.sh EXECUTABLE PATH [-Dproperty=value ...]
#   e.g. docs/bench/alloc-probe.sh target/slidegate-0.1.0-SNAPSHOT-runner /api/products
#   env: PORT=18081, UNIT=MB (or KB, for differences under a megabyte)
set -uo pipefail
exe=${1:?usage: alloc-probe.sh EXECUTABLE PATH [-D...]}; path=${2:?usage}; shift 2; port=${PORT:-18081}; unit=${UNIT:-MB}
log=$(mktemp); trap 'rm -f "$log"' EXIT
"$exe" -Dquarkus.http.port="$port" "$@" > "$log" 2>&1 & pid=$!
until curl -sf -o /dev/null "http://127.0.0.1:$port$path"; do kill -0 $pid 2>/dev/null || { tail -5 "$log" >&2; exit 1; }; done
mb() { local kb; kb=$(awk "/^$1:/{print \$2}" /proc/$pid/status); [[ $unit == KB ]] && echo "$kb" || echo "$(( kb / 1024 ))"; }
now() { echo "$(mb VmRSS)/$(mb RssAnon)/$(mb RssFile)"; }
first=$(now); curl -s "http://127.0.0.1:$port$path?r=[1-200]" > /dev/null; after200=$(now)
curl -s "http://127.0.0.1:$port$path?r=[1-2000]" > /dev/null; after2200=$(now)
status=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port$path")
echo "$(basename "$exe") $path: $unit resident/anonymous/file at the first answer $first, after 200 requests $after200, after 2 000 more $after2200 (last status $status)"
kill $pid; wait $pid 2>/dev/null
