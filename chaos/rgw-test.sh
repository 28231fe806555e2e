#!/usr/bin/env bash
# Credential vending against a real S3 server with STS: starts Ceph's RADOS Gateway on loopback
# (chaos/rgw.sh; installs Ceph from Debian's packages when missing) and runs the tests that need it.
#   chaos/rgw-test.sh [scratch directory]
set -euo pipefail
cd "$(dirname "$0")/.."
. chaos/rgw.sh
trap rgw_stop EXIT
started=$SECONDS
rgw_start "${1:-${TMPDIR:-/tmp}/lvg-rgw}"
echo "== RADOS Gateway with STS on $RGW_ENDPOINT after $((SECONDS - started)) s"
mvn -B verify -Dspotless.check.skip=true -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test='*RgwIT'
