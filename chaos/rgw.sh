#!/usr/bin/env bash
# An S3 server with STS on loopback, for the credential-vending tests: Ceph's RADOS Gateway over
# one monitor and one in-memory OSD (memstore), all from Debian's packages, set up in a scratch
# directory of its own. Sourced by scripts that need it:
#   . chaos/rgw.sh; rgw_start DIR      exports RGW_ENDPOINT, RGW_ACCESS_KEY, RGW_SECRET_KEY,
#                                      RGW_ROLE_ARN, RGW_BUCKET (the gateway's user and role, a bucket name)
#   rgw_restart_shifted SECONDS        the gateway's S3 again with its clock that far ahead
#   rgw_stop
# Run directly (chaos/rgw.sh DIR), it starts the server and prints those settings.
set -euo pipefail

rgw_install() {
  if ! command -v radosgw >/dev/null || ! command -v faketime >/dev/null; then
    echo "== installing Ceph (monitor, OSD, RADOS Gateway) and faketime from Debian's packages"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      ceph-mon ceph-osd radosgw ceph-common faketime >/dev/null
  fi
}

rgw_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

rgw_start() {
  rgw_install
  RGW_DIR=$(realpath -m "$1")
  rm -rf "$RGW_DIR"
  mkdir -p "$RGW_DIR"/{run,log,mon/ceph-a,osd/ceph-0}
  local mon_port rgw_port fsid
  mon_port=$(rgw_free_port)
  rgw_port=$(rgw_free_port)
  fsid=$(cat /proc/sys/kernel/random/uuid)
  RGW_CONF=$RGW_DIR/ceph.conf
  # Without the crush and class updates turned off, the OSD's start failed now and then; the STS
  # key must be 16 characters.
  cat >"$RGW_CONF" <<EOF
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:$mon_port]
ms bind ipv4 = true
ms bind ipv6 = false
public addr = 127.0.0.1
cluster addr = 127.0.0.1
auth cluster required = none
auth service required = none
auth client required = none
# With auth off, a daemon's monitor client finds no connection mode unless one is named.
ms mon client mode = crc
ms client mode = crc
ms service mode = crc
ms cluster mode = crc
ms mon service mode = crc
ms mon cluster mode = crc
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
mon max pg per osd = 1000
mon allow pool delete = true
mon warn on pool no redundancy = false
osd crush update on start = false
osd class update on start = false
osd objectstore = memstore
memstore device bytes = 1073741824
run dir = $RGW_DIR/run
admin socket = $RGW_DIR/run/\$name.asok
log file = $RGW_DIR/log/\$name.log
pid file = $RGW_DIR/run/\$name.pid
mon data = $RGW_DIR/mon/\$cluster-\$id
osd data = $RGW_DIR/osd/\$cluster-\$id
[client.rgw.lvg]
rgw frontends = beast endpoint=127.0.0.1:$rgw_port
rgw sts key = lvgstskey0123456
rgw s3 auth use sts = true
rgw dns name = 127.0.0.1
EOF
  monmaptool --create --addv a "[v2:127.0.0.1:$mon_port]" --fsid "$fsid" "$RGW_DIR/monmap" >/dev/null
  ceph-mon -c "$RGW_CONF" --mkfs -i a --monmap "$RGW_DIR/monmap" 2>/dev/null
  ceph-mon -c "$RGW_CONF" -i a </dev/null >/dev/null 2>&1
  local osd
  osd=$(timeout 60 ceph -c "$RGW_CONF" osd create)
  ceph-osd -c "$RGW_CONF" -i "$osd" --mkfs 2>/dev/null
  ceph -c "$RGW_CONF" osd crush add "osd.$osd" 1.0 root=default host=lvg >/dev/null 2>&1
  timeout 60 ceph-osd -c "$RGW_CONF" -i "$osd" </dev/null >/dev/null 2>&1
  RGW_ENDPOINT=http://127.0.0.1:$rgw_port
  rgw_launch
  RGW_ACCESS_KEY=lvg-gateway-access
  RGW_SECRET_KEY=lvg-gateway-secret-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')
  RGW_BUCKET=lvg-tables
  radosgw-admin -c "$RGW_CONF" user create --uid=lvg-gateway --display-name=lvg-gateway \
    --access-key="$RGW_ACCESS_KEY" --secret="$RGW_SECRET_KEY" >/dev/null
  radosgw-admin -c "$RGW_CONF" caps add --uid=lvg-gateway --caps="roles=*" >/dev/null
  radosgw-admin -c "$RGW_CONF" role create --role-name=lvg-vend --path=/ \
    --assume-role-policy-doc='{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":["arn:aws:iam:::user/lvg-gateway"]},"Action":["sts:AssumeRole"]}]}' \
    >/dev/null
  radosgw-admin -c "$RGW_CONF" role-policy put --role-name=lvg-vend --policy-name=s3 \
    --policy-doc='{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:*"],"Resource":"arn:aws:s3:::*"}]}' \
    >/dev/null
  RGW_ROLE_ARN=arn:aws:iam:::role/lvg-vend
  export RGW_DIR RGW_CONF RGW_ENDPOINT RGW_ACCESS_KEY RGW_SECRET_KEY RGW_ROLE_ARN RGW_BUCKET
}

# radosgw, its clock shifted by $1 seconds (default none); waits until it answers.
rgw_launch() {
  local shift=${1:-0}
  if [ "$shift" = 0 ]; then
    radosgw -c "$RGW_CONF" -n client.rgw.lvg </dev/null >/dev/null 2>&1
  else
    # libfaketime preloaded, not through the faketime wrapper: the wrapper waits for the daemon.
    LD_PRELOAD=$(rgw_libfaketime) FAKETIME="+${shift}s" FAKETIME_DONT_FAKE_MONOTONIC=1 \
      radosgw -c "$RGW_CONF" -n client.rgw.lvg </dev/null >/dev/null 2>&1
  fi
  for _ in $(seq 1 240); do
    if curl -s -o /dev/null "$RGW_ENDPOINT"; then return 0; fi
    sleep 0.25
  done
  echo "radosgw did not answer on $RGW_ENDPOINT; its log:" >&2
  tail -30 "$RGW_DIR/log/client.rgw.lvg.log" >&2
  return 1
}

rgw_libfaketime() {
  dpkg -L libfaketime | grep -m1 'libfaketime\.so\.1$'
}

rgw_kill() {
  local pidfile=$RGW_DIR/run/$1.pid
  if [ -f "$pidfile" ]; then
    local pid
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  fi
}

rgw_restart_shifted() {
  rgw_kill client.rgw.lvg
  rgw_launch "$1"
}

rgw_stop() {
  [ -n "${RGW_DIR:-}" ] || return 0
  rgw_kill client.rgw.lvg
  rgw_kill osd.0
  rgw_kill mon.a
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  rgw_start "${1:-/tmp/lvg-rgw}"
  env | grep '^RGW_' | sort
fi
