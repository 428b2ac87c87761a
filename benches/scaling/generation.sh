#!/usr/bin/env bash
# Generation time and peak memory of `xtask gen` (release build) for spatial
# chains of n links (spatial_chain.py), every output of the module: the
# table of docs/performance.md, "Generation scaling".
#
#   bash benches/scaling/generation.sh 10 20 40 80
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --quiet --release -p xtask
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '| n | time (s) | peak memory (MB) | lines |\n|---|---|---|---|\n'
for n in "${@:-10 20 40}"; do
    python3 benches/scaling/spatial_chain.py "$n" > "$work/chain$n.spec"
    /usr/bin/time -f "%e %M" -o "$work/time" \
        target/release/xtask gen "$work/chain$n.spec" --out "$work/out" > /dev/null
    read -r seconds kilobytes < "$work/time"
    lines=$(wc -l < "$work/out/spatial_chain$n.rs")
    printf '| %s | %s | %s | %s |\n' "$n" "$seconds" "$((kilobytes / 1024))" "$lines"
done
