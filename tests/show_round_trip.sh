#!/bin/sh
# `idemsim show` round-trips: for every scenario of the library and of tests/good_scenarios,
# the printed services form runs to byte-identical JSON reports and traces, and showing the
# printed file prints it again unchanged (a fixed point: nothing is lost or added twice).
# A few --set overrides are checked the same way. usage: show_round_trip.sh SOURCE_DIR IDEMSIM
set -eu
source_dir=$1
idemsim=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
status=0
count=0

# round_trip NAME FILE [--set ...]: show FILE with the overrides, then compare.
round_trip() {
    name=$1
    file=$2
    shift 2
    count=$((count + 1))
    "$idemsim" show "$file" "$@" >"$scratch/shown.json"
    "$idemsim" show "$scratch/shown.json" >"$scratch/again.json"
    if ! cmp -s "$scratch/shown.json" "$scratch/again.json"; then
        echo "NOT A FIXED POINT: $name"
        diff "$scratch/shown.json" "$scratch/again.json" | head -20
        status=1
    fi
    "$idemsim" run "$file" "$@" -q --json "$scratch/a.json" --trace "$scratch/a.jsonl"
    "$idemsim" run "$scratch/shown.json" -q --json "$scratch/b.json" --trace "$scratch/b.jsonl"
    for output in json jsonl; do
        if ! cmp -s "$scratch/a.$output" "$scratch/b.$output"; then
            echo "DIFFERENT: $name.$output: the file vs its show"
            diff "$scratch/a.$output" "$scratch/b.$output" | head -20
            status=1
        fi
    done
}

for scenario in "$source_dir"/scenarios/*.json "$source_dir"/scenarios/architectures/*.json \
    "$source_dir"/tests/good_scenarios/*.json; do
    round_trip "$(basename "$scenario" .json)" "$scenario"
done
round_trip "default with overrides" "$source_dir/scenarios/default.json" \
    --set seed=3 --set 'network.links.server->web.loss={"model": "gilbert-elliott"}' \
    --set 'clients[0].retry.budget={"ratio": 0.2}' --set 'server.queue=50'
round_trip "C3 with a named queue" "$source_dir/scenarios/03_broker_slow_consumers.json" \
    --set 'broker.queues=[{"name": "orders", "ack_timeout_ms": 5000}]'
[ "$status" -eq 0 ] && echo "show round-trips $count scenarios: identical reports and traces"
exit "$status"
