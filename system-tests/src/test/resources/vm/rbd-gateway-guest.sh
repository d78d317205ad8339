#!/bin/sh
# Guest side of RbdGatewayVmTest (run with `nvme-vm.sh exec`): Linux 6.1's nvme-tcp host writes through
# sta-target onto a Ceph RBD image (bdev_rbd_create): connect, fio random writes of 4-128 KiB over the first
# @MB@ MiB with crc32c verify, then the SHA-256 of that range read back through the target (results channel:
# "sha256"), which the test compares with `rbd export` of the image on the host. Knobs (substituted by the
# test): P, NQN, MB.
. /usr/lib/nvmevm/lib.sh
A=${HOST_ADDR:-10.0.2.2}
P=@P@
N=@NQN@
MB=@MB@
fail() { echo "STA-RBD-FAIL $1"; emit_dmesg dmesg; nvme disconnect -n "$N" > /dev/null 2>&1; exit "$2"; }

run_emit connect nvme connect -t tcp -a "$A" -s "$P" -n "$N" -l 60 || fail connect 20
wait_for 30 ns_for_nqn "$N" || fail "no namespace" 21
D=$(ns_for_nqn "$N")
cat > /tmp/rbd.fio <<JOB
[global]
ioengine=libaio
direct=1
filename=$D
verify=crc32c
verify_fatal=1
randrepeat=0
[rbd-randwrite-verify]
rw=randwrite
bsrange=4k-128k
bs_unaligned=0
iodepth=16
size=${MB}m
JOB
run_fio fio /tmp/rbd.fio || fail "fio write+verify" 30
dd if="$D" bs=1M count="$MB" iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1 > /tmp/sha
emit_file sha256 /tmp/sha
run_emit disconnect nvme disconnect -n "$N"
echo "STA-RBD-DONE"
