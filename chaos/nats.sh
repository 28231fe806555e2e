#!/usr/bin/env bash
# Installs the NATS server the sink's tests start on ports of their own: Debian's nats-server
# package (as root, or through sudo). Does nothing when it is there.
set -euo pipefail
if command -v nats-server >/dev/null; then exit 0; fi
run() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi; }
run apt-get update -qq
DEBIAN_FRONTEND=noninteractive run apt-get install -y -qq nats-server >/dev/null
