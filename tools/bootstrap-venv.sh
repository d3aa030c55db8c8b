#!/usr/bin/env bash
# Creates the project's virtual environment in $1 with $2 (a python3), installing
# Debian's python3-venv first when this is a fresh Debian / Raspberry Pi OS that
# lacks it. Used by the Makefile; safe to run again.
set -euo pipefail
venv=${1:-.venv}
python=${2:-python3}
if ! "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
    echo "toptable needs Python 3.11 or newer; $python is $("$python" --version 2>&1)" >&2
    exit 1
fi
if [ -x "$venv/bin/python" ]; then
    exit 0
fi
if ! "$python" -m venv "$venv" 2>/dev/null; then
    rm -rf "$venv"
    echo "python3 -m venv failed: installing Debian's python3-venv" >&2
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -q
    $sudo apt-get install -y -q python3-venv python3-dev gcc
    "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --upgrade pip
