"""Relative errors of Talos's forward dynamics against mpmath.

Reads the stages `tests/accuracy.rs` (`dump`) wrote, computes the exact
forward dynamics (exact.py, 40 digits) on two trees -- sharnir's numeric tree
(the converted spec's numbers) and Pinocchio's model of the same URDF -- and
prints, per implementation, the normwise relative error
max_i |x_i - x*_i| / max_i |x*_i| and the largest entrywise one
|x_i - x*_i| / |x*_i|, the worst and the median over the states.

    python benches/accuracy/measure.py target/accuracy/talos_stages.json [--fixture OUT]

(run.sh does both steps.) With --fixture, also writes both exact answers,
rounded to the nearest double, in Pinocchio's velocity order, to OUT (the
test fixture tests/fixtures/talos_exact.json).
"""

import json
import os
import sys

import numpy as np
import pinocchio as pin
from mpmath import mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exact  # noqa: E402
import pinmodel  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def errors(got, want):
    got, want = np.asarray(got), np.asarray(want)
    d = np.abs(got - want)
    return d.max() / np.abs(want).max(), (d / np.abs(want)).max()


def row(name, pairs):
    norm = [n for n, _ in pairs]
    entry = [e for _, e in pairs]
    return f"| {name} | {max(norm):.1e} | {np.median(norm):.1e} | {max(entry):.1e} | {np.median(entry):.1e} |"


def main():
    args = sys.argv[1:]
    fixture_out = None
    if "--fixture" in args:
        k = args.index("--fixture")
        fixture_out = args[k + 1]
        del args[k:k + 2]
    path = args[0] if args else os.path.join(REPO, "target/accuracy/talos_stages.json")
    dump = json.load(open(path))
    fixture = json.load(open(os.path.join(REPO, "tests/fixtures/talos.json")))
    samples = fixture["samples"]
    mp.dps = 40
    # sharnir's tree, states in the tree's order, results to Pinocchio's
    tree = dump["tree"]
    ours = exact.Tree(tree["bodies"], tree["gravity"])
    order = [int(k) for k in tree["pinocchio_index"]]
    ref_ours = []
    for state in tree["states"]:
        x = ours.forward_dynamics(state["q"], state["v"], state["tau"])
        y = [None] * len(x)
        for k, p in enumerate(order):
            y[p] = x[k]
        ref_ours.append(y)
    # Pinocchio's model
    model = pinmodel.load(os.path.join(REPO, "tests/fixtures/talos_reduced.urdf"))
    bodies, gravity = pinmodel.tree(model)
    theirs = exact.Tree(bodies, gravity)
    data = model.createData()
    ref_pin, aba = [], []
    for s in samples:
        q, v, tau = (np.array(s[k]) for k in ("q_minimal", "v", "tau"))
        ref_pin.append(theirs.forward_dynamics(q, v, tau))
        aba.append(pin.aba(model, data, q, v, tau))
    f = lambda r: [float(c) for c in r]  # noqa: E731
    print("Against the exact answer on sharnir's numeric tree (the converted spec):")
    print()
    print("| implementation | normwise, worst | normwise, median | entrywise, worst | entrywise, median |")
    print("|---|---:|---:|---:|---:|")
    print(row("Pinocchio 4.1.0 `aba` (against its own model)", [errors(a, f(r)) for a, r in zip(aba, ref_pin)]))
    for stage in dump["stages"]:
        print(row(stage["name"], [errors(x, f(r)) for x, r in zip(stage["results"], ref_ours)]))
    print()
    print("Against the exact answer on Pinocchio's model (the URDF as written):")
    print()
    print("| implementation | normwise, worst | normwise, median | entrywise, worst | entrywise, median |")
    print("|---|---:|---:|---:|---:|")
    print(row("exact on sharnir's tree", [errors(f(a), f(b)) for a, b in zip(ref_ours, ref_pin)]))
    for stage in dump["stages"]:
        if "generated" in stage["name"] or "numeric" in stage["name"]:
            print(row(stage["name"], [errors(x, f(r)) for x, r in zip(stage["results"], ref_pin)]))
    if fixture_out:
        out = {
            "about": "Talos (tests/fixtures/talos_reduced.urdf, floating) forward dynamics at the "
                     "states of tests/fixtures/talos.json, computed in 40-digit arithmetic by "
                     "benches/accuracy/exact.py and rounded to the nearest double, in Pinocchio's "
                     "velocity order. `converted`: on the numeric tree of the spec sharnir converts "
                     "the URDF to (right angles exact); `urdf`: on Pinocchio 4.1.0's model of the URDF "
                     "as written. Made by benches/accuracy/run.sh.",
            "samples": [{"converted": f(a), "urdf": f(b)} for a, b in zip(ref_ours, ref_pin)],
        }
        with open(fixture_out, "w") as fh:
            json.dump(out, fh, indent=1)
            fh.write("\n")
        print(f"wrote {fixture_out}", file=sys.stderr)


if __name__ == "__main__":
    main()
