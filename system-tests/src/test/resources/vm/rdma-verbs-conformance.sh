#!/bin/sh
# Guest script for ../shared/nvme-vm: 'nvme-vm.sh rdma-run REPO REPO/system-tests/src/test/resources/vm/rdma-verbs-conformance.sh'
# (busybox sh in the Soft-RoCE guest; cwd /work = this checkout, built on the host: the rdma module's classes and
# test classes, and its test dependencies copied to rdma/target/guest-lib by VerbsConformanceVmTest).
# Runs the RDMA conformance suite on the verbs transport over rxe0 (io.jdoca.rdma.VerbsConformanceMain, JUnit's
# launcher): /out/verbs-conformance.txt has one PASS/FAIL/SKIP line per test, the failures' traces and a SUMMARY.
# Exit status: the runner's (0 only when tests ran and none failed).
. /usr/lib/nvmevm/lib.sh
DEV=${RDMA_DEV:-rxe0}
{
  echo "guest uptime at start: $(cut -d' ' -f1 /proc/uptime) s"
  echo "ulimit -l: $(ulimit -l)"
  rdma link 2>&1
  ibv_devinfo -d "$DEV" 2>&1 | head -30
} > /out/verbs-env.txt 2>&1
ulimit -l unlimited 2>/dev/null
CP=/work/rdma/target/test-classes:/work/rdma/target/classes:/work/core/target/classes:/work/verbs/target/classes:/work/testkit/target/classes
for j in /work/rdma/target/guest-lib/*.jar; do
  case "$j" in */jdoca-*) ;; *) CP="$CP:$j" ;; esac
done
# -XX:-TieredCompilation: every guest JVM crash seen so far (five, docs/RDMA-HARDWARE.md "Known issue") was in
# C1-compiled code at or near its entry under QEMU TCG, one of them before any test ran; a C2-only run of the whole
# suite passed at the same speed (247 s). Guest only: the host runs the JVM's defaults.
timeout ${CONFORMANCE_TIMEOUT:-1200} /opt/jdk/bin/java --enable-native-access=ALL-UNNAMED --add-modules=jdk.incubator.vector \
  -XX:+UseSerialGC -XX:-TieredCompilation -Xss1m -Xmx768m -XX:ErrorFile=/out/hs_err_pid%p.log -Djdoca.verbs.device="$DEV" \
  ${CONFORMANCE_JAVA_OPTS:-} -cp "$CP" io.jdoca.rdma.VerbsConformanceMain > /out/verbs-conformance.txt 2>&1
rc=$?
echo "exit $rc, guest uptime at end: $(cut -d' ' -f1 /proc/uptime) s" >> /out/verbs-conformance.txt
# A JVM crash leaves its error report in /out, which a CI run does not keep: put what locates it (signal, address,
# the crashing thread, its native and Java frames) into the output the test prints.
for f in /out/hs_err_pid*.log; do
  [ -f "$f" ] || continue
  { echo "---- $f (excerpt)"
    { sed -n '1,/^Registers:/p' "$f"; sed -n '/^Native frames/,/^$/p' "$f"; sed -n '/^Java frames/,/^$/p' "$f"
    } | grep -v '^$' | head -150
  } >> /out/verbs-conformance.txt
done
grep -E "^(PASS|FAIL|SKIP|ABORT|SUMMARY)" /out/verbs-conformance.txt > /out/verbs-conformance-summary.txt
emit_file verbs-conformance-summary /out/verbs-conformance-summary.txt
exit $rc
