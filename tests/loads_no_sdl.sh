#!/bin/sh
# Issue 25: run, check, validate, explain and sweep never load SDL (the dynamic loader
# resolving SDL2, SDL2_ttf and SDL_image cost about 14 M instructions of every run); only
# idemsim-view, which `idemsim view` execs, links it. Checks the program's needed libraries
# and, with the loader's own log (LD_DEBUG=libs), what each command really maps.
# usage: loads_no_sdl.sh IDEMSIM SOURCE_DIR
set -u
binary=$1
scenario=$2/scenarios/01_lost_answer.json
status=0
if ldd "$binary" | grep -i 'libSDL'; then
    echo "FAIL: $binary links SDL"
    status=1
fi
for command in "run $scenario -q" "check $scenario" "validate $scenario" \
    "explain $scenario --op 1" \
    "sweep $scenario --vary network.default.loss=0:0.1:0.1 --seeds 1 -q"; do
    # shellcheck disable=SC2086 # the command is words on purpose
    loaded=$(LD_DEBUG=libs "$binary" $command 2>&1 >/dev/null | grep 'calling init:')
    if [ -z "$loaded" ]; then
        echo "FAIL: no loader log for '$command' (LD_DEBUG ignored?)"
        status=1
    elif echo "$loaded" | grep -i 'libSDL'; then
        echo "FAIL: '$command' loads SDL"
        status=1
    fi
done
[ $status -eq 0 ] && echo "ok: no SDL in run, check, validate, explain, sweep"
exit $status
