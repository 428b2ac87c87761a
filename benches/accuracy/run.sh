#!/usr/bin/env bash
# Accuracy of Talos's forward dynamics against 40-digit arithmetic
# (docs/performance.md, "Accuracy of forward dynamics"). Opt-in, not part of
# CI. Needs a Python with pin==4.1.0 and mpmath (SHARNIR_ACCURACY_PYTHON,
# default python3).
#
#   bash benches/accuracy/run.sh                # prints the table
#   bash benches/accuracy/run.sh --fixture      # also rewrites tests/fixtures/talos_exact.json
#   bash benches/accuracy/run.sh --keep-angles  # Talos converted with --keep-angles
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
python=${SHARNIR_ACCURACY_PYTHON:-python3}
out="$repo/target/accuracy/talos_stages.json"

# 1. Every stage's forward dynamics at the states of tests/fixtures/talos.json,
#    and the numeric tree they are computed on (about 30 s after the build).
keep=0
if [ "${1:-}" = --keep-angles ]; then
    keep=1
fi
(cd "$repo" && SHARNIR_ACCURACY_OUT="$out" SHARNIR_ACCURACY_KEEP_ANGLES=$keep cargo test --quiet -p sharnir-tests --test accuracy \
    -- --ignored dump) >&2

# 2. The exact answers and the table.
extra=()
if [ "${1:-}" = --fixture ]; then
    extra=(--fixture "$repo/tests/fixtures/talos_exact.json")
fi
"$python" "$here/measure.py" "$out" "${extra[@]}"
