#!/bin/sh
# Guest side of MultipathVmTest (run with `nvme-vm.sh exec`): a Linux NVMe/TCP host with native
# multipath connects to one subsystem over two paths (A, B), runs fio write+verify on the multipath
# device and follows the path events the test causes on the host side: path A goes away (MODE ana:
# its ANA state becomes inaccessible; MODE kill: its controller leaves the live state), I/O moves to
# path B, path A comes back. Markers on the console tell the test where the guest is.
# Knobs (substituted by the test): P1, P2, NQN, MODE, FIO_SIZE_MB, FIO_RATE.
. /usr/lib/nvmevm/lib.sh
A=${HOST_ADDR:-10.0.2.2}
P1=@P1@
P2=@P2@
N=@NQN@
MODE=@MODE@
OPTS="-l 60 --reconnect-delay=1 -c 2"

# The hidden per-path block device (nvmeXcYn1) of the controller connected to port $1.
path_of() {
  for c in /sys/class/nvme/nvme*; do
    grep -q "trsvcid=$1" "$c/address" 2>/dev/null || continue
    i=$(basename "$c" | sed 's/^nvme//')
    for p in /sys/block/nvme*c"$i"n1; do [ -e "$p" ] && { basename "$p"; return 0; }; done
  done
  return 1
}
ctrl_of() {
  for c in /sys/class/nvme/nvme*; do
    grep -q "trsvcid=$1" "$c/address" 2>/dev/null && { basename "$c"; return 0; }
  done
  return 1
}
writes() { set -- $(cat /sys/block/"$1"/stat); echo "$5"; }
ana_is() { [ "$(cat /sys/block/"$1"/ana_state 2>/dev/null)" = "$2" ]; }
state_is() { [ "$(cat /sys/class/nvme/"$1"/state 2>/dev/null)" = "$2" ]; }
not_live() { ! state_is "$1" live; }
grew() { [ "$(writes "$1")" -ge $(( $2 + 50 )) ]; }

run_emit connect-a nvme connect -t tcp -a "$A" -s "$P1" -n "$N" $OPTS || exit 20
run_emit connect-b nvme connect -t tcp -a "$A" -s "$P2" -n "$N" $OPTS || exit 20
wait_for 30 ns_for_nqn "$N" || { emit_dmesg dmesg; exit 21; }
D=$(ns_for_nqn "$N")
wait_for 30 path_of "$P1" || exit 22
wait_for 30 path_of "$P2" || { emit_dmesg dmesg; exit 22; }
PA=$(path_of "$P1"); PB=$(path_of "$P2"); CA=$(ctrl_of "$P1")
wait_for 30 ana_is "$PA" optimized || exit 23
run_emit list-subsys nvme list-subsys "$D"
{ echo "device $D"; echo "path-a $PA $(cat /sys/block/$PA/ana_state)"; echo "path-b $PB $(cat /sys/block/$PB/ana_state)"
  echo "cmic $(nvme id-ctrl /dev/$CA | grep -i '^cmic')"; } > /tmp/paths
emit_file paths /tmp/paths
echo "STA-MP-READY $D $PA $PB"

# Each block written once (random order, rate-limited so the path events fall inside the write
# phase), the recent writes verified as it goes, every block verified at the end.
fio --name=mp --filename="$D" --rw=randwrite --bs=4k --iodepth=8 --ioengine=libaio --direct=1 \
    --size=@FIO_SIZE_MB@m --rate_iops=@FIO_RATE@ --verify=crc32c --verify_backlog=256 --verify_fatal=1 \
    --output-format=json --output=/tmp/mp.json &
F=$!
wait_for 60 grew "$PA" "$(writes "$PA")" || { echo "no I/O on path A"; kill $F; exit 24; }
echo "STA-FIO-RUNNING"

if [ "$MODE" = ana ]; then
  wait_for 120 ana_is "$PA" inaccessible || { emit_dmesg dmesg; kill $F; exit 42; }
else
  wait_for 120 not_live "$CA" || { emit_dmesg dmesg; kill $F; exit 42; }
fi
B0=$(writes "$PB")
wait_for 60 grew "$PB" "$B0" || { echo "no I/O moved to path B"; emit_dmesg dmesg; kill $F; exit 44; }
run_emit list-subsys-failover nvme list-subsys "$D"
echo "STA-FAILED-OVER"

if [ "$MODE" = ana ]; then
  wait_for 120 ana_is "$PA" optimized || { emit_dmesg dmesg; kill $F; exit 43; }
else
  wait_for 120 state_is "$CA" live || { emit_dmesg dmesg; kill $F; exit 43; }
fi
A0=$(writes "$PA")
wait_for 60 grew "$PA" "$A0" || { echo "I/O did not come back to path A"; emit_dmesg dmesg; kill $F; exit 45; }
run_emit list-subsys-back nvme list-subsys "$D"
echo "STA-PATH-BACK"

wait $F
rc=$?
emit_file fio.json /tmp/mp.json
{ echo "path-a-writes $(writes "$PA")"; echo "path-b-writes $(writes "$PB")"; } > /tmp/counts
emit_file counts /tmp/counts
emit_dmesg dmesg
run_emit disconnect nvme disconnect -n "$N"
[ $rc -eq 0 ] || exit 30
exit 0
