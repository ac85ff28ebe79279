#!/bin/sh
# The man page is written once by hand (docs/man/idemsim.1); this keeps it honest: every
# command `idemsim help` lists has its own entry there, and every option a command's help
# names appears in it. usage: man_page.sh IDEMSIM MAN_PAGE
set -u
program="$1"
page="$2"
status=0
commands=$("$program" help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF > 0 {print $1}')
[ -n "$commands" ] || { echo "man_page: idemsim help lists no commands"; exit 1; }
for command in $commands; do
    case "$command" in
    --*) pattern="^\.B $(echo "$command" | sed 's/-/\\\\-/g')\$" ;;
    *) pattern="^\.B[IR]* \"?$command( |\"|$)" ;;
    esac
    if ! grep -Eq "$pattern" "$page"; then
        echo "man_page: command '$command' (idemsim help) has no entry in $page"
        status=1
    fi
    case "$command" in --*|help) continue ;; esac
    for option in $("$program" help "$command" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        escaped=$(echo "$option" | sed 's/-/\\\\-/g')
        if ! grep -q -- "$escaped" "$page"; then
            echo "man_page: option $option of '$command' is missing from $page"
            status=1
        fi
    done
done
[ "$status" = 0 ] && echo "man_page: every command and option of idemsim help is in $page"
exit "$status"
