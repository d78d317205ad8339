#!/usr/bin/env bash
# Assembles docs/FEATURES.md and docs/PERFORMANCE.md from the per-area files in docs/features/ and
# docs/performance/ (one per library or app, written by whoever changes that area).
# Usage: scripts/build-docs.sh [--check]
#   --check: write nothing; exit 1 naming the generated file that is out of date (an edit made to the
#            generated file itself is lost at the next assembly, so `./jdoca test` runs this check first).
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
[ "${1:-}" = "--check" ] && check=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
order=(core dma rdma comch ec compress storage gga sta)
assemble() { # dir title intro
  local dir=$1 out=$2 title=$3 intro=$4
  {
    echo "# $title"
    echo
    echo "$intro"
    echo
    echo "_Assembled by \`scripts/build-docs.sh\` from \`$dir/*.md\`; edit those files._"
    for a in "${order[@]}"; do
      [ -f "$dir/$a.md" ] && { echo; cat "$dir/$a.md"; }
    done
    for f in "$dir"/*.md; do
      a=$(basename "$f" .md)
      [[ " ${order[*]} " == *" $a "* ]] || { echo; cat "$f"; }
    done
  } > "$tmp/$(basename "$out")"
  if [ $check -eq 1 ]; then
    cmp -s "$tmp/$(basename "$out")" "$out" || {
      echo "docs: $out is out of date with $dir/*.md: edit $dir/*.md (not $out), then run scripts/build-docs.sh" >&2
      stale=1
    }
  else
    cp "$tmp/$(basename "$out")" "$out"
  fi
}
stale=0
assemble docs/features docs/FEATURES.md "Features" \
"One row per feature of the DOCA documents in \`../shared/seeds/\` (and of each issue), with its state in jdoca: **done** (works and is tested), **partial** (what is missing is named), **missing**."
assemble docs/performance docs/PERFORMANCE.md "Performance" \
"Figures from \`./jdoca bench <suite>\`, each next to the baseline measured in the same run and the command that produced it. The machine is a 2-vCPU, 24 GiB VM (see \`../shared/anchors/README.md\`); absolute figures drift ±10–25 % between runs on such shared machines, so compare ratios."
if [ $check -eq 1 ]; then exit $stale; fi
echo "wrote docs/FEATURES.md and docs/PERFORMANCE.md"
