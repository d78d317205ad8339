#!/bin/sh
# Guest script for BenchRdmaVmTest (-Psystem,vm): `./jdoca bench rdma -d rxe0 --quick` beside perftest, through
# bench-rdma-verbs.sh (the harness passes no environment into the guest: this wrapper sets the knob).
export BENCH_QUICK=--quick
. /work/system-tests/src/test/resources/vm/bench-rdma-verbs.sh
