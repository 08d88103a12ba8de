#!/usr/bin/env bash
# Start-up of several native executables (or any commands taking -Dquarkus.http.port), side by side in
# interleaved rounds: per start, the time from starting the process to the first 2xx answer (curl
# polling, as ../shared/native/measure.sh does), Quarkus' own "started in", and the resident memory
# (VmRSS, of which RssAnon) after 200 more requests.
#
#   docs/bench/start-rounds.sh ROUNDS LABEL=EXECUTABLE[@ENDPOINT] ...
#   e.g. docs/bench/start-rounds.sh 2 demo=target/slidegate-0.1.0-SNAPSHOT-runner \
#            consumer=target/it/consumer/target/slidegate-consumer-1.0-runner@/orders
#
# env: N=5 starts per executable per round, PORT=18080, ENDPOINT=/api/products (default for all)
#
# The file-backed part of RSS depends on the page cache: pages of an executable that the kernel has gathered into huge
# pages (khugepaged, after many runs; FilePmdMapped in /proc/PID/smaps) are mapped 2 MB at a time, and an executable
# used all evening read 7-12 MB more than a fresh copy of the same file. A round says how much of each executable came in
# huge pages; compare executables after `sync; echo 1 > /proc/sys/vm/drop_caches` (root), or as fresh copies.
set -uo pipefail
ROUNDS=${1:?usage: start-rounds.sh ROUNDS LABEL=EXECUTABLE[@ENDPOINT] ...}; shift
N=${N:-5}; PORT=${PORT:-18080}
LOG=$(mktemp); trap 'rm -f "$LOG"' EXIT
if curl -s -o /dev/null "http://127.0.0.1:$PORT/"; then echo "port $PORT is already in use" >&2; exit 2; fi

lowmed() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {printf "%s / %s", a[1], a[int((NR+1)/2)]}'; }

for ((round = 1; round <= ROUNDS; round++)); do
  for spec in "$@"; do
    label=${spec%%=*}; rest=${spec#*=}
    exe=${rest%@*}; endpoint=${ENDPOINT:-/api/products}
    [[ $rest == *@* ]] && endpoint=${rest##*@}
    url="http://127.0.0.1:$PORT$endpoint"
    firsts=(); starteds=(); rsss=(); anons=(); huge=0
    for ((i = 1; i <= N; i++)); do
      t0=$(date +%s%N)
      "$exe" -Dquarkus.http.port="$PORT" > "$LOG" 2>&1 &
      pid=$!
      until curl -sf -o /dev/null "$url"; do
        kill -0 "$pid" 2>/dev/null || { echo "$label exited:" >&2; tail -5 "$LOG" >&2; exit 1; }
      done
      t1=$(date +%s%N)
      curl -s "$url?warmup=[1-200]" > /dev/null
      rsss+=($(( $(awk '/^VmRSS:/{print $2}' "/proc/$pid/status") / 1024 )))
      anons+=($(( $(awk '/^RssAnon:/{print $2}' "/proc/$pid/status") / 1024 )))
      huge=$(awk -v h="$huge" '/^FilePmdMapped:/{s+=$2} END{s=int(s/1024); print (s > h ? s : h)}' "/proc/$pid/smaps")
      kill "$pid"; wait "$pid" 2>/dev/null
      while curl -s -o /dev/null "$url"; do sleep 0.05; done
      firsts+=($(( (t1 - t0) / 1000000 )))
      starteds+=($(grep -o 'started in [0-9.]*s' "$LOG" | grep -o '[0-9.]*' | awk '{printf "%d", $1 * 1000}'))
    done
    printf 'round %d %-10s started in (best / median) %s ms; first answer %s ms; RSS %s MB (anonymous %s; file in huge pages %s); %.1f MB file\n' \
      "$round" "$label" "$(lowmed "${starteds[@]}")" "$(lowmed "${firsts[@]}")" "$(lowmed "${rsss[@]}")" \
      "$(lowmed "${anons[@]}")" "$huge" "$(awk -v b="$(stat -c %s "$exe")" 'BEGIN{print b/1e6}')"
  done
done
