#!/usr/bin/env bash
# Generation time and peak memory of `xtask gen` (release build) for spatial
# chains of n links (spatial_chain.py): the tables of docs/performance.md,
# "Generation scaling".
#
#   bash benches/scaling/generation.sh 10 20 40 80               # every output
#   bash benches/scaling/generation.sh --linear 10 20 40 80 160 1000
#   bash benches/scaling/generation.sh --outputs inverse_dynamics,forward_dynamics 1000
#
# Every output is asked for explicitly (`--outputs all`), since above 48
# links the automatic rule would skip the superlinear ones; `--linear`
# generates only the linear outputs (`--outputs linear`), `--outputs LIST`
# the functions named. The CPU column is the user + system time of all the
# process's threads (a lowering runs two at once): an idle 2-core machine
# takes between half of it and all of it, a loaded one the time column.
set -euo pipefail
cd "$(dirname "$0")/../.."
outputs=all
case "${1:-}" in
    --linear) outputs=linear; shift ;;
    --outputs) outputs=$2; shift 2 ;;
esac
cargo build --quiet --release -p xtask
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "outputs: $outputs"
printf '| n | time (s) | CPU (s) | peak memory (MB) | lines |\n|---|---|---|---|---|\n'
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10 20 40)
for n in "${sizes[@]}"; do
    python3 benches/scaling/spatial_chain.py "$n" > "$work/chain$n.spec"
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" \
        target/release/xtask gen "$work/chain$n.spec" --outputs "$outputs" \
        --out "$work/out" > /dev/null
    read -r seconds user system kilobytes < "$work/time"
    cpu=$(python3 -c "print(f'{$user + $system:.2f}')")
    lines=$(wc -l < "$work/out/spatial_chain$n.rs")
    printf '| %s | %s | %s | %s | %s |\n' "$n" "$seconds" "$cpu" "$((kilobytes / 1024))" "$lines"
done
