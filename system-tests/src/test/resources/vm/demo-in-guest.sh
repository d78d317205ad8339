#!/bin/sh
# Guest script for nvme-vm.sh rdma-run (VmDemoSystemTest, profile -Pvm): runs `./jdoca demo` inside
# the emulated RDMA guest, where the worktree is mounted at /work (9p, read-write) and the host's
# JDK at /opt/jdk. The jars were built on the host first: JDOCA_NO_BUILD=1 keeps the guest from
# writing build output into the shared tree. Output goes to /out (the run directory's out/).
# The harness passes no environment into the guest: the knobs below have their defaults here.
. /usr/lib/nvmevm/lib.sh
cd /work || exit 50
export JDOCA_NO_BUILD=1 JAVA_HOME=/opt/jdk
# Five JVMs on two emulated CPUs (TCG): the demo's startup/run deadlines x6; every child's log to
# /out; JVM options for every JVM the demo starts: the C1 compiler only (less compiler work
# competing for two emulated CPUs) and idle data-path loops that park up to 1 ms instead of 50 us.
export JDOCA_DEMO_TIMEOUT_SCALE="${JDOCA_DEMO_TIMEOUT_SCALE:-6}" JDOCA_DEMO_LOGS="${JDOCA_DEMO_LOGS:-/out}"
export JDOCA_JAVA_OPTS="${JDOCA_JAVA_OPTS:--XX:TieredStopAtLevel=1 -Djdoca.storage.maxParkNanos=1000000}"
a=$(uptime_s)
./jdoca demo --mode "${JDOCA_VM_DEMO_MODE:-gga}" > /out/demo.txt 2>&1
rc=$?
b=$(uptime_s)
echo "demo: exit $rc after $(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.1f", b-a}') guest seconds" >> /out/demo.txt
emit_file demo /out/demo.txt
exit $rc
