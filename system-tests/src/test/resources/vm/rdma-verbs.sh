#!/bin/sh
# Guest script for ../shared/nvme-vm: 'nvme-vm.sh rdma-run REPO REPO/system-tests/src/test/resources/vm/rdma-verbs.sh'
# (busybox sh in the Soft-RoCE guest; cwd /work = this checkout with its jars already built on the host;
# rxe0 on eth0 = 10.0.2.15; JDK at /opt/jdk; /out = the run directory's out/). Run by VerbsRpingVmTest (-Pvm).
#   1. ./jdoca devices lists rxe0 with its capabilities
#   2. rdma-core's rping server  <- ./jdoca rdma-rping client (-C 10 -V), at -S 23, 64, 4096 and 65535
#   3. ./jdoca rdma-rping server <- rdma-core's rping client (-C 10 -V), at the same sizes
#   4. ./jdoca rdma-rping server <- ./jdoca rdma-rping client, -C $ALLOC_PINGS -V --alloc-report: the ping loops
#      of both allocate 0 bytes in each of the last 4 blocks of 50 pings (skip with ALLOC_PINGS=0)
# Every step writes /out/<step>.txt; /out/verbs-summary.txt has one line per check ("ok ..." / "FAIL ...").
# Exit 0 only when every check passed. Each step is bounded (busybox timeout).
# Knobs (environment of a wrapper script that sources this one): STEPS ("devices rping alloc"), ALLOC_PINGS
# (4000: under TCG the loops reach C2, and 0 bytes, after 1500-2600 pings), RPING_SIZES ("23 65535": rping's
# minimum and maximum; 64 and 4096 ran in CI until 2026-12-02 and were dropped to save four guest JVM starts),
# JDOCA_JAVA_OPTS (extra JVM flags for every jdoca process, e.g. a flight recording).
. /usr/lib/nvmevm/lib.sh
export JDOCA_NO_BUILD=1 JAVA_HOME=/opt/jdk
ADDR=${RDMA_ADDR:-10.0.2.15}
DEV=${RDMA_DEV:-rxe0}
S=/out/verbs-summary.txt
: > "$S"
rc=0
check() {  # CODE DESCRIPTION COMMAND...: record ok/FAIL; the first failure's CODE becomes the exit status
  _c=$1; _d=$2; shift 2
  if "$@"; then echo "ok   $_d" | tee -a "$S"; else echo "FAIL $_d" | tee -a "$S"; [ $rc -ne 0 ] || rc=$_c; fi
}
# until rdma_cm has a listener on port $1 (at most $2 s); polls the condition, no fixed sleep
wait_listen() {
  _i=0
  while [ $_i -lt "$2" ]; do
    rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -q ":$1 " && return 0
    rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -q ":$1\$" && return 0
    sleep 1; _i=$((_i + 1))
  done
  rdma resource show cm_id > "/out/cm_id-$1.txt" 2>&1
  return 1
}
# ./jdoca itself (bash + flock are in the RDMA layer); if it cannot run here, the same java command line it execs
J=./jdoca
if ! timeout 300 ./jdoca --version > /out/jdoca-version.txt 2>&1; then
  echo "note: ./jdoca failed in the guest (see jdoca-version.txt); running its java command line directly" >> "$S"
  J=/tmp/jdoca-direct
  printf '%s\n' '#!/bin/sh' \
    'exec /opt/jdk/bin/java --enable-native-access=ALL-UNNAMED --add-modules=jdk.incubator.vector \' \
    '  -XX:+UseSerialGC $JDOCA_JAVA_OPTS -cp "/work/cli/target/jdoca.jar:/work/cli/target/lib/*" \' \
    '  io.jdoca.cli.Main "$@"' > $J
  chmod +x $J
fi
t0=$(uptime_s)
stamp() { echo "$1: guest uptime $(uptime_s) s (start $t0)" >> /out/verbs-timings.txt; }

