# bash completion for idemsim (installed as share/bash-completion/completions/idemsim).
# Commands, each command's options (read from `idemsim help COMMAND`, so they never drift),
# modes after --mode, and scenario files or the installed library's names for SCENARIO.
_idemsim()
{
    local cur prev words cword
    _init_completion 2>/dev/null || {
        cur="${COMP_WORDS[COMP_CWORD]}"
        prev="${COMP_WORDS[COMP_CWORD - 1]}"
        cword=$COMP_CWORD
        words=("${COMP_WORDS[@]}")
    }
    local commands="run check explain explore validate show view sweep merge help --version"
    if [ "$cword" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$commands" -- "$cur"))
        return
    fi
    local command="${words[1]}"
    case "$prev" in
    --mode | --svg-mode)
        COMPREPLY=($(compgen -W "at-most-once at-least-once idempotent" -- "$cur"))
        return
        ;;
    --why | --svg-outcome)
        COMPREPLY=($(compgen -W "ok double lost phantom mismatch" -- "$cur"))
        return
        ;;
    --property)
        COMPREPLY=($(compgen -W "no-double no-lost no-phantom no-mismatch told-matches-ledger expect" -- "$cur"))
        return
        ;;
    --svg-layout)
        COMPREPLY=($(compgen -W "portrait landscape" -- "$cur"))
        return
        ;;
    --json | --csv | --trace | --svg | --junit | --png | --labels-json | --write-counterexample)
        COMPREPLY=($(compgen -f -- "$cur"))
        return
        ;;
    --record)
        COMPREPLY=($(compgen -d -- "$cur"))
        return
        ;;
    esac
    if [ "$command" = help ]; then
        COMPREPLY=($(compgen -W "$commands" -- "$cur"))
        return
    fi
    if [[ "$cur" == -* ]]; then
        local options
        options=$("${words[0]}" help "$command" 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u)
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
        return
    fi
    local library
    for library in /usr/share/idemsim/scenarios /usr/local/share/idemsim/scenarios; do
        [ -d "$library" ] && COMPREPLY+=($(cd "$library" && compgen -G "$cur*.json" | sed 's/\.json$//'))
    done
    COMPREPLY+=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
}
complete -F _idemsim idemsim
