#!/bin/sh
# Determinism across builds: every scenario, run by this build's idemsim and by each other
# build given (another compiler, another optimisation level), must give byte-identical JSON
# reports and traces. usage: compare_builds.sh SOURCE_DIR THIS_IDEMSIM OTHER_IDEMSIM...
set -eu
source_dir=$1
this=$2
shift 2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
status=0
for scenario in "$source_dir"/scenarios/*.json; do
    name=$(basename "$scenario" .json)
    "$this" run "$scenario" -q --json "$scratch/this.json" --trace "$scratch/this.jsonl"
    for other in "$@"; do
        "$other" run "$scenario" -q --json "$scratch/other.json" --trace "$scratch/other.jsonl"
        for output in json jsonl; do
            if ! cmp -s "$scratch/this.$output" "$scratch/other.$output"; then
                echo "DIFFERENT: $name.$output: $this vs $other"
                diff "$scratch/this.$output" "$scratch/other.$output" | head -20
                status=1
            fi
        done
    done
done
[ "$status" -eq 0 ] && echo "identical reports and traces for $(ls "$source_dir"/scenarios/*.json | wc -l) scenarios across $(($# + 1)) builds"
exit "$status"
