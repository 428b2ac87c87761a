"""Pinocchio's model of a URDF as the tree of exact.py."""

import numpy as np
import pinocchio as pin

AXES = {"X": [1.0, 0.0, 0.0], "Y": [0.0, 1.0, 0.0], "Z": [0.0, 0.0, 1.0]}


def load(urdf, floating=True):
    if floating:
        return pin.buildModelFromUrdf(urdf, pin.JointModelFreeFlyer())
    return pin.buildModelFromUrdf(urdf)


def tree(model):
    bodies = []
    for i in range(1, model.njoints):
        joint = model.joints[i]
        name = joint.shortname()
        if name == "JointModelFreeFlyer":
            kind, axis = "free", [0.0, 0.0, 0.0]
        elif name.startswith("JointModelR") and name[-1] in AXES and len(name) == len("JointModelRX"):
            kind, axis = "revolute", AXES[name[-1]]
        elif name == "JointModelRevoluteUnaligned":
            kind, axis = "revolute", list(joint.extract().axis)
        elif name.startswith("JointModelP") and name[-1] in AXES and len(name) == len("JointModelPX"):
            kind, axis = "prismatic", AXES[name[-1]]
        else:
            raise ValueError(f"joint type {name} not supported")
        placement = model.jointPlacements[i]
        inertia = model.inertias[i]
        parent = model.parents[i]
        bodies.append(dict(
            parent=None if parent == 0 else parent - 1, kind=kind, axis=axis,
            rotation=np.array(placement.rotation).tolist(),
            translation=np.array(placement.translation).tolist(),
            mass=float(inertia.mass), com=np.array(inertia.lever).tolist(),
            inertia=np.array(inertia.inertia).tolist()))
    return bodies, np.array(model.gravity.linear).tolist()
