"""Pinocchio's models of the six robots, as Pinocchio's own URDF parser
builds them, written as plain text for harness.cpp.

The harness builds the same `pinocchio::Model` from this text with
Pinocchio's headers only (addJoint, appendBodyToJoint), so that no Model
crosses from the wheel's shared libraries into code compiled with other
flags (-march=native changes Eigen's alignment, hence Model's layout).

Beside each <robot>.txt, <robot>_bodies.txt names the body of every joint
(the URDF link the joint moves, Pinocchio's BODY frame right after the
joint), one "<joint> <body>" line per joint in Pinocchio's order: what
regressor.hpp maps the regressors' columns by.

Usage: python export_models.py <repo>/tests/fixtures <out dir>
"""
import sys

import pinocchio as pin

ROBOTS = [
    ("ur5", "ur5_robot.urdf", False),
    ("panda", "panda_arm_fixed_fingers.urdf", False),
    ("iiwa", "kuka_iiwa.urdf", False),
    ("solo12", "solo12.urdf", True),
    ("anymal", "anymal.urdf", True),
    ("talos", "talos_reduced.urdf", True),
]
KNOWN = {"JointModelRX", "JointModelRY", "JointModelRZ", "JointModelPX", "JointModelPY",
         "JointModelPZ", "JointModelFreeFlyer"}


def numbers(xs):
    return " ".join(repr(float(x)) for x in xs)


def body_name(model, joint):
    """The link joint `joint` moves: the BODY frame whose parent frame is the
    joint's own (the links merged into it by fixed joints hang from FIXED_JOINT
    frames)."""
    names = [f.name for f in model.frames
             if f.type == pin.FrameType.BODY and f.parentJoint == joint
             and model.frames[f.parentFrame].type == pin.FrameType.JOINT]
    if len(names) != 1:
        sys.exit(f"joint `{model.names[joint]}` has bodies {names}, not one")
    return names[0]


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
        with open(f"{out}/{name}_bodies.txt", "w") as f:
            f.write("".join(f"{model.names[j]} {body_name(model, j)}\n"
                            for j in range(1, model.njoints)))


if __name__ == "__main__":
    main()
