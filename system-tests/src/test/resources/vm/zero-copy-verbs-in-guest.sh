#!/bin/sh
# Guest script for nvme-vm.sh rdma-run (VmDemoVerbsSystemTest.zeroCopyDemoRelaysOverSoftRoce, profile -Pvm):
# `./jdoca demo --mode zero-copy -d rxe0 --quick`: target-rdma and the zero-copy relay open Soft-RoCE's
# rxe0 (verbs); the relay re-exports the initiator's shared memory for RDMA on rxe0 (ibv_reg_mr_iova under
# the initiator's addresses), so the target's RDMA WRITEs and READs move the data straight to and from the
# initiator's memory; Comch stays on shared memory. One data-validity run over 256 blocks (--quick: the
# throughput run would take hours under TCG). Everything else as demo-in-guest.sh, which this sources.
JDOCA_VM_DEMO_DEVICE=rxe0
JDOCA_VM_DEMO_MODE=zero-copy
JDOCA_VM_DEMO_FLAGS=--quick
JDOCA_DEMO_TIMEOUT_SCALE="${JDOCA_DEMO_TIMEOUT_SCALE:-20}"
. /work/system-tests/src/test/resources/vm/demo-in-guest.sh
