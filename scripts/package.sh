#!/usr/bin/env bash
# Writes jdoca's distribution from the jars the launcher built (run it as './jdoca package', which builds
# them first and exports JAVA_HOME, a JDK 25 with jlink):
#   dist/jdoca-VERSION-linux-MACHINE.tar.gz   jdoca-VERSION/{bin/jdoca, lib/, bench-lib/, runtime/ (a jlink
#                                             image of the JDK: no JDK needed where it is unpacked), share/}
#   dist/jdoca_DEBVERSION_ARCH.deb            the same under /usr/lib/jdoca, /usr/bin/jdoca on PATH, man pages,
#                                             bash completion, jdoca-sta-target.service, /etc/jdoca/sta-target.json
# Man pages and completion are generated from the picocli commands (io.jdoca.cli.DistDocs). No network.
# Usage: scripts/package.sh [--out DIR] [--no-runtime]
#   --no-runtime: no runtime image (smaller; the launcher then needs a JDK 25 and says so when it finds none).
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
OUT="$ROOT/dist"
RUNTIME=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) OUT="$2"; shift 2 ;;
    --out=*) OUT="${1#--out=}"; shift ;;
    --no-runtime) RUNTIME=0; shift ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "package: unknown argument '$1' (--out DIR, --no-runtime)" >&2; exit 2 ;;
  esac
