#!/bin/sh
# Guest script for nvme-vm.sh rdma-run (run by hand; sourced by VmDemoVerbsSystemTest's scripts): `./jdoca demo` in
# the emulated RDMA guest, where the worktree is mounted at /work (9p, read-write) and the host's
# JDK at /opt/jdk. The jars were built on the host first: JDOCA_NO_BUILD=1 keeps the guest from
# writing build output into the shared tree. Output goes to /out (the run directory's out/).
# The harness passes no environment into the guest: the knobs below have their defaults here, and a
# wrapper script that sets them and sources this one changes them (demo-verbs-in-guest.sh:
# JDOCA_VM_DEMO_DEVICE=rxe0, the RDMA of the targets and gga-offload on Soft-RoCE through verbs;
# zero-copy-verbs-in-guest.sh: JDOCA_VM_DEMO_MODE=zero-copy, JDOCA_VM_DEMO_FLAGS=--quick, a deadline scale).
# With a device other than sw0, `rdma resource show qp` is sampled every 3 s while the demo runs
# (/out/qp-samples.txt) and /out/qp-summary.txt records the most RC QPs seen at once: the proof the
# RDMA went over the device, not a software transport.
. /usr/lib/nvmevm/lib.sh
cd /work || exit 50
export JDOCA_NO_BUILD=1 JAVA_HOME=/opt/jdk
# Five JVMs on two emulated CPUs (TCG), with the demo's default settings (issue 29 item 7): no deadline
# scale and no JVM tuning; the demo waits for children that are alive and working. A wrapper may still set
# JDOCA_DEMO_TIMEOUT_SCALE (zero-copy-verbs-in-guest.sh does). Every child's log goes to /out, and a JVM
# crash report too (not a tuning knob).
[ -n "${JDOCA_DEMO_TIMEOUT_SCALE:-}" ] && export JDOCA_DEMO_TIMEOUT_SCALE
export JDOCA_DEMO_LOGS="${JDOCA_DEMO_LOGS:-/out}"
export JDOCA_JAVA_OPTS="${JDOCA_JAVA_OPTS:-} -XX:ErrorFile=/out/hs_err_pid%p.log"
DEV="${JDOCA_VM_DEMO_DEVICE:-sw0}"
sampler=
if [ "$DEV" != sw0 ]; then
  { ibv_devices; rdma link show; } > /out/rdma-devices.txt 2>&1
  : > /out/qp-samples.txt
  # A periodic sample (not a synchronisation): ends when the demo does (killed by its pid below).
  ( while :; do echo "@ $(uptime_s)"; rdma resource show qp 2>&1; sleep 3; done ) >> /out/qp-samples.txt &
  sampler=$!
fi
a=$(uptime_s)
./jdoca demo --mode "${JDOCA_VM_DEMO_MODE:-gga}" -d "$DEV" ${JDOCA_VM_DEMO_FLAGS:-} > /out/demo.txt 2>&1
rc=$?
b=$(uptime_s)
[ -n "$sampler" ] && kill "$sampler" 2>/dev/null
echo "demo: exit $rc after $(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.1f", b-a}') guest seconds" >> /out/demo.txt
if [ -n "$sampler" ]; then
  # Most RC QPs (user QPs: the kernel's own are GSI/SMI) present in one sample, over every sample of the run.
  awk '/^@ /{if(n>m)m=n;n=0;next} /type RC/{n++} END{if(n>m)m=n; print "rc-qps-max " m+0}' \
    /out/qp-samples.txt > /out/qp-summary.txt
  emit_file qp-summary /out/qp-summary.txt
fi
emit_file demo /out/demo.txt
exit $rc
