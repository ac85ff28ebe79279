#!/bin/sh
# Determinism across builds: every scenario, run by this build's idemsim and by each other
# build given (another compiler, another optimisation level), must give byte-identical JSON
# reports. usage: compare_builds.sh SOURCE_DIR THIS_IDEMSIM OTHER_IDEMSIM...
set -eu
source_dir=$1
this=$2
shift 2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
status=0
for scenario in "$source_dir"/scenarios/*.json; do
    name=$(basename "$scenario" .json)
    "$this" run "$scenario" -q --json "$scratch/$name.this.json"
    for other in "$@"; do
        "$other" run "$scenario" -q --json "$scratch/$name.other.json"
        if ! cmp -s "$scratch/$name.this.json" "$scratch/$name.other.json"; then
            echo "DIFFERENT: $name: $this vs $other"
            diff "$scratch/$name.this.json" "$scratch/$name.other.json" | head -20
            status=1
        fi
    done
done
[ "$status" -eq 0 ] && echo "identical reports for $(ls "$source_dir"/scenarios/*.json | wc -l) scenarios across $(($# + 1)) builds"
exit "$status"