STEPS=${STEPS:-devices rping alloc}
# JVM crash reports go to /out, not into the checkout
export JDOCA_JAVA_OPTS="${JDOCA_JAVA_OPTS:-} -XX:ErrorFile=/out/hs_err_pid%p.log"
# HotSpot patches compiled methods while other threads run them (x86 cross-modifying code). Under QEMU's
# multi-threaded TCG a JVM was once seen executing a half-patched method entry (SIGSEGV at the patched jmp's
# third byte, hs_err in /out): such a crash, and only that, is retried (at most twice) and reported in the summary.
# One CI run on a loaded host saw five such crashes, two in a row on one step.
crashed() { grep -q "A fatal error has been detected by the Java Runtime Environment" "$@" 2>/dev/null; }
attempt() {  # NAME FUNCTION OUTPUT-FILES...
  _n=$1; _fn=$2; shift 2
  $_fn
  _try=1
  while [ $_try -le 2 ] && crashed "$@"; do
    echo "note: a JVM crashed during '$_n' (see /out/hs_err_pid*.log); retry $_try of 2" | tee -a "$S"
    for _x in "$@"; do mv "$_x" "$_x.crashed$_try" 2>/dev/null; done
    $_fn
    _try=$((_try + 1))
  done
}
step() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# 1. devices
if step devices; then
timeout 300 $J devices > /out/devices.txt 2>&1; drc=$?
stamp devices
check 10 "./jdoca devices exit 0" [ $drc -eq 0 ]
check 10 "./jdoca devices lists $DEV port 1 ACTIVE" grep -q "^  $DEV .* ACTIVE" /out/devices.txt
check 10 "./jdoca devices lists $DEV capabilities (queue size, SGEs, message size, atomics, MTU, GID)" \
  sh -c "grep -q 'rdma.max_send_queue_size' /out/devices.txt && grep -q 'rdma.max_send_buf_list_len' /out/devices.txt \
    && grep -q 'rdma.max_message_size' /out/devices.txt && grep -q 'rdma.atomics' /out/devices.txt \
    && grep -q 'port 1 mtu' /out/devices.txt && grep -q 'gid\[1\] *::ffff:$ADDR' /out/devices.txt"
timeout 120 ibv_devinfo -v -d "$DEV" > /out/ibv_devinfo.txt 2>&1
check 10 "max_qp_wr agrees with ibv_devinfo" sh -c \
  "w=\$(awk '/max_qp_wr:/ {print \$2; exit}' /out/ibv_devinfo.txt);
   grep -q \"rdma.max_send_queue_size (max_qp_wr) *\$w\$\" /out/devices.txt"

fi

if step rping; then
# 2. C rping server, jdoca client; 3. jdoca server, C rping client: at each of $RPING_SIZES (rping's -S range is
# 23..65535: at 23-25 the "rdma-ping-%d: " prefix is cut short by snprintf, on both sides alike)
RPING_SIZES=${RPING_SIZES:-23 65535}
P=17174
for SZ in $RPING_SIZES; do
P=$((P + 2)); P1=$P; P2=$((P + 1))
step2() {
  timeout 300 rping -s -a "$ADDR" -p $P1 -S $SZ -v > /out/rping-server-$SZ.txt 2>&1 &
  SPID=$!
  wait_listen $P1 60 || echo "rping server listener not seen on :$P1" >> "$S"
  timeout 300 $J rdma-rping -c -a "$ADDR" -p $P1 -C 10 -S $SZ -V -v --timeout 120 > /out/jdoca-client-$SZ.txt 2>&1
  crc=$?
  # A jdoca client that crashed (above) never came: end the rping server now, not after its 300 s.
  crashed /out/jdoca-client-$SZ.txt && kill $SPID 2>/dev/null
  wait $SPID; src=$?
}
attempt "rping server / jdoca client -S $SZ" step2 /out/jdoca-client-$SZ.txt
stamp "rping server / jdoca client -S $SZ"
check 20 "jdoca rdma-rping -c -C 10 -S $SZ -V against rping -s: exit 0" [ $crc -eq 0 ]
check 20 "rping -s -S $SZ served the jdoca client: exit 0" [ $src -eq 0 ]
check 20 "jdoca client: 10 pings of $SZ bytes verified" grep -q "10 ping(s) of $SZ bytes, data verified" \
  /out/jdoca-client-$SZ.txt
