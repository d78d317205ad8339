#!/usr/bin/env bash
# Installs the Debian packages jdoca features use at run time, when they are missing:
#   libisal2      native erasure coding (EC engine "native"; the Java engine works without it)
#   lz4           the lz4 CLI, baseline of the compress benchmark and interop tests
#   libibverbs-dev, librdmacm-dev   rdma-core headers (and libibverbs1/librdmacm1 with them): the verbs
#                 bindings' layout test (verbs/VerbsLayoutTest) compiles a C program against them
#   libssl-dev    OpenSSL's headers: the TLS record layer's binding test (sta/LibcryptoHeaderTest) compiles its
#                 EVP constants and signatures against them (the run-time library, libcrypto.so.3 of libssl3, is
#                 on practically every Debian system: systemd, openssh-client and libcurl4 depend on it)
#   gcc           the C compiler those tests use (skipped when one is already on PATH)
#   fio           baseline of the file back-end figures of ./jdoca bench nvmf (io_uring, O_DIRECT)
# Not in the default list (large; `./jdoca test` asks for them, `--quick` does not): the Ceph daemons and CLI
# for the RBD back-end's tests
# (RbdBackendTest, RbdIoPathTest start a one-node cluster with scripts/ceph-cluster.sh; librbd1 and
# librados2 come with ceph-common, librbd-dev adds the headers LibrbdLayoutTest compiles against):
#   scripts/ensure-packages.sh ceph-mon ceph-osd ceph-common librbd-dev
# Tests ask for their own tools by name when they run: prometheus (promtool and the server:
# PrometheusSystemTest), systemd and man-db (systemd-analyze, man: PackageSystemTest).
# Usage: scripts/ensure-packages.sh [PKG ...]   (default: the list above)
# Never fails the caller: prints what it could not install and why; tests then skip with a message.
set -u
pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
  pkgs=(libisal2 lz4 fio libibverbs-dev librdmacm-dev libssl-dev)
  command -v cc >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1 || pkgs+=(gcc)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "jdoca: cannot install ${missing[*]}: no apt-get on this machine; features needing them are skipped" >&2; exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; else
    echo "jdoca: cannot install ${missing[*]}: not root and no password-less sudo; features needing them are skipped" >&2; exit 0
  fi
fi
echo "jdoca: installing ${missing[*]} ..." >&2
if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
  $sudo apt-get update -q >/dev/null 2>&1
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
    || echo "jdoca: could not install ${missing[*]} (apt-get failed); features needing them are skipped" >&2
fi
exit 0
