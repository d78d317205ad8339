#!/bin/sh
# Guest script for ../shared/nvme-vm: 'nvme-vm.sh rdma-run REPO REPO/system-tests/src/test/resources/vm/nvmf-rdma-perf.sh'
# (busybox sh in the Soft-RoCE guest; cwd /work = this checkout with its jars built on the host; rxe0 on eth0 =
# 10.0.2.15; JDK at /opt/jdk; /out = the run directory's out/). Issue 28 acceptance 1: the kernel's nvme-rdma host
# runs the same fio jobs against jdoca sta-target (memory back-end, one IO engine, port 4420) and the kernel's
# nvmet-rdma (null_blk, memory backed, port 4421), alternating A B A B; every job's JSON is /out/<target>-<job>-<n>.json
# and /out/nvmf-rdma-perf.txt has one line per run: "<job> <target> <round> <iops>". PERF_RUNTIME (s, default 15),
# PERF_ROUNDS (default 2), PERF_JOBS (default: all three), PERF_IO_THREADS (1), PERF_BACKEND (memory; null to see what the back-end's copy
# costs), PERF_JFR=1 (a flight recording of the target over the measured rounds: /out/target.jfr and its hot methods in
# /out/target-hot.txt). Emulated CPUs: only the ratio of the two targets in the same run means something.
. /usr/lib/nvmevm/lib.sh
export JDOCA_NO_BUILD=1 JAVA_HOME=/opt/jdk
ADDR=${RDMA_ADDR:-10.0.2.15}
PORT=4420
KPORT=4421
NQN=nqn.2024-01.io.jdoca:perf
KNQN=nqn.2024-01.io.nvmevm:perf
RUNTIME=${PERF_RUNTIME:-15}
ROUNDS=${PERF_ROUNDS:-2}
R=/out/nvmf-rdma-perf.txt
: > "$R"
fail() { echo "FAIL $*" | tee -a "$R"; kill "$TPID" 2>/dev/null; exit 1; }
listening() { rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -qE ":$1( |\$)"; }
J=/tmp/jdoca-direct
printf '%s\n' '#!/bin/sh' 'exec /opt/jdk/bin/java --enable-native-access=ALL-UNNAMED --add-modules=jdk.incubator.vector \' \
  '  -XX:+UseSerialGC -XX:MaxDirectMemorySize=64g -Xshare:auto $JDOCA_JAVA_OPTS -Djdoca.home=/work -cp "/work/cli/target/jdoca.jar:/work/cli/target/lib/*" io.jdoca.cli.Main "$@"' > $J
chmod +x $J
# C2 only, as the other guest JVMs (TCG crashes seen in C1 code); the target is measured warm (a warm-up round).
export JDOCA_JAVA_OPTS="${JDOCA_JAVA_OPTS:--XX:-TieredCompilation} -XX:ErrorFile=/out/hs_err_pid%p.log"

modprobe nvme-rdma || fail "modprobe nvme-rdma"
cat > /tmp/perf-target.json <<EOF
{ "io_threads": ${PERF_IO_THREADS:-1},
  "listeners": [ { "trtype": "rdma", "address": "$ADDR", "port": $PORT } ],
  "subsystems": [ { "nqn": "$NQN", "serial_number": "JDOCAPERF0001", "allow_any_host": true,
                    "namespaces": [ { "nsid": 1, "backend": "${PERF_BACKEND:-memory}", "size_mb": 512, "block_size": 4096 } ] } ] }
EOF
$J sta-target -j /tmp/perf-target.json > /out/target.log 2>&1 &
TPID=$!
wait_for 900 listening $PORT || fail "sta-target did not listen on $ADDR:$PORT"
modprobe nvmet-rdma && { [ -b /dev/nullb0 ] || modprobe null_blk nr_devices=1 gb=1 bs=4096 memory_backed=1 queue_mode=2; } \
  && wait_for 5 test -b /dev/nullb0 && nvmet_subsys "$KNQN" /dev/nullb0 1 && nvmet_port 2 "$ADDR" $KPORT "$KNQN" rdma \
  || fail "nvmet-rdma (null_blk) on $ADDR:$KPORT"
