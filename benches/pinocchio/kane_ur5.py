"""UR5's equations of motion by Kane's method in SymPy, timed.

The same numbers as specs/ur5.spec (converted from
tests/fixtures/ur5_robot.urdf: joint origins, axes, lumped masses, centres
of mass and inertias in the link frames, gravity (0, 0, -9.81)). Prints the
seconds `KanesMethod.kanes_equations` takes, for comparison with
`cargo xtask gen specs/ur5.spec` (run.sh times both).

Usage: python3 kane_ur5.py   (needs sympy; run.sh installs it in its venv)
"""
import time

import sympy as sp
from sympy.physics.mechanics import (KanesMethod, Point, ReferenceFrame, RigidBody,
                                     dynamicsymbols, inertia)

# (name, joint origin xyz in the parent link, rpy pitch, axis, mass, com z, Ixx = Iyy, Izz)
LINKS = [
    ("shoulder", (0, 0, 0.089159), 0, "z", 3.7, 0, 0.010267495893, 0.00666),
    ("upper_arm", (0, 0.13585, 0), sp.pi / 2, "y", 8.393, 0.28, 0.22689067591, 0.0151074),
    ("forearm", (0, -0.1197, 0.425), 0, "y", 2.275, 0.25, 0.049443313556, 0.004095),
    ("wrist_1", (0, 0, 0.39225), sp.pi / 2, "y", 1.219, 0, 0.111172755531, 0.21942),
    ("wrist_2", (0, 0.093, 0), 0, "z", 1.219, 0, 0.111172755531, 0.21942),
    ("wrist_3", (0, 0, 0.09465), 0, "y", 0.1879, 0, 0.0171364731454, 0.033822),
]


def main():
    start = time.perf_counter()
    n = len(LINKS)
    q = dynamicsymbols(f"q1:{n + 1}")
    u = dynamicsymbols(f"u1:{n + 1}")
    g = sp.Symbol("g")
    N = ReferenceFrame("N")
    O = Point("O")
    O.set_vel(N, 0)
    parent, origin = N, O
    bodies, loads = [], []
    for i, (name, xyz, pitch, axis, m, cz, ixx, izz) in enumerate(LINKS):
        joint = Point(f"O_{name}")
        joint.set_pos(origin, xyz[0] * parent.x + xyz[1] * parent.y + xyz[2] * parent.z)
        joint.v2pt_theory(origin, N, parent)
        A = parent.orientnew(f"A_{name}", "Axis", (pitch, parent.y)) if pitch else parent
        B = ReferenceFrame(f"B_{name}")
        B.orient_axis(A, getattr(A, axis), q[i])
        B.set_ang_vel(N, A.ang_vel_in(N) + u[i] * getattr(A, axis))
        com = joint.locatenew(f"C_{name}", cz * B.z)
        com.v2pt_theory(joint, N, B)
        body = RigidBody(name, com, B, m, (inertia(B, ixx, ixx, izz), com))
        bodies.append(body)
        loads.append((com, -m * g * N.z))
        parent, origin = B, joint
    kde = [qi.diff() - ui for qi, ui in zip(q, u)]
    km = KanesMethod(N, q_ind=q, u_ind=u, kd_eqs=kde)
    built = time.perf_counter()
    fr, frstar = km.kanes_equations(bodies, loads)
    done = time.perf_counter()
    ops = sp.count_ops(km.mass_matrix) + sp.count_ops(km.forcing)
    print(f"sympy {sp.__version__}: model built in {built - start:.2f} s, "
          f"KanesMethod.kanes_equations in {done - built:.2f} s "
          f"(mass matrix and forcing: {ops} operations, unsimplified)")


if __name__ == "__main__":
    main()