done
die() { echo "package: $*" >&2; exit 1; }
[[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/jlink" ]] \
  || die "JAVA_HOME must be a JDK 25 with jlink (run ./jdoca package)"
JAR="$ROOT/cli/target/jdoca.jar"
[[ -f "$JAR" ]] || die "$JAR missing (./jdoca build)"
command -v dpkg-deb >/dev/null || die "dpkg-deb not found (Debian's dpkg package)"

STAGE="$(mktemp -d "${TMPDIR:-/tmp}/jdoca-package.XXXXXX")"
trap 'rm -rf "$STAGE"' EXIT

# 1. Man pages, completion and the version, from the commands themselves (bench included: it is an app).
"$JAVA_HOME/bin/java" -cp "$JAR:$ROOT/cli/target/lib/*:$ROOT/cli/target/bench-lib/*" io.jdoca.cli.DistDocs \
  "$STAGE/docs" >/dev/null
VERSION="$(cat "$STAGE/docs/version")"
[[ "$VERSION" =~ ^[0-9A-Za-z.+~-]+$ ]] || die "odd version '$VERSION'"

# 2. The application tree: the launcher finds lib/ beside its bin/ and runtime/ there.
APP="$STAGE/jdoca-$VERSION"
mkdir -p "$APP/bin" "$APP/lib" "$APP/bench-lib" "$APP/share/man/man1" "$APP/share/bash-completion/completions" \
  "$APP/share/jdoca"
install -m 0755 "$ROOT/jdoca" "$APP/bin/jdoca"
cp "$JAR" "$ROOT"/cli/target/lib/*.jar "$APP/lib/"
cp "$ROOT"/cli/target/bench-lib/*.jar "$APP/bench-lib/"
cp "$STAGE"/docs/man1/*.1 "$APP/share/man/man1/"
cp "$STAGE/docs/bash-completion/jdoca" "$APP/share/bash-completion/completions/jdoca"
cp "$ROOT/packaging/jdoca-sta-target.service" "$ROOT/packaging/sta-target.json" "$APP/share/jdoca/"
cp "$ROOT/LICENSE" "$ROOT/README.md" "$APP/"

if [[ "$RUNTIME" == 1 ]]; then
  # The modules the jars use (jdeps), plus those loaded only by name: the Vector API (EC, --add-modules)
  # and jdk.management (the JVM metrics of /metrics).
  mods="$("$JAVA_HOME/bin/jdeps" --ignore-missing-deps --print-module-deps --multi-release 25 \
    "$APP"/lib/*.jar "$APP"/bench-lib/*.jar 2>/dev/null | tail -1)"
  [[ -n "$mods" ]] || die "jdeps found no modules"
  mods="$mods,jdk.incubator.vector,jdk.management"
  # jlink warns that it links an incubator module: known, not for the operator.
  "$JAVA_HOME/bin/jlink" --add-modules "$mods" --output "$APP/runtime" --strip-debug --no-header-files \
    --no-man-pages --compress=zip-6 --generate-cds-archive 2>&1 | grep -v "incubator modules\|CDS archive" >&2 || true
  [[ -x "$APP/runtime/bin/java" ]] || die "jlink made no runtime image"
  # The class-data archive for heaps under 32 GB is the one jdoca's JVMs use; the other is 14 MB unused.
  rm -f "$APP/runtime/lib/server/classes_nocoops.jsa"
fi

mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
MACHINE="$(uname -m)"
TARBALL="$OUT/jdoca-$VERSION-linux-$MACHINE.tar.gz"
tar -C "$STAGE" -czf "$TARBALL" "jdoca-$VERSION"

# 3. The Debian package: the same tree under /usr/lib/jdoca.
DEB="$STAGE/deb"
mkdir -p "$DEB/DEBIAN" "$DEB/usr/lib/jdoca" "$DEB/usr/bin" "$DEB/usr/share/man/man1" \
  "$DEB/usr/share/bash-completion/completions" "$DEB/usr/share/doc/jdoca" "$DEB/lib/systemd/system" "$DEB/etc/jdoca"
cp -a "$APP/bin" "$APP/lib" "$APP/bench-lib" "$DEB/usr/lib/jdoca/"
[[ -d "$APP/runtime" ]] && cp -a "$APP/runtime" "$DEB/usr/lib/jdoca/"
ln -s ../lib/jdoca/bin/jdoca "$DEB/usr/bin/jdoca"
for f in "$STAGE"/docs/man1/*.1; do gzip -9n -c "$f" >"$DEB/usr/share/man/man1/$(basename "$f").gz"; done
install -m 0644 "$STAGE/docs/bash-completion/jdoca" "$DEB/usr/share/bash-completion/completions/jdoca"
install -m 0644 "$ROOT/packaging/jdoca-sta-target.service" "$DEB/lib/systemd/system/"
install -m 0644 "$ROOT/packaging/sta-target.json" "$DEB/etc/jdoca/sta-target.json"
install -m 0644 "$ROOT/packaging/debian/copyright" "$DEB/usr/share/doc/jdoca/copyright"
gzip -9n -c "$ROOT/README.md" >"$DEB/usr/share/doc/jdoca/README.md.gz"
for s in postinst prerm postrm; do install -m 0755 "$ROOT/packaging/debian/$s" "$DEB/DEBIAN/$s"; done
echo /etc/jdoca/sta-target.json >"$DEB/DEBIAN/conffiles"

ARCH="$(dpkg --print-architecture)"
DEB_VERSION="${VERSION//-/\~}"   # 0.1.0-SNAPSHOT -> 0.1.0~SNAPSHOT (sorts before 0.1.0; no Debian revision)
SIZE_KB="$(du -sk --exclude=DEBIAN "$DEB" | cut -f1)"
# With the runtime image the package runs native code of the JDK's: the C library and zlib.
DEPENDS="libc6"
[[ -d "$APP/runtime" ]] && DEPENDS="libc6, zlib1g"
sed -e "s/@DEB_VERSION@/$DEB_VERSION/" -e "s/@ARCH@/$ARCH/" -e "s/@SIZE_KB@/$SIZE_KB/" -e "s/@DEPENDS@/$DEPENDS/" \
  "$ROOT/packaging/debian/control.in" >"$DEB/DEBIAN/control"
(cd "$DEB" && find . -path ./DEBIAN -prune -o -type f -print | sed 's|^\./||' | LC_ALL=C sort | xargs md5sum) \
  >"$DEB/DEBIAN/md5sums"
DEBFILE="$OUT/jdoca_${DEB_VERSION}_$ARCH.deb"
dpkg-deb --root-owner-group -Zgzip --build "$DEB" "$DEBFILE" >/dev/null

echo "jdoca $VERSION:"
echo "  $TARBALL ($(du -h "$TARBALL" | cut -f1))"
echo "  $DEBFILE ($(du -h "$DEBFILE" | cut -f1))"
