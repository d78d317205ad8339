#!/usr/bin/env bash
# Prepares a newer Debian kernel for the ../shared/nvme-vm test bed and prints its package name, to be passed
# as NVME_VM_KPKG. Why: the test bed boots bookworm's Linux 6.1, which Debian builds without CONFIG_NVME_AUTH, so
# its NVMe host cannot authenticate (DH-HMAC-CHAP). Debian 13 (trixie) builds 6.12 with it (nvme-auth,
# nvme-keyring modules). The kernel package is downloaded with a private apt configuration (trixie's index only,
# under $NVME_VM_CACHE/apt-trixie: the machine's own sources and installed packages are not touched), unpacked
# with dpkg -x (never installed) where the harness looks for it, and its modules made visible at lib/modules
# (trixie's packages put them under usr/lib/modules, the merged /usr).
# Usage: scripts/vm-kernel.sh [auth]   prints e.g. linux-image-6.12.117+deb13-amd64; exit 0
#        On failure: one line on stderr saying why, exit 1 (tests then skip with that line).
set -euo pipefail
cache=${NVME_VM_CACHE:-/tmp/nvme-vm-cache}
apt_dir=$cache/apt-trixie
say() { echo "vm-kernel: $*" >&2; }
command -v apt-get >/dev/null 2>&1 || { say "no apt-get on this machine"; exit 1; }
command -v dpkg >/dev/null 2>&1 || { say "no dpkg on this machine"; exit 1; }
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || { say "no $keyring (package debian-archive-keyring)"; exit 1; }
mkdir -p "$apt_dir/etc/apt.conf.d" "$apt_dir/etc/preferences.d" "$apt_dir/etc/sources.list.d" \
  "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial" "$cache/debs" "$cache/kernel"
# The mirror the machine's own apt uses, so nothing new is reached.
mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 ~ /debian\/?$/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
[ -n "$mirror" ] || { say "cannot find the machine's Debian mirror in /etc/apt"; exit 1; }
echo "deb [signed-by=$keyring] $mirror trixie main" > "$apt_dir/etc/sources.list"
cat > "$apt_dir/apt.conf" <<EOF
Dir::Etc "$apt_dir/etc";
Dir::State "$apt_dir/state";
Dir::Cache "$apt_dir/cache";
Dir::State::status "/var/lib/dpkg/status";
APT::Sandbox::User "root";
EOF
export APT_CONFIG=$apt_dir/apt.conf
resolve() { apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/ {print $2; exit}'; }
pkg=$(resolve || true)
if [ -z "$pkg" ]; then
  apt-get update -q >/dev/null 2>&1 || { say "apt-get update of trixie's index failed"; exit 1; }
  pkg=$(resolve || true)
fi
[ -n "$pkg" ] || { say "trixie's linux-image-amd64 names no kernel package"; exit 1; }
root=$cache/kernel/$pkg
if [ ! -f "$root/.done" ]; then
  deb=$(ls "$cache/debs/${pkg}_"*.deb 2>/dev/null | head -1 || true)
  if [ -z "$deb" ]; then
    say "downloading $pkg (about 110 MB, once)"
    (cd "$cache/debs" && apt-get download -q "$pkg" >/dev/null 2>&1) || {
      apt-get update -q >/dev/null 2>&1 || true
      (cd "$cache/debs" && apt-get download -q "$pkg" >/dev/null 2>&1) \
        || { say "apt-get download $pkg failed"; exit 1; }
    }
    deb=$(ls "$cache/debs/${pkg}_"*.deb | head -1)
  fi
  rm -rf "$root"
  mkdir -p "$root"
  dpkg -x "$deb" "$root"
  [ -e "$root/lib" ] || ln -s usr/lib "$root/lib"
  kv=$(ls "$root/lib/modules" | head -1)
  [ -n "$kv" ] || { say "$pkg has no modules"; exit 1; }
  ls "$root/lib/modules/$kv/kernel/drivers/nvme/common/" 2>/dev/null | grep -q '^nvme-auth' \
    || { say "$pkg has no nvme-auth module"; exit 1; }
  depmod -b "$root" "$kv"
  touch "$root/.done"
fi
echo "$pkg"
