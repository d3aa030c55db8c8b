# shellcheck shell=bash
# Shared by install.sh and uninstall.sh (sourced, not run).

# run CMD...: run it, or print it under --dry-run (DRY_RUN=1).
run() {
    if ((DRY_RUN)); then
        local arg line="+"
        for arg in "$@"; do
            if [[ "$arg" =~ ^[A-Za-z0-9_./=:,@%+-]+$ ]]; then
                line+=" $arg"
            else
                line+=" '${arg//\'/\'\\\'\'}'"
            fi
        done
        printf '%s\n' "$line"
    else
        "$@"
    fi
}
