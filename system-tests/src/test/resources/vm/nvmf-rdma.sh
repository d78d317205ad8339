#!/bin/sh
# Guest script for ../shared/nvme-vm: 'nvme-vm.sh rdma-run REPO REPO/system-tests/src/test/resources/vm/nvmf-rdma.sh'
# (busybox sh in the Soft-RoCE guest; cwd /work = this checkout with its jars built on the host; rxe0 on
# eth0 = 10.0.2.15; JDK at /opt/jdk; /out = the run directory's out/). Run by NvmfRdmaVmTest (-Psystem,vm).
# Issue 15: the Linux nvme-rdma host against ./jdoca sta-target over NVMe/RDMA (RoCE, rxe):
#   1. sta-target with an RDMA listener and a TCP listener on 10.0.2.15:4420 (file back-end, RPC socket)
#   2. nvme discover -t rdma (and -t tcp on the same port), nvme connect -t rdma (-l ctrl-loss-tmo -c delay),
#      nvme list, id-ctrl, id-ns, fio verify.fio, blkdiscard, disconnect + reconnect, a namespace hot-added
#      over RPC appearing on the host
#   3. fio writes with crc32c headers, sta-target killed (-9) during them and restarted: the host reconnects
#      within ctrl-loss-tmo, fio ends without error (every write acknowledged) and a verify-only pass reads
#      every block back
#   4. the same verify.fio against the kernel's nvmet-rdma (null_blk, port 4421) in this run: IOPS side by side
#   5. ./jdoca nvme-perf -r 'trtype:RDMA ...' 4K randread QD32 against both targets: IOPS and the ratio
# Every check is a line of /out/nvmf-rdma-summary.txt ("ok ..." / "FAIL ..."); the fio JSONs are /out/*.json
# (the host test prints the IOPS table and the ratio). Each step is bounded (busybox timeout). Exit 0 only
# when every check passed. dmesg goes to /out/dmesg.txt (the kernel's nvme-rdma says why it rejects).
. /usr/lib/nvmevm/lib.sh
export JDOCA_NO_BUILD=1 JAVA_HOME=/opt/jdk
ADDR=${RDMA_ADDR:-10.0.2.15}
PORT=4420
KPORT=4421
NQN=nqn.2024-01.io.jdoca:rdma
KNQN=nqn.2024-01.io.nvmevm:kernel-rdma
SOCK=/tmp/sta-rdma.sock
IMG=/tmp/rdma-ns1.img
export FIO_IOENGINE=${FIO_IOENGINE:-libaio} VERIFY_SIZE=${VERIFY_SIZE:-16m} VERIFY_OFFSET3=${VERIFY_OFFSET3:-32m}
S=/out/nvmf-rdma-summary.txt
T=/out/nvmf-rdma-timings.txt
: > "$S"
: > "$T"
rc=0
t0=$(uptime_s)
stamp() { echo "$1 $(uptime_s)" >> "$T"; }
check() {  # CODE DESCRIPTION COMMAND...: record ok/FAIL; the first failure's CODE becomes the exit status
  _c=$1; _d=$2; shift 2
  if "$@"; then echo "ok   $_d" | tee -a "$S"; else echo "FAIL $_d" | tee -a "$S"; [ $rc -ne 0 ] || rc=$_c; fi
}
# until rdma_cm has a listener on port $1 (at most $2 s): polls the condition
listening() { rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -qE ":$1( |\$)"; }
wait_listen() {
  _i=0
  while [ $_i -lt "$(( $2 * 5 ))" ]; do
    listening "$1" && return 0
    sleep 0.2; _i=$((_i + 1))
  done
  rdma resource show cm_id > "/out/cm_id-$1.txt" 2>&1
  return 1
}
# The launcher's own java command line (./jdoca first starts a JVM to find the JDK: on a loaded TCG guest
# each JVM start costs minutes, so the three this script needs go straight to java).
J=/tmp/jdoca-direct
printf '%s\n' '#!/bin/sh' 'exec /opt/jdk/bin/java --enable-native-access=ALL-UNNAMED --add-modules=jdk.incubator.vector \' \
  '  -XX:+UseSerialGC -XX:MaxDirectMemorySize=64g -Xshare:auto $JDOCA_JAVA_OPTS -Djdoca.home=/work -cp "/work/cli/target/jdoca.jar:/work/cli/target/lib/*" io.jdoca.cli.Main "$@"' > $J
chmod +x $J
# C1 only: less compiler work competing for two emulated CPUs
export JDOCA_JAVA_OPTS="${JDOCA_JAVA_OPTS:--XX:TieredStopAtLevel=1} -XX:ErrorFile=/out/hs_err_pid%p.log"
stamp start

