#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Install toptable as a systemd service on Raspberry Pi OS. Idempotent: run it
# again to upgrade. See systemd/README.md (and README.md, "On a Pi").
#
#   sudo systemd/install.sh                        from a checkout
#   sudo bash install.sh --from toptable-X.whl     from a wheel (this script ships in it:
#                                                  `toptable service files install.sh`)
#   systemd/install.sh --dry-run                   print what it would do, change nothing
#
# 1. checks the apt packages the venv takes from the system (python3-venv,
#    python3-lgpio, python3-spidev: PyPI has spidev only as source, to be compiled;
#    its lgpio 0.2.2.0 has aarch64 wheels, but apt's is the same release, built
#    with the system's liblgpio, and pip keeps it);
# 2. makes /opt/toptable/venv with --system-site-packages (apt's lgpio, spidev,
#    numpy and picamera2 are seen; pip installs only what apt does not provide);
# 3. pip-installs toptable[pi,spi,firmware] into it. From a checkout, the sources are
#    first copied to a temporary folder: nothing is built in the checkout as root;
# 4. runs that venv's `toptable service install`, which creates the user, the
#    unit, the udev rule (pinned to the board's Pico by USB serial number), the
#    config if there is none and, for a board on a UART, a drop-in; then reloads
#    udev and systemd and enables the service (a running one is restarted).
set -euo pipefail

# The paths can be moved by TOPTABLE_* variables, for the tests' --dry-run runs.
PREFIX="${TOPTABLE_PREFIX:-/opt/toptable}"
VENV="$PREFIX/venv"
PYTHON="${PYTHON:-python3}"
EXTRAS="pi,spi,firmware"
# The apt packages the venv takes from the system, and the module each provides.
APT_MODULES=(ensurepip:python3-venv lgpio:python3-lgpio spidev:python3-spidev)

HERE="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
# In a checkout this file is controller/system/service_files/install.sh.
CHECKOUT="$(cd "$HERE/../../.." && pwd)"
DRY_RUN=0
FROM=""
SERVICE_ARGS=()

usage() {
    cat <<EOF
usage: $0 [--dry-run] [--start] [--from SOURCE] [--board-serial SERIAL]

  --dry-run              print every step it would take, change nothing (needs no root)
  --from SOURCE          what to pip-install: a checkout folder, a wheel file or a
                         requirement (default: the checkout this script is in)
  --board-serial SERIAL  the board's Pico's USB serial number (default: the one Pico
                         plugged in; list them with: toptable service identify-board)
  --start                start the service at the end (default: enable only, so you can
                         edit /etc/toptable/config.toml first; a running service is restarted)
EOF
}

while (($#)); do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        --start) SERVICE_ARGS+=(--start) ;;
        --from)
            (($# >= 2)) || {
                echo "install.sh: --from needs a value (a checkout, a wheel or a requirement)" >&2
                exit 2
            }
            FROM="$2"
            shift
            ;;
        --board-serial)
            (($# >= 2)) || {
                echo "install.sh: --board-serial needs a value (toptable service identify-board)" >&2
                exit 2
            }
            SERVICE_ARGS+=(--board-serial "$2")
            shift
            ;;
        -h | --help)
            usage
            exit 0
            ;;
        *)
            echo "install.sh: unknown option '$1'" >&2
            usage >&2
            exit 2
            ;;
    esac
    shift
done

# shellcheck source=lib.sh
source "$HERE/lib.sh"

note() {
    printf '%s\n' "install.sh: $*"
}

fail() {
    printf '%s\n' "install.sh: error: $*" >&2
    exit 2
}

if [[ -z "$FROM" ]]; then
    [[ -f "$CHECKOUT/pyproject.toml" ]] ||
        fail "--from: this script is not in a checkout; expected --from a wheel, a checkout or a requirement"
    FROM="$CHECKOUT"
fi
if ((!DRY_RUN)); then
    [[ $EUID -eq 0 ]] || fail "run it as root (sudo $0), or with --dry-run to see the steps"
    [[ -d /run/systemd/system ]] || fail "systemd is not running here; this installs a systemd service"
fi
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
    fail "toptable needs Python 3.11 or newer ($PYTHON is older)"
((DRY_RUN)) && note "dry run: nothing is changed"

# 1. The apt packages (the Pi's GPIO and SPI bindings, from apt: see the top).
# Found, not imported: importing lgpio creates a pipe (.lgd-nfy0) in the current
# folder, which would be left owned by root in the checkout.
missing=()
for pair in "${APT_MODULES[@]}"; do
    "$PYTHON" -c "import importlib.util as u, sys; sys.exit(u.find_spec('${pair%%:*}') is None)" \
        2>/dev/null || missing+=("${pair#*:}")
done
if ((${#missing[@]})); then
    if ((DRY_RUN)); then
        note "missing apt packages (a real run stops here): sudo apt install ${missing[*]}"
    else
        fail "missing apt packages: sudo apt install ${missing[*]}"
    fi
fi

# 2. The virtual environment, seeing apt's packages.
if [[ -x "$VENV/bin/python" ]]; then
    note "virtual environment $VENV exists"
else
    run install -d -m 0755 "$PREFIX"
    run "$PYTHON" -m venv --system-site-packages "$VENV"
fi
run "$VENV/bin/pip" install --quiet --upgrade pip

# 3. toptable itself. A checkout is copied first: pip builds in the source folder
# (build/, *.egg-info), which must not be left there owned by root.
if [[ -d "$FROM" ]]; then
    [[ -f "$FROM/pyproject.toml" ]] || fail "--from $FROM: expected a toptable checkout (no pyproject.toml)"
    if ((DRY_RUN)); then
        build="<a temporary folder>"
    else
        build="$(mktemp -d -t toptable-build.XXXXXX)"
        trap 'rm -rf "$build"' EXIT
    fi
    run cp -R "$FROM/pyproject.toml" "$FROM/README.md" "$FROM/controller" "$FROM/vision" \
        "$FROM/hardware" "$FROM/firmware" "$build/"
    run "$VENV/bin/pip" install --quiet --upgrade "${build}[$EXTRAS]"
else
    if [[ "$FROM" == *.whl && ! -f "$FROM" ]]; then
        fail "--from $FROM: no such wheel file"
    fi
    run "$VENV/bin/pip" install --quiet --upgrade "${FROM}[$EXTRAS]"
    if [[ -f "$FROM" ]]; then
        # pip keeps an installed toptable of the same version as a wheel or sdist file
        # (and --quiet hides its one line saying so): the file is what is asked for.
        run "$VENV/bin/pip" install --quiet --force-reinstall --no-deps "$FROM"
    fi
fi

# 4. The service: user, unit, udev rule, config, drop-in; enable.
# (`toptable service install --dry-run` prints its own steps.)
run "$VENV/bin/toptable" service install "${SERVICE_ARGS[@]}"

if ((DRY_RUN)); then
    note "dry run done: nothing was changed"
    exit 0
fi
