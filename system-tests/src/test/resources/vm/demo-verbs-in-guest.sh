#!/bin/sh
# Guest script for nvme-vm.sh rdma-run (VmDemoVerbsSystemTest, profile -Pvm): `./jdoca demo -d rxe0`,
# the GGA pipeline with the RDMA of its three targets and gga-offload on Soft-RoCE (verbs; Comch and
# DMA stay on shared memory), with the demo's default settings (issue 29 item 7: before it, this needed
# JDOCA_DEMO_TIMEOUT_SCALE=20). Everything else as demo-in-guest.sh, which this sources.
JDOCA_VM_DEMO_DEVICE=rxe0
. /work/system-tests/src/test/resources/vm/demo-in-guest.sh