modprobe nvme-rdma || { echo "FAIL modprobe nvme-rdma" >> "$S"; exit 10; }
modprobe nvme-tcp
cat > /tmp/rdma-target.json <<EOF
{ "io_threads": 2, "rpc_socket": "$SOCK",
  "listeners": [ { "trtype": "rdma", "address": "$ADDR", "port": $PORT },
                 { "address": "$ADDR", "port": $PORT } ],
  "subsystems": [ { "nqn": "$NQN", "serial_number": "JDOCARDMA0001", "model_number": "jdoca STA NVMe/RDMA",
                    "allow_any_host": true,
                    "namespaces": [ { "nsid": 1, "backend": "file", "path": "$IMG", "size_mb": 128, "block_size": 4096 } ] } ] }
EOF
TPID=
start_target() {  # LOG
  $J sta-target -j /tmp/rdma-target.json > "$1" 2>&1 &
  TPID=$!
  wait_listen $PORT 600   # a slow JVM start on TCG is not a dead target
}
cd /tmp   # fio leaves verify state files in the current directory
start_target /out/target.log
stamp target_up
check 11 "sta-target listens for NVMe/RDMA on $ADDR:$PORT (rdma_cm LISTEN)" listening $PORT
# Issue 28: the target gave STA the device that owns its RDMA listener's address (Sta.addDev, which takes only a
# device capIsSupported(RDMA) accepts: rxe0 here, never sw0 for RDMA).
check 11 "STA network devices: sw0 (NVMe/TCP) and rxe0 (NVMe/RDMA, capIsSupported true)" \
  grep -q "STA network devices: \[sw0, rxe0\]" /out/target.log
rdma resource show cm_id > /out/cm_id.txt 2>&1

# ---- discovery, connect, identify --------------------------------------------------------------------
timeout 120 nvme discover -t rdma -a "$ADDR" -s $PORT > /out/discover-rdma.txt 2>&1
check 20 "nvme discover -t rdma lists $NQN (trtype rdma)" sh -c \
  "grep -q 'subnqn: *$NQN' /out/discover-rdma.txt && grep -q 'trtype: *rdma' /out/discover-rdma.txt"
check 20 "discovery entry: RDMA_QPTYPE connected, RDMA_CMS rdma-cm" sh -c \
  "grep -qi 'rdma_prtype' /out/discover-rdma.txt && grep -qi 'connected' /out/discover-rdma.txt && grep -qi 'rdma-cm' /out/discover-rdma.txt"
timeout 120 nvme discover -t tcp -a "$ADDR" -s $PORT > /out/discover-tcp.txt 2>&1
check 20 "TCP listener on the same address and port at once: nvme discover -t tcp lists $NQN (trtype tcp)" sh -c \
  "grep -q 'subnqn: *$NQN' /out/discover-tcp.txt && grep -q 'trtype: *tcp' /out/discover-tcp.txt"
dmesg | tail -60 > /out/dmesg-after-discover.txt 2>&1
stamp discovered
# a step the rest depends on failed: keep the evidence, stop the target, end now (no minutes of doomed waits)
give_up() {
  echo "FAIL $1 (later steps skipped)" | tee -a "$S"
  dmesg > /out/dmesg.txt 2>&1
  kill "$TPID" 2>/dev/null
  exit "$2"
}

# ctrl-loss-tmo 900 s: a restarted target's JVM needs minutes to start on a loaded TCG guest (not a dead target)
CONNECT="-t rdma -a $ADDR -s $PORT -n $NQN -l 900 -c 1"
timeout 120 nvme connect $CONNECT > /out/connect.txt 2>&1
check 20 "nvme connect -t rdma -l 900 -c 1" wait_for 30 ns_for_nqn "$NQN" rdma
NVME_DEV=$(ns_for_nqn "$NQN" rdma); C=$(ctrl_for_nqn "$NQN" rdma); CTRL=/dev/$C
export NVME_DEV
[ -n "$NVME_DEV" ] || give_up "no NVMe/RDMA namespace after connect" 20
echo "connected: ctrl=$CTRL ns=$NVME_DEV" >> /out/connect.txt
stamp connected
if [ -n "$C" ]; then
  (cd /sys/class/nvme/$C && for f in transport address subsysnqn queue_count sqsize cntlid state model kato; do
     [ -f $f ] && echo "$f: $(cat $f)"; done) > /out/ctrl-sysfs.txt 2>&1
fi
check 21 "controller transport rdma, live, with I/O queues" sh -c \
  "grep -q 'transport: rdma' /out/ctrl-sysfs.txt && grep -q 'state: live' /out/ctrl-sysfs.txt && ! grep -q 'queue_count: 1\$' /out/ctrl-sysfs.txt"
