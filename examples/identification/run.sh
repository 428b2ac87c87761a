#!/usr/bin/env bash
# An identification run on a simulated robot (docs/identification.md, "An
# excitation example"): the arm of excitation.spec, whose masses and inertias
# are the known truth, is moved along its Fourier-series trajectory by
# `sharnir sim`, which writes the force each drive supplies; Gaussian noise is
# added to those forces; `sharnir identify` estimates the base parameters back
# and prints them beside the spec's own values.
#
#   bash examples/identification/run.sh
#   SHARNIR=sharnir bash examples/identification/run.sh   # the installed command
#
# Positions, velocities and accelerations stay exact (the laws' values, as sim
# writes them in q.*, v.* and a.*); identify reads all three.
#
# Environment:
#   SHARNIR        the command to run (default: `cargo xtask`, this checkout's)
#   EXCITATION_NOISE  standard deviation of the noise on every drive force, N·m
#                     (default 0.1)
#   EXCITATION_SEED   the noise's seed (default 1)
#   EXCITATION_OUT    where the CSV files go, relative to the checkout
#                     (default target/excitation)
set -euo pipefail

# Everything runs in the checkout, where `sharnir sim` finds the crates it
# compiles the simulation against.
cd "$(dirname "$0")/../.."
read -r -a sharnir <<< "${SHARNIR:-cargo xtask}"
noise=${EXCITATION_NOISE:-0.1}
seed=${EXCITATION_SEED:-1}
out=${EXCITATION_OUT:-target/excitation}
spec=examples/identification/excitation.spec
mkdir -p "$out"

# 1. One period (10 s) of the trajectory, sampled at 1 kHz. Every joint is
#    prescribed, so sim writes q.*, v.*, a.* and drive.* (no tau.*).
"${sharnir[@]}" sim "$spec" --t-end 10 --output-dt 0.001 --csv "$out/excitation.csv"

# 2. Gaussian noise of standard deviation $noise on every drive.* column,
#    seeded; every other column as it was.
python3 - "$out/excitation.csv" "$out/noisy.csv" "$noise" "$seed" <<'PYTHON'
import csv, random, sys

source, target, noise, seed = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
draw = random.Random(seed)
with open(source, newline="") as f, open(target, "w", newline="") as g:
    rows = csv.reader(f)
    header = next(rows)
    drives = [i for i, name in enumerate(header) if name.startswith("drive.")]
    out = csv.writer(g, lineterminator="\n")
    out.writerow(header)
    for row in rows:
        for i in drives:
            row[i] = repr(float(row[i]) + draw.gauss(0.0, noise))
        out.writerow(row)
PYTHON
echo "noise: Gaussian, standard deviation $noise N·m on every drive force (seed $seed)"

# 3. The base parameters from the noisy forces: the estimate, its standard
#    deviation and the spec's own value (the truth) side by side.
"${sharnir[@]}" identify "$spec" "$out/noisy.csv"

# 4. How far each estimate is from the truth, in its standard deviations.
"${sharnir[@]}" identify "$spec" "$out/noisy.csv" --json | python3 -c '
import json, sys
report = json.load(sys.stdin)
errors = [((p["estimate"] - p["spec"]) / p["deviation"], p["name"]) for p in report["base_parameters"]]
worst = max(errors, key=lambda e: abs(e[0]))
within = sum(abs(e) <= 2.0 for e, _ in errors)
print(f"|estimate − spec| / σ: at most {abs(worst[0]):.2f} ({worst[1]}); "
      f"{within} of {len(errors)} within 2σ")
'
