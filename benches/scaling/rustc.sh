#!/usr/bin/env bash
# Compile time and peak memory of `cargo build --release` of one emitted
# spatial-chain module alone (libm prebuilt), for chains of n links: the
# rustc table of docs/performance.md, "Generation scaling".
#
#   bash benches/scaling/rustc.sh 10 20 40
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
cargo build --quiet --release -p xtask
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/crate/src"
libm=$(grep -A1 '^name = "libm"' Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p' | head -1)
cat > "$work/crate/Cargo.toml" <<TOML
[package]
name = "emitted"
version = "0.0.0"
edition = "2021"
[dependencies]
libm = "=$libm"
[workspace]
TOML
cp Cargo.lock "$work/crate/Cargo.lock"
printf '#![no_std]\n#[rustfmt::skip]\npub mod chain;\n' > "$work/crate/src/lib.rs"
: > "$work/crate/src/chain.rs"
(cd "$work/crate" && cargo build --quiet --release --offline)
printf '| n | lines | functions split | rustc time (s) | peak memory (MB) |\n|---|---|---|---|---|\n'
for n in "${@:-10 20 40}"; do
    python3 benches/scaling/spatial_chain.py "$n" > "$work/chain$n.spec"
    "$root/target/release/xtask" gen "$work/chain$n.spec" --out "$work/out" > /dev/null
    cp "$work/out/spatial_chain$n.rs" "$work/crate/src/chain.rs"
    lines=$(wc -l < "$work/crate/src/chain.rs")
    split=$(grep -c '_part0(' "$work/crate/src/chain.rs" || true)
    /usr/bin/time -f "%e %M" -o "$work/time" \
        sh -c "cd '$work/crate' && cargo build --quiet --release --offline"
    read -r seconds kilobytes < "$work/time"
    printf '| %s | %s | %s | %s | %s |\n' "$n" "$lines" "$((split / 2))" "$seconds" "$((kilobytes / 1024))"
done
