#!/bin/sh
# Guest script for nvme-vm.sh rdma-run (VmDemoVerbsSystemTest, profile -Pvm): `./jdoca demo -d rxe0`,
# the GGA pipeline with the RDMA of its three targets and gga-offload on Soft-RoCE (verbs; Comch and
# DMA stay on shared memory). Everything else as demo-in-guest.sh, which this sources.
# Deadlines x20, not x6: run 1 (host load 11-15) passed at x6 but the initiator used 540 s of its 600 s
# run deadline (the data path on rxe0 moved ~5-10 messages/s per QP under TCG).
JDOCA_VM_DEMO_DEVICE=rxe0
JDOCA_DEMO_TIMEOUT_SCALE="${JDOCA_DEMO_TIMEOUT_SCALE:-20}"
. /work/system-tests/src/test/resources/vm/demo-in-guest.sh
