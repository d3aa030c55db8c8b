#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Remove the toptable service that systemd/install.sh (or `toptable service install`)
# set up. Idempotent. Ships in the package too: `toptable service files uninstall.sh`.
#
#   sudo systemd/uninstall.sh           stop and remove the service, the udev rule,
#                                       the modules-load file and /opt/toptable;
#                                       keep the config and journal
#   sudo systemd/uninstall.sh --purge   also remove /etc/toptable, /var/lib/toptable
#                                       and the toptable user
#   systemd/uninstall.sh --dry-run      print what it would do, change nothing
#
# The groups (gpio, i2c, spi, dialout, video) are left: other programs use them.
set -euo pipefail

SERVICE_USER=toptable
# The paths can be moved by TOPTABLE_* variables, for the tests' --dry-run runs.
PREFIX="${TOPTABLE_PREFIX:-/opt/toptable}"
CONFIG_DIR="${TOPTABLE_CONFIG_DIR:-/etc/toptable}"
UNIT="${TOPTABLE_UNIT_DIR:-/etc/systemd/system}/toptable.service"
DROPINS="$UNIT.d"
RULE="${TOPTABLE_RULES_DIR:-/etc/udev/rules.d}/99-toptable-board.rules"
STATE_DIR="${TOPTABLE_STATE_DIR:-/var/lib/toptable}"
# The kernel modules the unit's devices need, loaded at boot (toptable service install).
MODULES="${TOPTABLE_MODULES_DIR:-/etc/modules-load.d}/toptable.conf"
DRY_RUN=0
PURGE=0

usage() {
    cat <<EOF
usage: $0 [--dry-run] [--purge]

  --dry-run   print every step it would take, change nothing (needs no root)
  --purge     also remove $CONFIG_DIR, $STATE_DIR (the game journal) and the user
EOF
}

for arg in "$@"; do
    case "$arg" in
        --dry-run) DRY_RUN=1 ;;
        --purge) PURGE=1 ;;
        -h | --help)
            usage
            exit 0
            ;;
        *)
            echo "uninstall.sh: unknown option '$arg'" >&2
            usage >&2
            exit 2
            ;;
    esac
done

# shellcheck source=lib.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

note() {
    printf '%s\n' "uninstall.sh: $*"
}

if ((!DRY_RUN)) && [[ $EUID -ne 0 ]]; then
    echo "uninstall.sh: error: run it as root (sudo $0), or with --dry-run" >&2
    exit 2
fi
((DRY_RUN)) && note "dry run: nothing is changed"

if [[ -e "$UNIT" ]]; then
    run systemctl disable --now toptable.service
    run rm -f "$UNIT"
    if [[ -e "$DROPINS" ]]; then
        run rm -rf "$DROPINS"
    fi
    run systemctl daemon-reload
    run systemctl reset-failed toptable.service || true  # not failed: nothing to reset
else
    note "no unit at $UNIT"
fi

if [[ -e "$RULE" ]]; then
    run rm -f "$RULE"
    run udevadm control --reload-rules
else
    note "no udev rule at $RULE"
fi

if [[ -e "$MODULES" ]]; then
    run rm -f "$MODULES"  # the modules stay loaded until the next boot
else
    note "no modules-load file at $MODULES"
fi

if [[ -e "$PREFIX" ]]; then
    run rm -rf "$PREFIX"
else
    note "nothing at $PREFIX"
fi

if ((PURGE)); then
    for path in "$CONFIG_DIR" "$STATE_DIR"; do
        if [[ -e "$path" ]]; then
            run rm -rf "$path"
        else
            note "nothing at $path"
        fi
    done
    if id -u "$SERVICE_USER" >/dev/null 2>&1; then
        run userdel "$SERVICE_USER"
    else
        note "no user $SERVICE_USER"
    fi
else
    note "kept $CONFIG_DIR and $STATE_DIR (the game journal); --purge removes them"
fi
