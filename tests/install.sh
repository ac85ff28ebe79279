#!/bin/sh
# `cmake --install` into a scratch prefix, then the installed program from a directory with
# no sources: it finds its scenario library by name and by directory, its fonts (a headless
# frame), and the man page and completion are where man and bash look.
# usage: install.sh BUILD_DIR
set -eu
build="$1"
prefix=$(mktemp -d /tmp/idemsim-install-XXXXXX)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
cd /
unset IDEMSIM_ASSETS_DIR
program="$prefix/bin/idemsim"
"$program" run default -q --json "$prefix/default.json"
grep -q '"scenario": "default"' "$prefix/default.json"
"$program" check "$prefix/share/idemsim/scenarios" -q --strict >/dev/null
"$program" check -q | grep -q ' passed, 0 failed'  # the installed library, by default
"$program" validate 01_lost_answer >/dev/null
test -f "$prefix/share/idemsim/fonts/DejaVuSans.ttf"
test -f "$prefix/share/bash-completion/completions/idemsim"
bash -n "$prefix/share/bash-completion/completions/idemsim"
test -f "$prefix/share/man/man1/idemsim.1"
if command -v man >/dev/null 2>&1; then
    MANWIDTH=200 man -l "$prefix/share/man/man1/idemsim.1" 2>/dev/null | grep -q 'idemsim help'
fi
if "$program" help view >/dev/null 2>&1; then
    # the fonts are found beside the program, not in a source tree
    SDL_VIDEODRIVER=dummy "$program" view default --headless --png "$prefix/frame.png" --at-ms 1000
    test -s "$prefix/frame.png"
fi
echo "install: the installed program found its scenarios and fonts"
