#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Install toptable as a systemd service, from this checkout. Idempotent: run it
# again to upgrade. See systemd/README.md.
#
#   sudo systemd/install.sh            install (or upgrade) and enable the service
#   systemd/install.sh --dry-run       print what it would do, change nothing
#
# It creates the system user "toptable" in the gpio, i2c, spi, dialout and
# video groups; a virtual environment in /opt/toptable/venv with toptable
# installed from this checkout (with the Pi extra); the unit; the udev rule for
# the board's Pico; /etc/toptable/config.toml from the example (only if there
# is none); then reloads systemd and enables the service. A running service is
# restarted so an upgrade takes effect.
set -euo pipefail

SERVICE_USER=toptable
GROUPS_NEEDED=(gpio i2c spi dialout video)
# The paths can be moved by TOPTABLE_* variables, for the tests' --dry-run runs.
PREFIX="${TOPTABLE_PREFIX:-/opt/toptable}"
VENV="$PREFIX/venv"
CONFIG_DIR="${TOPTABLE_CONFIG_DIR:-/etc/toptable}"
UNIT_DIR="${TOPTABLE_UNIT_DIR:-/etc/systemd/system}"
RULES_DIR="${TOPTABLE_RULES_DIR:-/etc/udev/rules.d}"
STATE_DIR=/var/lib/toptable
PYTHON="${PYTHON:-python3}"

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="$(dirname "$HERE")"
DRY_RUN=0
START=0

usage() {
    cat <<EOF
usage: $0 [--dry-run] [--start]

  --dry-run   print every step it would take, change nothing (needs no root)
  --start     start the service at the end (default: enable only, so you can
              edit $CONFIG_DIR/config.toml first; a running service is restarted)
EOF
}

for arg in "$@"; do
    case "$arg" in
        --dry-run) DRY_RUN=1 ;;
        --start) START=1 ;;
        -h | --help)
            usage
            exit 0
            ;;
        *)
            echo "install.sh: unknown option '$arg'" >&2
            usage >&2
            exit 2
            ;;
    esac
done

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

note() {
    printf '%s\n' "install.sh: $*"
}

fail() {
    printf '%s\n' "install.sh: error: $*" >&2
    exit 2
}

if ((!DRY_RUN)); then
    [[ $EUID -eq 0 ]] || fail "run it as root (sudo $0), or with --dry-run to see the steps"
    [[ -d /run/systemd/system ]] || fail "systemd is not running here; this installs a systemd service"
fi
[[ -f "$SRC/pyproject.toml" && -f "$HERE/toptable.service" ]] ||
    fail "run it from a toptable checkout ($SRC has no pyproject.toml)"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
    fail "toptable needs Python 3.11 or newer ($PYTHON is older)"
"$PYTHON" -c 'import venv, ensurepip' 2>/dev/null ||
    fail "$PYTHON cannot make virtual environments: sudo apt install python3-venv"
((DRY_RUN)) && note "dry run: nothing is changed"

# 1. Groups and the service user.
for group in "${GROUPS_NEEDED[@]}"; do
    if getent group "$group" >/dev/null; then
        note "group $group exists"
    else
        run groupadd --system "$group"
    fi
done
if id -u "$SERVICE_USER" >/dev/null 2>&1; then
    note "user $SERVICE_USER exists"
else
    run useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home \
        --shell /usr/sbin/nologin --comment "toptable game table" "$SERVICE_USER"
fi
groups_csv="$(
    IFS=,
    echo "${GROUPS_NEEDED[*]}"
)"
run usermod --append --groups "$groups_csv" "$SERVICE_USER"

# 2. The virtual environment, with toptable installed from this checkout.
# --system-site-packages: the Pi's libcamera bindings come only from apt.
if [[ -x "$VENV/bin/python" ]]; then
    note "virtual environment $VENV exists"
else
    run install -d -m 0755 "$PREFIX"
    run "$PYTHON" -m venv --system-site-packages "$VENV"
fi
run "$VENV/bin/pip" install --quiet --upgrade pip
run "$VENV/bin/pip" install --quiet --upgrade "${SRC}[pi]"
run install -d -m 0755 "$PREFIX/share/systemd"
run install -m 0644 "$HERE/README.md" "$HERE/config.example.toml" "$PREFIX/share/systemd/"

# 3. The config: copied from the example only if there is none.
run install -d -m 0755 "$CONFIG_DIR"
if [[ -e "$CONFIG_DIR/config.toml" ]]; then
    note "keeping the existing $CONFIG_DIR/config.toml"
else
    run install -m 0640 -o root -g "$SERVICE_USER" "$HERE/config.example.toml" \
        "$CONFIG_DIR/config.toml"
fi

# 4. The udev rule for the board's Pico, applied to a board already plugged in.
run install -m 0644 "$HERE/99-toptable-board.rules" "$RULES_DIR/99-toptable-board.rules"
run udevadm control --reload-rules
run udevadm trigger --subsystem-match=tty --action=change

# 5. The unit.
run install -m 0644 "$HERE/toptable.service" "$UNIT_DIR/toptable.service"
run systemctl daemon-reload
run systemctl enable toptable.service
if ((START)); then
    run systemctl restart toptable.service
elif ((!DRY_RUN)) && systemctl --quiet is-active toptable.service; then
    run systemctl restart toptable.service
fi

if ((DRY_RUN)); then
    note "dry run done: nothing was changed"
    exit 0
fi
cat <<EOF

toptable is installed. Next:
  edit $CONFIG_DIR/config.toml (every option: $PREFIX/share/systemd/config.example.toml)
  sudo -u $SERVICE_USER $VENV/bin/toptable config check $CONFIG_DIR/config.toml
  sudo systemctl start toptable
  journalctl -u toptable -f
EOF