check 20 "rping server read 10 pings of $SZ bytes" sh -c \
  "[ \$(grep -c 'server ping data: rdma-ping-' /out/rping-server-$SZ.txt) -eq 10 ]"

step3() {
  timeout 300 $J rdma-rping -s -a "$ADDR" -p $P2 -S $SZ -v --timeout 120 > /out/jdoca-server-$SZ.txt 2>&1 &
  SPID=$!
  wait_listen $P2 120 || echo "jdoca server listener not seen on :$P2" >> "$S"
  timeout 300 rping -c -a "$ADDR" -p $P2 -C 10 -S $SZ -V -v > /out/rping-client-$SZ.txt 2>&1; crc=$?
  wait $SPID; src=$?
}
attempt "jdoca server / rping client -S $SZ" step3 /out/jdoca-server-$SZ.txt
stamp "jdoca server / rping client -S $SZ"
check 30 "rping -c -C 10 -S $SZ -V against jdoca rdma-rping -s: exit 0" [ $crc -eq 0 ]
check 30 "jdoca rdma-rping -s -S $SZ served the rping client: exit 0" [ $src -eq 0 ]
check 30 "rping client: 10 pings of $SZ bytes, no data mismatch" sh -c \
  "[ \$(grep -c '^ping data: rdma-ping-' /out/rping-client-$SZ.txt) -eq 10 ] &&
   ! grep -q 'data mismatch' /out/rping-client-$SZ.txt"
check 30 "jdoca server read 10 pings of $SZ bytes" sh -c \
  "[ \$(grep -c 'server ping data: rdma-ping-' /out/jdoca-server-$SZ.txt) -eq 10 ]"
done

fi

# 4. zero allocation in the ping loop, both sides (jdoca server and client, rping's wire)
ALLOC_PINGS=${ALLOC_PINGS:-4000}
if step alloc && [ "$ALLOC_PINGS" -gt 0 ]; then
  P3=17176
  step4() {
    timeout 600 $J rdma-rping -s -a "$ADDR" -p $P3 --timeout 120 --alloc-report > /out/jdoca-server-alloc.txt 2>&1 &
    SPID=$!
    wait_listen $P3 120 || echo "jdoca server listener not seen on :$P3" >> "$S"
    timeout 600 $J rdma-rping -c -a "$ADDR" -p $P3 -C "$ALLOC_PINGS" -V --timeout 120 --alloc-report \
      > /out/jdoca-client-alloc.txt 2>&1; crc=$?
    wait $SPID; src=$?
  }
  attempt "jdoca server / jdoca client" step4 /out/jdoca-server-alloc.txt /out/jdoca-client-alloc.txt
  stamp "jdoca server / jdoca client, $ALLOC_PINGS pings"
  check 40 "jdoca client -C $ALLOC_PINGS -V against jdoca server: both exit 0" [ $crc -eq 0 -a $src -eq 0 ]
  check 40 "jdoca client ping loop: 0 bytes in each of the last 4 blocks of 50 pings (steady state)" \
    grep -q "client: allocation: .*last 4 blocks: 0 0 0 0;" /out/jdoca-client-alloc.txt
  check 40 "jdoca server ping loop: 0 bytes in each of the last 4 blocks of 50 pings (steady state)" \
    grep -q "server: allocation: .*last 4 blocks: 0 0 0 0;" /out/jdoca-server-alloc.txt
  grep -h "allocation:" /out/jdoca-client-alloc.txt /out/jdoca-server-alloc.txt >> "$S"
fi

for f in verbs-summary devices jdoca-client-64 rping-server-64 jdoca-server-64 rping-client-64 jdoca-client-alloc \
    jdoca-server-alloc verbs-timings; do
  [ -f "/out/$f.txt" ] && emit_file "$f" "/out/$f.txt"
done
exit $rc
