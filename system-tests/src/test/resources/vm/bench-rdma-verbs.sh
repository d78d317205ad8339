#!/bin/sh
# Guest script for ../shared/nvme-vm, run by hand (no VM test: the vm profile's budget is full):
#   NVME_VM_RUNDIR=/tmp/bench-verbs-run-1 /work/shared/nvme-vm/nvme-vm.sh rdma-run REPO \
#     REPO/system-tests/src/test/resources/vm/bench-rdma-verbs.sh
# (busybox sh in the Soft-RoCE guest; cwd /work = this checkout with its jars built on the host by
# `./jdoca build`; rxe0 on eth0 = 10.0.2.15; JDK at /opt/jdk; /out = the run directory's out/).
# Runs `./jdoca bench rdma -d rxe0`: jdoca's RDMA WRITE 64 KiB bandwidth and 2-byte RDMA READ latency on
# rxe0 beside perftest's ib_write_bw / ib_read_lat on rxe0 in the same run, with the ratios. The table goes
# to /out/bench.txt (emitted as res/bench), progress and perftest's raw outputs to /out/bench-log.txt
# (res/bench-log), the JSON to /out/rdma-verbs.json (res/rdma-verbs-json).
# Knobs (a wrapper script that sets them and sources this one): BENCH_QUICK (empty; "--quick" for a
# smoke run), RDMA_DEV (rxe0). Exit status: the bench's.
. /usr/lib/nvmevm/lib.sh
cd /work || exit 50
export JDOCA_NO_BUILD=1 JAVA_HOME=/opt/jdk
DEV=${RDMA_DEV:-rxe0}
# ibv_reg_mr pins the maps' pages (16 MiB per side here, perftest's buffers too)
ulimit -l unlimited 2>/dev/null
# C2 only, as the other measuring guest scripts: the crashes this test bed's emulated CPUs cause were mostly in C1 code
# at a method's entry (docs/RDMA-HARDWARE.md "Known issue"), and a benchmark measures warm code anyway.
export JDOCA_JAVA_OPTS="${JDOCA_JAVA_OPTS:--XX:-TieredCompilation} -XX:ErrorFile=/out/hs_err_pid%p.log"
{
  echo "guest uptime at start: $(uptime_s) s; nproc $(nproc)"
  echo "ulimit -l: $(ulimit -l)"
  rdma link show 2>&1
  ip -4 addr show 2>&1 | grep inet
  command -v ib_write_bw ib_read_lat 2>&1
  ib_write_bw --version 2>&1 | head -3
  echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>&1)"
} > /out/bench-env.txt 2>&1
emit_file bench-env /out/bench-env.txt
a=$(uptime_s)
timeout 780 ./jdoca bench rdma -d "$DEV" ${BENCH_QUICK:-} -o /out > /out/bench.txt 2> /out/bench-log.txt
rc=$?
echo "bench: exit $rc after $(awk -v a="$a" -v b="$(uptime_s)" 'BEGIN{printf "%.1f", b-a}') guest seconds" >> /out/bench.txt
emit_file bench /out/bench.txt
emit_file bench-log /out/bench-log.txt
[ -f /out/rdma-verbs.json ] && emit_file rdma-verbs-json /out/rdma-verbs.json
exit $rc
