#!/usr/bin/env bash
# Installs the browser the console's tests drive: Debian's chromium and its chromedriver, from the
# distribution's packages (as root, or through sudo). Does nothing when both are there.
set -euo pipefail
if [ -x /usr/lib/chromium/chromium ] && [ -x /usr/bin/chromedriver ]; then exit 0; fi
run() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi; }
run apt-get update -qq
DEBIAN_FRONTEND=noninteractive run apt-get install -y -qq chromium chromium-driver >/dev/null
