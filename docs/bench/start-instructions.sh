#!/usr/bin/env bash
# Instructions a native executable runs from exec to its first 2xx answer, counted by callgrind (valgrind):
# repeatable to about 0.4% on a shared machine where start times are not. Build with
# -Dquarkus.native.additional-build-args=-H:-DeleteLocalSymbols to see functions with callgrind_annotate.
#
#   docs/bench/start-instructions.sh EXECUTABLE PATH [OUT]      (needs valgrind: apt-get install valgrind)
#   env: PORT=18090
set -uo pipefail
exe=${1:?usage: start-instructions.sh EXECUTABLE PATH [OUT]}; path=${2:?usage}; out=${3:-$(mktemp -d)/callgrind}
port=${PORT:-18090}
valgrind --tool=callgrind --callgrind-out-file="$out.%p" "$exe" -Dquarkus.http.port="$port" > "$out.log" 2>&1 & pid=$!
until curl -sf -o /dev/null "http://127.0.0.1:$port$path"; do
  sleep 0.2; kill -0 $pid 2>/dev/null || { tail -5 "$out.log" >&2; exit 1; }
done
callgrind_control -d $pid > /dev/null 2>&1   # dump now: what ran until the first answer
sleep 1; kill $pid; wait $pid 2>/dev/null
dump=$(ls -t "$out".*.1 | head -1)
echo "$(basename "$exe"): $(awk '/^summary:|^totals:/{print $2; exit}' "$dump") instructions to the first answer of $path ($dump)"
