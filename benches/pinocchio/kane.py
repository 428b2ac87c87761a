"""A serial arm's equations of motion by Kane's method in SymPy, timed.

Two arms, their numbers written out below:
- `ur5`: those of specs/ur5.spec (converted from
  tests/fixtures/ur5_robot.urdf, fixed links lumped in);
- `iiwa`: those of tests/fixtures/kuka_iiwa.urdf (no fixed links), its
  joint angles 1.57079632679 and 3.14159265359 written as pi/2 and pi,
  as sharnir's converter writes them.
Each row: the joint's origin in the parent link (xyz, rpy), its axis in
that frame, the child link's mass, centre of mass and principal moments
(Ixx, Iyy, Izz) in the link frame; gravity (0, 0, -g). Prints the seconds
`KanesMethod.kanes_equations` takes, for comparison with sharnir's `xtask
gen` on the same model (run.sh times both).

Usage: python3 kane.py ur5|iiwa   (needs sympy; run.sh installs it in its venv)
"""
import sys
import time

import sympy as sp
from sympy.physics.mechanics import (KanesMethod, Point, ReferenceFrame, RigidBody,
                                     dynamicsymbols, inertia)

PI_2 = sp.pi / 2
ROBOTS = {
    # (name, joint xyz, joint rpy, axis, mass, com, (Ixx, Iyy, Izz))
    "ur5": [
        ("shoulder", (0, 0, 0.089159), (0, 0, 0), "z", 3.7, (0, 0, 0),
         (0.010267495893, 0.010267495893, 0.00666)),
        ("upper_arm", (0, 0.13585, 0), (0, PI_2, 0), "y", 8.393, (0, 0, 0.28),
         (0.22689067591, 0.22689067591, 0.0151074)),
        ("forearm", (0, -0.1197, 0.425), (0, 0, 0), "y", 2.275, (0, 0, 0.25),
         (0.049443313556, 0.049443313556, 0.004095)),
        ("wrist_1", (0, 0, 0.39225), (0, PI_2, 0), "y", 1.219, (0, 0, 0),
         (0.111172755531, 0.111172755531, 0.21942)),
        ("wrist_2", (0, 0.093, 0), (0, 0, 0), "z", 1.219, (0, 0, 0),
         (0.111172755531, 0.111172755531, 0.21942)),
        ("wrist_3", (0, 0, 0.09465), (0, 0, 0), "y", 0.1879, (0, 0, 0),
         (0.0171364731454, 0.0171364731454, 0.033822)),
    ],
    "iiwa": [
        ("link_1", (0, 0, 0.1575), (0, 0, 0), "z", 4, (0, -0.03, 0.12), (0.1, 0.09, 0.02)),
        ("link_2", (0, 0, 0.2025), (PI_2, 0, sp.pi), "z", 4, (0.0003, 0.059, 0.042),
         (0.05, 0.018, 0.044)),
        ("link_3", (0, 0.2045, 0), (PI_2, 0, sp.pi), "z", 3, (0, 0.03, 0.13),
         (0.08, 0.075, 0.01)),
        ("link_4", (0, 0, 0.2155), (PI_2, 0, 0), "z", 2.7, (0, 0.067, 0.034),
         (0.03, 0.01, 0.029)),
        ("link_5", (0, 0.1845, 0), (-PI_2, sp.pi, 0), "z", 1.7, (0.0001, 0.021, 0.076),
         (0.02, 0.018, 0.005)),
        ("link_6", (0, 0, 0.2155), (PI_2, 0, 0), "z", 1.8, (0, 0.0006, 0.0004),
         (0.005, 0.0036, 0.0047)),
        ("link_7", (0, 0.081, 0), (-PI_2, sp.pi, 0), "z", 0.3, (0, 0, 0.02),
         (0.001, 0.001, 0.001)),
    ],
}


def equations(links):
    """The KanesMethod of the arm `links` after kanes_equations, the
    seconds spent building the model and in kanes_equations."""
    start = time.perf_counter()
    n = len(links)
    q = dynamicsymbols(f"q1:{n + 1}")
    u = dynamicsymbols(f"u1:{n + 1}")
    g = sp.Symbol("g")
    N = ReferenceFrame("N")
    O = Point("O")
    O.set_vel(N, 0)
    parent, origin = N, O
    bodies, loads = [], []
    for i, (name, xyz, rpy, axis, m, com, moments) in enumerate(links):
        joint = Point(f"O_{name}")
        joint.set_pos(origin, xyz[0] * parent.x + xyz[1] * parent.y + xyz[2] * parent.z)
        joint.v2pt_theory(origin, N, parent)
        # URDF's rpy: R = Rz(yaw) Ry(pitch) Rx(roll), body-fixed Z, Y, X.
        if any(rpy):
            A = parent.orientnew(f"A_{name}", "Body", rpy[::-1], "ZYX")
        else:
            A = parent
        B = ReferenceFrame(f"B_{name}")
        B.orient_axis(A, getattr(A, axis), q[i])
        B.set_ang_vel(N, A.ang_vel_in(N) + u[i] * getattr(A, axis))
        centre = joint.locatenew(f"C_{name}", com[0] * B.x + com[1] * B.y + com[2] * B.z)
        centre.v2pt_theory(joint, N, B)
        body = RigidBody(name, centre, B, m, (inertia(B, *moments), centre))
        bodies.append(body)
        loads.append((centre, -m * g * N.z))
        parent, origin = B, joint
    kde = [qi.diff() - ui for qi, ui in zip(q, u)]
    km = KanesMethod(N, q_ind=q, u_ind=u, kd_eqs=kde)
    built = time.perf_counter()
    km.kanes_equations(bodies, loads)
    done = time.perf_counter()
    return km, built - start, done - built


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ROBOTS:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(ROBOTS)}")
    robot = sys.argv[1]
    km, built, kane = equations(ROBOTS[robot])
    ops = sp.count_ops(km.mass_matrix) + sp.count_ops(km.forcing)
    print(f"{robot}: sympy {sp.__version__}: model built in {built:.2f} s, "
          f"KanesMethod.kanes_equations in {kane:.2f} s "
          f"(mass matrix and forcing: {ops} operations, unsimplified)")


if __name__ == "__main__":
    main()
