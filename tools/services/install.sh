#!/usr/bin/env bash
# Installs the Debian packages the MQTT, scoreboard and install-script tests run for real:
#   mosquitto        the broker (tests start their own on a free loopback port;
#                    the packaged system service is not needed and not started here)
#   mosquitto-clients mosquitto_sub/pub, handy to watch a table by hand
#   chromium, chromium-driver   the headless browser the scoreboard page test drives
#   the shellcheck linter, which the systemd install scripts' test runs them through
#                    (a comment line must not begin with its name: that is a directive)
# Only what is missing is installed; safe to run again. Used by the Makefile.
# (mosquitto_passwd, which the password-file test uses, ships in the mosquitto package.)
set -euo pipefail
need=()
command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || need+=(mosquitto)
command -v mosquitto_passwd >/dev/null 2>&1 || need+=(mosquitto)
command -v mosquitto_sub >/dev/null 2>&1 || need+=(mosquitto-clients)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
command -v shellcheck >/dev/null 2>&1 || need+=(shellcheck)
if [ "${#need[@]}" -eq 0 ]; then
    exit 0
fi
# unique, in order
mapfile -t need < <(printf '%s\n' "${need[@]}" | awk '!seen[$0]++')
echo "installing Debian packages: ${need[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
$sudo apt-get update -q
# policy-rc.d-free: on a desktop the packaged mosquitto service may start; the tests
# never use it (they run their own broker on another port).
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}"
