#!/bin/sh
# Guest script for ../shared/nvme-vm rdma-run (busybox sh in the Soft-RoCE guest; cwd /work = this checkout
# with its jars built on the host; rxe0 on eth0 = 10.0.2.15; JDK at /opt/jdk; /out = the run's out/).
# Run by NvmfRdmaMultipathVmTest (-Psystem,vm). Issue 32 over NVMe/RDMA: sta-target with one subsystem
# reporting ANA on two NVMe/RDMA listeners (4420 optimized, 4421 non-optimized); the Linux nvme-rdma host
# connects to both (native multipath: one namespace, two paths) and runs fio write+verify on the multipath
# device while sta-rpc sets 4420 inaccessible (I/O moves to 4421) and optimized again (I/O comes back).
# Every check is a line of /out/multipath-summary.txt ("ok ..." / "FAIL ..."); exit 0 only when all passed.
. /usr/lib/nvmevm/lib.sh
export JDOCA_NO_BUILD=1 JAVA_HOME=/opt/jdk
ADDR=${RDMA_ADDR:-10.0.2.15}
P1=4420
P2=4421
NQN=nqn.2024-01.io.jdoca:rdma-multipath
SOCK=/tmp/sta-mp.sock
S=/out/multipath-summary.txt
: > "$S"
rc=0
check() {  # CODE DESCRIPTION COMMAND...: record ok/FAIL; the first failure's CODE becomes the exit status
  _c=$1; _d=$2; shift 2
  if "$@"; then echo "ok   $_d" | tee -a "$S"; else echo "FAIL $_d" | tee -a "$S"; [ $rc -ne 0 ] || rc=$_c; fi
}
give_up() { echo "FAIL $1 (later steps skipped)" | tee -a "$S"; dmesg > /out/dmesg.txt 2>&1; kill "$TPID" 2>/dev/null; exit "$2"; }
listening() { rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -qE ":$1( |\$)"; }
J=/tmp/jdoca-direct
printf '%s\n' '#!/bin/sh' 'exec /opt/jdk/bin/java --enable-native-access=ALL-UNNAMED --add-modules=jdk.incubator.vector \' \
  '  -XX:+UseSerialGC -XX:MaxDirectMemorySize=64g -Xshare:auto $JDOCA_JAVA_OPTS -Djdoca.home=/work -cp "/work/cli/target/jdoca.jar:/work/cli/target/lib/*" io.jdoca.cli.Main "$@"' > $J
chmod +x $J
export JDOCA_JAVA_OPTS="${JDOCA_JAVA_OPTS:--XX:TieredStopAtLevel=1} -XX:ErrorFile=/out/hs_err_pid%p.log"
modprobe nvme-rdma || give_up "modprobe nvme-rdma" 10
cat > /tmp/mp-target.json <<EOF2
{ "io_threads": 1, "rpc_socket": "$SOCK",
  "subsystems": [ { "nqn": "$NQN", "allow_any_host": true, "ana_reporting": true,
    "listeners": [ { "trtype": "rdma", "address": "$ADDR", "port": $P1 },
                   { "trtype": "rdma", "address": "$ADDR", "port": $P2, "ana_state": "non_optimized" } ],
    "namespaces": [ { "nsid": 1, "backend": "file", "path": "/tmp/mp-ns1.img", "size_mb": 64, "block_size": 4096 } ] } ] }
EOF2
cd /tmp
$J sta-target -j /tmp/mp-target.json > /out/target.log 2>&1 &
TPID=$!
wait_for 600 listening $P2 || give_up "sta-target did not listen on $ADDR:$P2" 11
check 11 "sta-target listens for NVMe/RDMA on $P1 and $P2" listening $P1

OPTS="-l 120 -c 1"
timeout 120 nvme connect -t rdma -a "$ADDR" -s $P1 -n "$NQN" $OPTS > /out/connect-a.txt 2>&1
timeout 120 nvme connect -t rdma -a "$ADDR" -s $P2 -n "$NQN" $OPTS > /out/connect-b.txt 2>&1
wait_for 30 ns_for_nqn "$NQN" rdma || give_up "no namespace after connecting both paths" 20
D=$(ns_for_nqn "$NQN" rdma)
path_of() {
  for c in /sys/class/nvme/nvme*; do
    grep -q "trsvcid=$1" "$c/address" 2>/dev/null || continue
    i=$(basename "$c" | sed 's/^nvme//')
    for p in /sys/block/nvme*c"$i"n1; do [ -e "$p" ] && { basename "$p"; return 0; }; done
  done
  return 1
}
wait_for 30 path_of $P2 || give_up "no second path" 21
PA=$(path_of $P1); PB=$(path_of $P2)
ana_is() { [ "$(cat /sys/block/"$1"/ana_state 2>/dev/null)" = "$2" ]; }
ios() { set -- $(cat /sys/block/"$1"/stat); echo $(( $1 + $5 )); }
grew() { [ "$(ios "$1")" -ge $(( $2 + 20 )) ]; }
both_states() { ana_is "$PA" optimized && ana_is "$PB" non-optimized; }
check 22 "two paths: $PA optimized, $PB non-optimized" wait_for 30 both_states
nvme list-subsys "$D" > /out/list-subsys.txt 2>&1
check 22 "nvme list-subsys: two live rdma paths with their ANA states" sh -c \
  "grep -q 'rdma.*live optimized' /out/list-subsys.txt && grep -q 'rdma.*live non-optimized' /out/list-subsys.txt"

fio --name=mp --filename="$D" --rw=randwrite --bs=4k --iodepth=8 --ioengine=libaio --direct=1 --size=64m \
    --rate_iops=100 --verify=crc32c --verify_backlog=256 --verify_fatal=1 --output-format=json \
    --output=/out/fio-multipath.json > /out/fio.txt 2>&1 &
F=$!
check 30 "fio writes on the optimized path" wait_for 120 grew "$PA" "$(ios "$PA")"
rpc() { timeout 600 $J sta-rpc -s "$SOCK" nvmf_subsystem_listener_set_ana_state \
  "{\"nqn\":\"$NQN\",\"ana_state\":\"$1\",\"listen_address\":{\"trtype\":\"rdma\",\"adrfam\":\"ipv4\",\"traddr\":\"$ADDR\",\"trsvcid\":\"$P1\"}}"; }
rpc inaccessible > /out/rpc-inaccessible.txt 2>&1
check 31 "sta-rpc nvmf_subsystem_listener_set_ana_state $P1 inaccessible" [ $? -eq 0 ]
check 31 "the host sees $PA inaccessible" wait_for 120 ana_is "$PA" inaccessible
check 32 "I/O moved to $PB" wait_for 120 grew "$PB" "$(ios "$PB")"
nvme list-subsys "$D" > /out/list-subsys-failover.txt 2>&1
rpc optimized > /out/rpc-optimized.txt 2>&1
check 33 "sta-rpc nvmf_subsystem_listener_set_ana_state $P1 optimized" [ $? -eq 0 ]
check 33 "the host sees $PA optimized again" wait_for 120 ana_is "$PA" optimized
check 33 "I/O came back to $PA" wait_for 120 grew "$PA" "$(ios "$PA")"
wait $F
frc=$?
check 34 "fio write+verify on the multipath device ended without error (exit $frc)" [ $frc -eq 0 ]
echo "path-a $(ios "$PA") path-b $(ios "$PB")" > /out/path-ios.txt
dmesg > /out/dmesg.txt 2>&1
timeout 60 nvme disconnect -n "$NQN" > /out/disconnect.txt 2>&1
kill "$TPID" 2>/dev/null
exit $rc
