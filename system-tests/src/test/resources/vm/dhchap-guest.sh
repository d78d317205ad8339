#!/bin/sh
# Guest side of DhchapVmTest (run with `nvme-vm.sh exec`): the Linux 6.1 host's in-band
# authentication (DH-HMAC-CHAP) against sta-target over NVMe/TCP: a bidirectional connect and fio
# verify, a unidirectional connect, then a wrong secret and no secret at all, each refused with no
# controller left behind. Knobs (substituted by the test): P, NQN, H1, H2, K1, C1, K2, KW.
. /usr/lib/nvmevm/lib.sh
A=${HOST_ADDR:-10.0.2.2}
P=@P@
N=@NQN@
H1=@H1@
H2=@H2@
ID1=6a646f63-0000-4000-8000-0000000000d1
ID2=6a646f63-0000-4000-8000-0000000000d2
no_ctrl() { ! ctrl_for_nqn "$N" >/dev/null 2>&1; }
# Debian's 6.1 kernel is built without CONFIG_NVME_AUTH (the host cannot authenticate at all): say so.
modprobe nvme-auth >/dev/null 2>&1
if [ ! -d /sys/module/nvme_auth ]; then
  echo "STA-AUTH-UNSUPPORTED: this guest kernel ($(uname -r)) has no NVMe in-band authentication (CONFIG_NVME_AUTH)"
  exit 77
fi
fail() { echo "STA-AUTH-FAIL $1"; emit_dmesg dmesg; nvme disconnect -n "$N" >/dev/null 2>&1; exit "$2"; }

run_emit connect-bidirectional nvme connect -t tcp -a "$A" -s "$P" -n "$N" --hostnqn="$H1" --hostid="$ID1" \
  --dhchap-secret="@K1@" --dhchap-ctrl-secret="@C1@" -l 10 || fail "bidirectional connect" 20
wait_for 30 ns_for_nqn "$N" || fail "no namespace after the bidirectional connect" 21
NVME_DEV=$(ns_for_nqn "$N"); export NVME_DEV
C=$(ctrl_for_nqn "$N")
{ for f in dhchap_secret dhchap_ctrl_secret queue_count state; do
    [ -f /sys/class/nvme/$C/$f ] && echo "$f: $(cat /sys/class/nvme/$C/$f | cut -c1-9)"; done; } > /tmp/ctrl
emit_file ctrl /tmp/ctrl
export FIO_IOENGINE=${FIO_IOENGINE:-libaio} VERIFY_SIZE=8m VERIFY_OFFSET3=16m
run_fio verify /payload/jobs/verify.fio || fail "fio verify on the authenticated controller" 30
# Re-authentication: writing the secret to sysfs makes Linux run a new transaction on every queue.
reauthed() { dmesg | grep -q "re-authenticating controller"; }
run_emit reauth sh -c "echo '@K1@' > /sys/class/nvme/$C/dhchap_secret" || fail "writing dhchap_secret" 32
wait_for 30 reauthed || fail "the host did not re-authenticate" 33
run_emit read-after-reauth dd if="$NVME_DEV" of=/dev/null bs=4096 count=256 iflag=direct || fail "read" 34
run_emit disconnect-1 nvme disconnect -n "$N"
wait_for 15 no_ctrl || fail "disconnect" 31

run_emit connect-unidirectional nvme connect -t tcp -a "$A" -s "$P" -n "$N" --hostnqn="$H2" --hostid="$ID2" \
  --dhchap-secret="@K2@" -l 10 || fail "unidirectional connect" 22
wait_for 30 ns_for_nqn "$N" || fail "no namespace after the unidirectional connect" 23
run_emit read-2 dd if="$(ns_for_nqn "$N")" of=/dev/null bs=4096 count=256 iflag=direct || fail "read" 24
# A secret the target does not hold, re-authenticating: the target ends the controller, the host's reconnects
# fail too, and after ctrl-loss-tmo (10 s) nothing is left.
C2=$(ctrl_for_nqn "$N")
run_emit reauth-wrong sh -c "echo '@KW@' > /sys/class/nvme/$C2/dhchap_secret"
wait_for 90 no_ctrl || fail "a controller that failed re-authentication is still there" 35

run_emit connect-wrong nvme connect -t tcp -a "$A" -s "$P" -n "$N" --hostnqn="$H2" --hostid="$ID2" \
  --dhchap-secret="@KW@" -l 10 && fail "a wrong secret connected" 40
wait_for 15 no_ctrl || fail "a controller was left behind by the wrong secret" 41
run_emit connect-none nvme connect -t tcp -a "$A" -s "$P" -n "$N" --hostnqn="$H2" --hostid="$ID2" -l 10 \
  && fail "a host without a key connected" 42
wait_for 15 no_ctrl || fail "a controller was left behind by the keyless host" 43
emit_dmesg dmesg
echo "STA-AUTH-DONE"
exit 0
