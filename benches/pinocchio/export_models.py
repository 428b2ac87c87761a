"""Pinocchio's models of the five robots, as Pinocchio's own URDF parser
builds them, written as plain text for harness.cpp.

The harness builds the same `pinocchio::Model` from this text with
Pinocchio's headers only (addJoint, appendBodyToJoint), so that no Model
crosses from the wheel's shared libraries into code compiled with other
flags (-march=native changes Eigen's alignment, hence Model's layout).

Usage: python export_models.py <repo>/tests/fixtures <out dir>
"""
import sys

import pinocchio as pin

ROBOTS = [
    ("ur5", "ur5_robot.urdf", False),
    ("panda", "panda_arm_fixed_fingers.urdf", False),
    ("iiwa", "kuka_iiwa.urdf", False),
    ("solo12", "solo12.urdf", True),
    ("talos", "talos_reduced.urdf", True),
]
KNOWN = {"JointModelRX", "JointModelRY", "JointModelRZ", "JointModelPX", "JointModelPY",
         "JointModelPZ", "JointModelFreeFlyer"}


def numbers(xs):
    return " ".join(repr(float(x)) for x in xs)


def main():
    fixtures, out = sys.argv[1], sys.argv[2]
    for name, urdf, floating in ROBOTS:
        path = f"{fixtures}/{urdf}"
        model = (pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if floating
                 else pin.buildModelFromUrdf(path))
        lines = [f"{model.njoints - 1} {model.nq} {model.nv}", numbers(model.gravity.linear)]
        for j in range(1, model.njoints):
            kind = model.joints[j].shortname()
            if kind not in KNOWN:
                sys.exit(f"{name}: joint `{model.names[j]}` is a {kind}, which harness.cpp "
                         "does not build")
            placement = model.jointPlacements[j]
            inertia = model.inertias[j]
            lines.append(f"{model.names[j]} {kind} {model.parents[j]} "
                         f"{numbers(placement.rotation.flatten())} {numbers(placement.translation)} "
                         f"{inertia.mass!r} {numbers(inertia.lever)} {numbers(inertia.inertia.flatten())}")
        with open(f"{out}/{name}.txt", "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