timeout 60 nvme list > /out/nvme-list.txt 2>&1
check 21 "nvme list shows the namespace (jdoca model)" grep -q "jdoca STA NVMe/RDMA" /out/nvme-list.txt
timeout 60 nvme id-ctrl "$CTRL" > /out/id-ctrl.txt 2>&1
check 21 "id-ctrl: subnqn, keyed SGLs (sgls bit 2), ioccsz" sh -c \
  "grep -q 'subnqn *: *$NQN' /out/id-ctrl.txt && grep -qE 'sgls *: *(0x)?1000(05|07)' /out/id-ctrl.txt && grep -qE 'ioccsz *: *516' /out/id-ctrl.txt"
timeout 60 nvme id-ns "$NVME_DEV" > /out/id-ns.txt 2>&1
check 21 "id-ns: 128 MiB of 4 KiB blocks" sh -c "grep -qE 'nsze *: *0x8000' /out/id-ns.txt"

# ---- data ------------------------------------------------------------------------------------------------
run_fio jdoca-verify /payload/jobs/verify.fio > /out/fio-jdoca-verify.txt 2>&1
frc=$?
cp /tmp/jdoca-verify.json /out/jdoca-verify.json 2>/dev/null
check 30 "fio verify.fio over NVMe/RDMA (3 jobs, crc32c, verify_fatal)" [ $frc -eq 0 ]
stamp fio_verify
timeout 120 blkdiscard "$NVME_DEV" > /out/blkdiscard.txt 2>&1
check 31 "blkdiscard (Dataset Management, deallocate)" [ $? -eq 0 ]
timeout 60 nvme disconnect -n "$NQN" > /out/disconnect.txt 2>&1
gone() { ! ns_for_nqn "$NQN" rdma; }
check 32 "nvme disconnect" wait_for 15 gone
timeout 120 nvme connect $CONNECT > /out/reconnect.txt 2>&1
check 32 "reconnect after disconnect" wait_for 30 ns_for_nqn "$NQN" rdma
NVME_DEV=$(ns_for_nqn "$NQN" rdma); C=$(ctrl_for_nqn "$NQN" rdma)
export NVME_DEV
stamp reconnected

# ---- namespace hot-add over RPC ------------------------------------------------------------------------
timeout 600 $J sta-rpc -s "$SOCK" nvmf_subsystem_add_ns "nqn=$NQN" nsid=2 backend=memory size_mb=16 block_size=4096 \
  > /out/rpc-add-ns.txt 2>&1
arc=$?
ns2() { ls /sys/class/nvme/$C/ 2>/dev/null | grep -qE "^nvme[0-9]+c?[0-9]*n2\$" || ls /dev/ | grep -qE "^${C}n2\$"; }
check 33 "nvmf_subsystem_add_ns over RPC (exit $arc) and namespace 2 appears on the host" wait_for 60 ns2
ls -l /sys/class/nvme/$C/ > /out/ctrl-after-hotadd.txt 2>&1
stamp hot_added

# ---- kill the target during fio, restart it, the host reconnects, every acknowledged write reads back ----
cat > /tmp/crash.fio <<EOF
[global]
ioengine=$FIO_IOENGINE
direct=1
filename=$NVME_DEV
verify=crc32c
verify_fatal=1
randrepeat=0
[crash-write-64k-qd8]
rw=write
bs=64k
iodepth=8
size=48m
EOF
sed -e 's/^\[crash-write-64k-qd8\]/[crash-verify]/' -e 's/^rw=write/rw=read/' /tmp/crash.fio > /tmp/crash-verify.fio
(fio --do_verify=0 --output-format=json --output=/out/crash-write.json /tmp/crash.fio > /out/crash-write.txt 2>&1;
 echo $? > /tmp/crash-write.rc) &
