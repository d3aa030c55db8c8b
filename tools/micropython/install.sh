#!/usr/bin/env bash
# Installs MicroPython's WebAssembly port (the npm package pinned in package.json
# and package-lock.json beside this file) into tools/micropython/node_modules, for
# the firmware tests. On a fresh Debian / Raspberry Pi OS without node or npm it
# installs Debian's nodejs and npm first. Used by the Makefile; safe to run again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "node or npm is missing: installing Debian's nodejs and npm" >&2
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -q
    $sudo apt-get install -y -q nodejs npm
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 18 ]; then
    echo "the MicroPython WebAssembly port needs Node.js 18 or newer; node is $(node --version)" >&2
    exit 1
fi
npm ci --prefix "$here" --no-audit --no-fund --loglevel=error
