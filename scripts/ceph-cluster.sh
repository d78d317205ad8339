#!/usr/bin/env bash
# A throw-away one-node Ceph cluster for tests (the RBD back-end's RbdBackendTest): one monitor and
# ONE OSD on memstore (RAM, no disk), both bound to 127.0.0.1 only, cephx on, no manager (rbd does
# not need one), and a pool "rbd" of size 1 initialised for rbd. Everything it makes (ceph.conf,
# keyrings, mon store, OSD dir, logs, pid files, admin sockets) lives in DIR; nothing else is touched.
#
# Usage: scripts/ceph-cluster.sh start DIR   prints DIR/ceph.conf once the pool takes I/O
#        scripts/ceph-cluster.sh stop DIR    kills only the daemons whose pids are in DIR/run/*.pid
# Env:   PORT      the monitor's port (default: a free one in 20000-39999); daemons use PORT+1..PORT+99
#        DEADLINE  seconds start waits for the cluster (default 90)
# Needs ceph-mon, ceph-osd, ceph-common (ceph, rbd, ceph-authtool, monmaptool):
#        scripts/ensure-packages.sh ceph-mon ceph-osd ceph-common
set -euo pipefail

die() { echo "ceph-cluster: $*" >&2; exit 1; }

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

pick_port() {
  local p i
  for i in $(seq 1 50); do
    p=$((20000 + (RANDOM % 200) * 100))
    if port_free "$p" && port_free $((p + 1)) && port_free $((p + 2)); then echo "$p"; return 0; fi
  done
  die "no free port found in 20000-39999"
}

# Runs "$@" until it succeeds or the deadline passes (a short poll interval, no fixed sleeps).
wait_for() {
  local what=$1; shift
  while ! "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$END" ] || die "timed out waiting for $what (logs in $DIR/log)"
    sleep 0.2
  done
}

osd_up() { [ "$(ceph osd stat -f json | tr -d ' \n' | grep -o '"num_up_osds":[0-9]*' | cut -d: -f2)" = 1 ]; }

start() {
  for t in ceph-mon ceph-osd ceph ceph-authtool monmaptool rbd uuidgen; do
    command -v "$t" >/dev/null || die "$t not installed (scripts/ensure-packages.sh ceph-mon ceph-osd ceph-common)"
  done
  [ ! -e "$DIR/ceph.conf" ] || die "$DIR already holds a cluster (stop it first)"
  local port=${PORT:-$(pick_port)}
  END=$((SECONDS + ${DEADLINE:-90}))
  mkdir -p "$DIR"/{mon,osd,log,run}
  local fsid; fsid=$(uuidgen)
  cat >"$DIR/ceph.conf" <<EOF
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:$port]
mon initial members = a
public addr = 127.0.0.1
cluster addr = 127.0.0.1
public network = 127.0.0.1/32
ms bind msgr1 = false
ms bind port min = $((port + 1))
ms bind port max = $((port + 99))
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
run dir = $DIR/run
admin socket = $DIR/run/\$name.asok
pid file = $DIR/run/\$name.pid
log file = $DIR/log/\$name.log
mon data = $DIR/mon/\$cluster-\$id
osd data = $DIR/osd/\$cluster-\$id
osd objectstore = memstore
memstore device bytes = 1073741824
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
mon warn on insecure global id reclaim allowed = false
mon data avail warn = 1
mon data avail crit = 0
osd max object name len = 256
osd max object namespace len = 64
[mon]
keyring = $DIR/mon.keyring
[osd]
keyring = $DIR/osd/\$cluster-\$id/keyring
[client]
keyring = $DIR/admin.keyring
EOF
  export CEPH_CONF="$DIR/ceph.conf"
  {
    ceph-authtool --create-keyring "$DIR/mon.keyring" --gen-key -n mon. --cap mon 'allow *'
    ceph-authtool --create-keyring "$DIR/admin.keyring" --gen-key -n client.admin \
      --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' --cap mds 'allow *'
    ceph-authtool "$DIR/mon.keyring" --import-keyring "$DIR/admin.keyring"
    monmaptool --create --addv a "[v2:127.0.0.1:$port]" --fsid "$fsid" "$DIR/monmap"
  } >>"$DIR/log/mkfs.log" 2>&1
  ceph-mon --mkfs -i a --monmap "$DIR/monmap" --keyring "$DIR/mon.keyring" >>"$DIR/log/mkfs.log" 2>&1
  ceph-mon -i a >>"$DIR/log/daemons.log" 2>&1
  wait_for "the monitor" ceph --connect-timeout 5 mon stat
  local osd_uuid; osd_uuid=$(uuidgen)
  local id; id=$(ceph --connect-timeout 10 osd new "$osd_uuid")
  mkdir -p "$DIR/osd/ceph-$id"
  ceph-authtool --create-keyring "$DIR/osd/ceph-$id/keyring" --gen-key -n "osd.$id" >>"$DIR/log/mkfs.log" 2>&1
  ceph --connect-timeout 10 auth add "osd.$id" osd 'allow *' mon 'allow profile osd' \
    -i "$DIR/osd/ceph-$id/keyring" >/dev/null 2>&1
  ceph-osd -i "$id" --mkfs --osd-uuid "$osd_uuid" >>"$DIR/log/mkfs.log" 2>&1
  ceph-osd -i "$id" >>"$DIR/log/daemons.log" 2>&1
  wait_for "the OSD to come up" osd_up
  ceph --connect-timeout 10 osd pool create rbd 8 8 >/dev/null 2>&1
  # rbd pool init writes an object: it returns once the pool's PGs are active.
  timeout $((END - SECONDS > 1 ? END - SECONDS : 1)) rbd pool init rbd \
    || die "the pool rbd did not become usable (logs in $DIR/log)"
  echo "$DIR/ceph.conf"
}

# Running and not a zombie (an exited daemon stays one until init reaps it; kill -0 still succeeds).
alive() { kill -0 "$1" 2>/dev/null && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]; }

stop() {
  local f pid
  shopt -s nullglob
  for f in "$DIR"/run/*.pid; do
    pid=$(cat "$f" 2>/dev/null || true)
    [[ "$pid" =~ ^[0-9]+$ ]] && kill "$pid" 2>/dev/null || true
  done
  for f in "$DIR"/run/*.pid; do
    pid=$(cat "$f" 2>/dev/null || true)
    [[ "$pid" =~ ^[0-9]+$ ]] || continue
    # 2 s for a clean exit, then SIGKILL: the cluster is throw-away (memstore) and tests wait for this.
    for _ in $(seq 1 20); do alive "$pid" || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$f"
  done
}

[ $# -eq 2 ] || die "usage: $0 start|stop DIR"
DIR=$(mkdir -p "$2" && cd "$2" && pwd)
case "$1" in
  start) start ;;
  stop) stop ;;
  *) die "usage: $0 start|stop DIR" ;;
esac