timeout 300 nvme connect -t rdma -a "$ADDR" -s $PORT -n "$NQN" > /out/connect-jdoca.txt 2>&1
wait_for 60 ns_for_nqn "$NQN" rdma || fail "nvme connect to sta-target"
timeout 120 nvme connect -t rdma -a "$ADDR" -s $KPORT -n "$KNQN" > /out/connect-kernel.txt 2>&1
wait_for 30 ns_for_nqn "$KNQN" rdma || fail "nvme connect to nvmet-rdma"
JDEV=$(ns_for_nqn "$NQN" rdma)
KDEV=$(ns_for_nqn "$KNQN" rdma)
echo "devices jdoca=$JDEV kernel=$KDEV" >> "$R"

job() {  # NAME RW BS QD
  printf '[global]\nioengine=libaio\ndirect=1\ntime_based=1\nruntime=%s\nsize=256m\ngroup_reporting=1\nnorandommap=1\n[%s]\nrw=%s\nbs=%s\niodepth=%s\n' \
    "$RUNTIME" "$1" "$2" "$3" "$4" > "/tmp/$1.fio"
}
job randread-4k-qd16 randread 4k 16
job randwrite-4k-qd16 randwrite 4k 16
job read-128k-qd8 read 128k 8
iops() { sed -n 's/.*"iops" *: *\([0-9.]*\).*/\1/p' "$1" | awk '$1 > 0 { print; exit }'; }
run() {  # TARGET DEV JOB ROUND
  # /proc/stat around each run: where the guest's two CPUs spent it (user, system, softirq, idle), per target
  cat /proc/stat > "/out/$1-$3-$4.stat0"
  fio --filename="$2" --output-format=json --output="/out/$1-$3-$4.json" "/tmp/$3.fio" > /dev/null 2>&1 \
    || { echo "FAIL fio $3 on $1 round $4" >> "$R"; return; }
  cat /proc/stat > "/out/$1-$3-$4.stat1"
  echo "$3 $1 $4 $(iops "/out/$1-$3-$4.json")" | tee -a "$R"
}
# Warm-up: the JIT compiles the data path before anything is counted (C2 only: a method runs interpreted
# for its first 10000 calls, so every job's path is warmed, not only the 4K one).
JOBS=${PERF_JOBS:-randread-4k-qd16 randwrite-4k-qd16 read-128k-qd8}
for j in $JOBS; do
  fio --filename="$JDEV" --output-format=json --output=/out/warmup-$j.json "/tmp/$j.fio" > /dev/null 2>&1
done
[ "${PERF_JFR:-0}" = 1 ] && /opt/jdk/bin/jcmd "$TPID" JFR.start name=perf settings=profile > /out/jfr-start.txt 2>&1
for j in $JOBS; do
  n=1
  while [ $n -le "$ROUNDS" ]; do
    run jdoca "$JDEV" $j $n
    run kernel "$KDEV" $j $n
    n=$((n + 1))
  done
done
if [ "${PERF_JFR:-0}" = 1 ]; then
  /opt/jdk/bin/jcmd "$TPID" JFR.stop name=perf filename=/out/target.jfr > /out/jfr-stop.txt 2>&1
  /opt/jdk/bin/jfr view --width 160 hot-methods /out/target.jfr > /out/target-hot.txt 2>&1
  /opt/jdk/bin/jfr print --events jdk.ExecutionSample --stack-depth 12 /out/target.jfr > /out/target-samples.txt 2>&1
fi
timeout 60 nvme disconnect -n "$NQN" > /dev/null 2>&1
timeout 60 nvme disconnect -n "$KNQN" > /dev/null 2>&1
kill "$TPID" 2>/dev/null
echo "done" >> "$R"
