#!/usr/bin/env bash
# UpstreamFleetIT on a loaded machine, for checkouts side by side in interleaved rounds: while two busy loops take the
# machine's cores, each checkout builds and runs the IT (in both of its failsafe executions), and the tokens a second the
# fleet used of its LLM provider's 2 000 (from the third to the fourth second; the IT's floor is 1 200) are printed.
#
#   docs/bench/loaded-upstream.sh ROUNDS LABEL=CHECKOUT ...
#   e.g. git worktree add /tmp/before 28c4b12
#        docs/bench/loaded-upstream.sh 2 before=/tmp/before after=.
#
# Each run takes ~3 minutes; Maven runs offline (-o): build each checkout once before.
set -uo pipefail
ROUNDS=${1:?usage: loaded-upstream.sh ROUNDS LABEL=CHECKOUT ...}; shift
LOOPS=()
stop() { for p in "${LOOPS[@]}"; do kill "$p" 2>/dev/null; done; LOOPS=(); }
trap stop EXIT
for ((round = 1; round <= ROUNDS; round++)); do
  for spec in "$@"; do
    label=${spec%%=*}; dir=${spec#*=}
    for k in 1 2; do (while :; do :; done) & LOOPS+=($!); done
    log=$(mktemp)
    (cd "$dir" && timeout 900 ./mvnw -o -B verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
      -Dit.test=UpstreamFleetIT -Dfailsafe.failIfNoSpecifiedTests=false -Dinvoker.skip=true > "$log" 2>&1)
    stop
    tokens=$(grep -h 'provider of' "$log" | sed 's/.*from the third to the fourth second \([0-9]*\) tokens.*/\1/' | tr '\n' ' ')
    echo "round $round $label: tokens/s ${tokens:-none (see $log)}"
    [[ -n $tokens ]] && rm -f "$log"
  done
done