FPID=$!
# Writes completed, from sysfs "stat" (field 5): the subsystem reports CMIC multi-controller, so Linux puts a
# multipath head over a hidden per-path disk (nvmeXcYnZ); 6.1 counts I/O on the path disk only, not on the head.
NSID=${NVME_DEV##*n}
written() {
  cat "/sys/block/$(basename "$NVME_DEV")/stat" /sys/class/nvme/$C/nvme*c*n"$NSID"/stat 2>/dev/null \
    | awk '{ w += $5 } END { exit !(w > 64) }'
}
wait_for 120 written
check 34 "fio is writing (more than 64 writes completed) before the kill" written
check 34 "fio is still running at the kill" kill -0 $FPID
kill -9 "$TPID"
wait "$TPID" 2>/dev/null
stamp killed
start_target /out/target-restarted.log
check 34 "sta-target restarted (same file back-end)" listening $PORT
stamp restarted
# the host reconnects on its own (reconnect delay 1 s, ctrl-loss-tmo 900 s)
live() { [ "$(cat /sys/class/nvme/$C/state 2>/dev/null)" = live ]; }
check 34 "the host reconnected within ctrl-loss-tmo (controller live again)" wait_for 900 live
stamp host_reconnected
_i=0
while kill -0 $FPID 2>/dev/null && [ $_i -lt 6000 ]; do sleep 0.1; _i=$((_i + 1)); done
wrc=$(cat /tmp/crash-write.rc 2>/dev/null || echo 99)
check 35 "fio write across the crash finished without error (every write acknowledged; exit $wrc)" [ "$wrc" = 0 ]
timeout 300 fio --verify_only --output-format=json --output=/out/crash-verify.json /tmp/crash-verify.fio > /out/crash-verify.txt 2>&1
check 35 "verify-only pass reads back every acknowledged write (crc32c over 48 MiB)" [ $? -eq 0 ]
stamp crash_verified
timeout 60 nvme disconnect -n "$NQN" >> /out/disconnect.txt 2>&1

# ---- the same job against the kernel's nvmet-rdma in this guest -------------------------------------------
modprobe nvmet-rdma && { [ -b /dev/nullb0 ] || modprobe null_blk nr_devices=1 gb=1 bs=4096 memory_backed=1 queue_mode=2; } \
  && wait_for 5 test -b /dev/nullb0 && nvmet_subsys "$KNQN" /dev/nullb0 1 && nvmet_port 2 "$ADDR" $KPORT "$KNQN" rdma
check 40 "nvmet-rdma (null_blk) on $ADDR:$KPORT" [ $? -eq 0 ]
timeout 120 nvme connect -t rdma -a "$ADDR" -s $KPORT -n "$KNQN" > /out/connect-kernel.txt 2>&1
check 40 "nvme connect to nvmet-rdma" wait_for 30 ns_for_nqn "$KNQN" rdma
NVME_DEV=$(ns_for_nqn "$KNQN" rdma)
export NVME_DEV
run_fio kernel-verify /payload/jobs/verify.fio > /out/fio-kernel-verify.txt 2>&1
krc=$?
cp /tmp/kernel-verify.json /out/kernel-verify.json 2>/dev/null
check 41 "fio verify.fio against nvmet-rdma" [ $krc -eq 0 ]
timeout 60 nvme disconnect -n "$KNQN" >> /out/disconnect.txt 2>&1
stamp kernel_done

# ---- nvme-perf over NVMe/RDMA (spdk_nvme_perf's -r) against both targets, 4K randread QD32 ----------------------
# --idle-sleep: the initiator sleeps on its completion channel when idle instead of spinning, so on two emulated
# CPUs it does not take a CPU from the target it measures (either target); --json: the figures in one line.
perf_rdma() {  # NAME PORT NQN
  timeout 300 $J nvme-perf -q 32 -o 4096 -w randread -t 5 --warmup 1 --idle-sleep --json \
    -r "trtype:RDMA adrfam:IPv4 traddr:$ADDR trsvcid:$2 subnqn:$3" > "/out/perf-rdma-$1.txt" 2>&1
}
perf_iops() { awk '$1 == "IOPS:" { printf "%.0f", $2 }' "/out/perf-rdma-$1.txt"; }
perf_rdma jdoca $PORT "$NQN"
prc=$?
JI=$(perf_iops jdoca)
check 50 "nvme-perf -r trtype:RDMA 4K randread QD32 against jdoca sta-target: ${JI:-no} IOPS (exit $prc)" \
  sh -c "[ $prc -eq 0 ] && [ \"${JI:-0}\" -gt 0 ]"
perf_rdma kernel $KPORT "$KNQN"
prc=$?
KI=$(perf_iops kernel)
check 51 "nvme-perf -r trtype:RDMA 4K randread QD32 against nvmet-rdma (null_blk): ${KI:-no} IOPS (exit $prc)" \
  sh -c "[ $prc -eq 0 ] && [ \"${KI:-0}\" -gt 0 ]"
RATIO=$(awk -v a="${JI:-0}" -v b="${KI:-0}" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "n/a" }')
check 51 "nvme-perf RDMA ratio jdoca/nvmet-rdma: $RATIO (emulated CPUs: a relative figure)" [ "$RATIO" != n/a ]
echo "docs nvme-perf -q 32 -o 4096 -w randread -t 5 --warmup 1 --idle-sleep -r 'trtype:RDMA adrfam:IPv4 traddr:$ADDR ...': jdoca sta-target ${JI:-n/a} IOPS, nvmet-rdma (null_blk) ${KI:-n/a} IOPS, ratio $RATIO" >> "$S"
stamp nvme_perf_rdma

kill "$TPID" 2>/dev/null
_i=0
while kill -0 "$TPID" 2>/dev/null && [ $_i -lt 300 ]; do sleep 0.1; _i=$((_i + 1)); done
kill -9 "$TPID" 2>/dev/null
dmesg > /out/dmesg.txt 2>&1
emit_file nvmf-rdma-summary "$S"
echo "guest seconds: $(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN{printf "%.1f", b-a}')" >> "$T"
exit $rc
