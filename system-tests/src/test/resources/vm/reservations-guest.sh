#!/bin/sh
# Guest side of MultipathVmTest's reservation test (run with `nvme-vm.sh exec`): one Linux host connects
# to the subsystem twice (through its two listeners), as two hosts (two host NQNs and host identifiers), and uses nvme-cli's
# reservation commands on each controller: register both, host 1 acquires Write Exclusive (with Persist
# Through Power Loss set), host 2's write fails with Reservation Conflict while its read and host 1's
# write pass, the report lists both registrants; then the test restarts the target (marker
# STA-RESV-HELD), the controllers reconnect and the reservation is still there; host 1 releases it and
# host 2 writes. Knobs (substituted by the test): P, P2, NQN.
. /usr/lib/nvmevm/lib.sh
A=${HOST_ADDR:-10.0.2.2}
P=@P@
P2=@P2@
N=@NQN@
H1=nqn.2014-08.org.nvmexpress:uuid:6a646f63-0000-4000-8000-0000000000b1
H2=nqn.2014-08.org.nvmexpress:uuid:6a646f63-0000-4000-8000-0000000000b2
I1=6a646f63-0000-4000-8000-0000000000b1
I2=6a646f63-0000-4000-8000-0000000000b2
OPTS="-l 120 --reconnect-delay=1"

ctrl_of_host() {
  for c in /sys/class/nvme/nvme*; do
    [ "$(cat "$c/hostnqn" 2>/dev/null)" = "$1" ] && { basename "$c"; return 0; }
  done
  return 1
}
state_is() { [ "$(cat /sys/class/nvme/"$1"/state 2>/dev/null)" = "$2" ]; }
not_live() { ! state_is "$1" live; }
wr() { nvme io-passthru /dev/"$1" --opcode=0x01 --namespace-id=1 --data-len=4096 --write --input-file=/tmp/blk; }
rd() { nvme io-passthru /dev/"$1" --opcode=0x02 --namespace-id=1 --data-len=4096 --read > /dev/null; }
fail() { echo "STA-RESV-FAIL $1"; emit_dmesg dmesg; nvme disconnect -n "$N"; exit "$2"; }

run_emit connect-1 nvme connect -t tcp -a "$A" -s "$P" -n "$N" --hostnqn="$H1" --hostid="$I1" $OPTS || exit 20
run_emit connect-2 nvme connect -t tcp -a "$A" -s "$P2" -n "$N" --hostnqn="$H2" --hostid="$I2" $OPTS || exit 20
wait_for 30 ctrl_of_host "$H2" || exit 21
C1=$(ctrl_of_host "$H1"); C2=$(ctrl_of_host "$H2")
dd if=/dev/urandom of=/tmp/blk bs=4096 count=1 2>/dev/null

run_emit register-1 nvme resv-register /dev/"$C1" -n 1 --nrkey=0x1111 --rrega=0 --cptpl=3 || fail register-1 50
run_emit register-2 nvme resv-register /dev/"$C2" -n 1 --nrkey=0x2222 --rrega=0 || fail register-2 50
run_emit acquire-1 nvme resv-acquire /dev/"$C1" -n 1 --crkey=0x1111 --rtype=1 --racqa=0 || fail acquire 51
run_emit write-2 wr "$C2" && fail "host 2 wrote under host 1's Write Exclusive" 52
run_emit write-1 wr "$C1" || fail "the holder could not write" 53
run_emit read-2 rd "$C2" || fail "host 2 could not read under Write Exclusive" 54
run_emit report nvme resv-report /dev/"$C2" -n 1 --eds -o json || fail report 55
echo "STA-RESV-HELD"

# The test restarts the target now: both controllers leave the live state and come back.
wait_for 120 not_live "$C1" || fail "the controller did not see the restart" 56
wait_for 120 state_is "$C1" live || fail "controller 1 did not reconnect" 57
wait_for 120 state_is "$C2" live || fail "controller 2 did not reconnect" 57
run_emit report-after nvme resv-report /dev/"$C2" -n 1 --eds -o json || fail report-after 58
run_emit write-2-after wr "$C2" && fail "the reservation did not persist through the restart" 59
run_emit release-1 nvme resv-release /dev/"$C1" -n 1 --crkey=0x1111 --rtype=1 --rrela=0 || fail release 60
run_emit write-2-released wr "$C2" || fail "host 2 could not write after the release" 61
run_emit disconnect nvme disconnect -n "$N"
exit 0
