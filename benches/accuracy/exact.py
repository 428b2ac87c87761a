"""Forward dynamics of a kinematic tree in extended precision (mpmath).

The tree is the one `sharnir-numeric` reads (crates/sharnir-numeric/src/tree.rs)
and Pinocchio's model both describe: per body its parent, its joint (free,
revolute or prismatic), the joint frame's rotation and origin in the parent
frame, the mass, the centre of mass and the rotational inertia about it. The
algorithm is plain: recursive Newton-Euler in body coordinates for the bias
forces and for every column of the mass matrix, then an LU solve of
M qdd = tau - bias, all at `mp.dps` digits. The numbers of the tree and of
the state are taken as the exact binary values of their doubles.

Conventions are Pinocchio's: motion = [v; w], force = [f; n]; a free joint's
q = [x y z qx qy qz qw] and its velocity the body's own [v; w] in body axes.
"""

from mpmath import mp, mpf, matrix, lu_solve


def vec(x):
    return [mpf(float(c)) for c in x]


def mat(x):
    return [[mpf(float(c)) for c in row] for row in x]


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def mv(m, x):
    return [m[0][0] * x[0] + m[0][1] * x[1] + m[0][2] * x[2],
            m[1][0] * x[0] + m[1][1] * x[1] + m[1][2] * x[2],
            m[2][0] * x[0] + m[2][1] * x[1] + m[2][2] * x[2]]


def mtv(m, x):
    return [m[0][0] * x[0] + m[1][0] * x[1] + m[2][0] * x[2],
            m[0][1] * x[0] + m[1][1] * x[1] + m[2][1] * x[2],
            m[0][2] * x[0] + m[1][2] * x[1] + m[2][2] * x[2]]


def mm(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def add(a, b):
    return [x + y for x, y in zip(a, b)]


def scale(s, a):
    return [s * x for x in a]


def rodrigues(u, angle):
    c, s = mp.cos(angle), mp.sin(angle)
    t = 1 - c
    x, y, z = u
    return [[c + x * x * t, x * y * t - z * s, x * z * t + y * s],
            [y * x * t + z * s, c + y * y * t, y * z * t - x * s],
            [z * x * t - y * s, z * y * t + x * s, c + z * z * t]]


def quaternion(qx, qy, qz, qw):
    # normalised in extended precision: the exact rotation the double
    # quaternion stands for
    n = mp.sqrt(qx * qx + qy * qy + qz * qz + qw * qw)
    x, y, z, w = qx / n, qy / n, qz / n, qw / n
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]


class Tree:
    """bodies: dicts with parent (index or None), kind ('free', 'revolute',
    'prismatic'), axis, rotation, translation, mass, com, inertia (doubles)."""

    def __init__(self, bodies, gravity):
        self.bodies = []
        for b in bodies:
            self.bodies.append(dict(
                parent=b["parent"], kind=b["kind"], axis=vec(b["axis"]),
                rotation=mat(b["rotation"]), translation=vec(b["translation"]),
                mass=mpf(float(b["mass"])), com=vec(b["com"]), inertia=mat(b["inertia"])))
        self.gravity = vec(gravity)
        self.nv = sum(6 if b["kind"] == "free" else 1 for b in self.bodies)

    def placements(self, q):
        """Each body's rotation (body -> parent) and origin in the parent."""
        out, k = [], 0
        for b in self.bodies:
            if b["kind"] == "free":
                x = [mpf(float(c)) for c in q[k:k + 7]]
                r = mm(b["rotation"], quaternion(*x[3:]))
                t = add(b["translation"], mv(b["rotation"], x[:3]))
                k += 7
            elif b["kind"] == "revolute":
                r = mm(b["rotation"], rodrigues(b["axis"], mpf(float(q[k]))))
                t = b["translation"]
                k += 1
            else:
                r = b["rotation"]
                t = add(b["translation"], mv(b["rotation"], scale(mpf(float(q[k])), b["axis"])))
                k += 1
            out.append((r, t))
        return out

    def rnea(self, placements, v, a, gravity):
        """Joint forces for velocities v and accelerations a (lists of mpf)."""
        n = len(self.bodies)
        vel, acc, force = [None] * n, [None] * n, [None] * n
        k = 0
        offsets = []
        for i, b in enumerate(self.bodies):
            r, t = placements[i]
            if b["parent"] is None:
                vp, wp = [mpf(0)] * 3, [mpf(0)] * 3
                ap, alp = scale(-1, gravity), [mpf(0)] * 3
            else:
                vp, wp = vel[b["parent"]]
                ap, alp = acc[b["parent"]]
            # parent motion in body coordinates
            w = mtv(r, wp)
            vv = mtv(r, add(vp, cross(wp, t)))
            al = mtv(r, alp)
            aa = mtv(r, add(ap, cross(alp, t)))
            offsets.append(k)
            if b["kind"] == "free":
                jv, jw = v[k:k + 3], v[k + 3:k + 6]
                ja, jal = a[k:k + 3], a[k + 3:k + 6]
                k += 6
            elif b["kind"] == "revolute":
                jv, jw = [mpf(0)] * 3, scale(v[k], b["axis"])
                ja, jal = [mpf(0)] * 3, scale(a[k], b["axis"])
                k += 1
            else:
                jv, jw = scale(v[k], b["axis"]), [mpf(0)] * 3
                ja, jal = scale(a[k], b["axis"]), [mpf(0)] * 3
                k += 1
            # a = X a_p + S qdd + v x (S qd), v the body's velocity
            vb, wb = add(vv, jv), add(w, jw)
            ab = add(add(aa, ja), add(cross(wb, jv), cross(vb, jw)))
            alb = add(add(al, jal), cross(wb, jw))
            vel[i], acc[i] = (vb, wb), (ab, alb)
            m, c, ic = b["mass"], b["com"], b["inertia"]

            def inertia(lin, ang):
                p = scale(m, add(lin, cross(ang, c)))
                return p, add(mv(ic, ang), cross(c, p))

            h, l = inertia(vb, wb)
            fa, na = inertia(ab, alb)
            f = add(fa, cross(wb, h))
            nn = add(na, add(cross(wb, l), cross(vb, h)))
            force[i] = [f, nn]
        tau = [mpf(0)] * self.nv
        for i in reversed(range(n)):
            b = self.bodies[i]
            f, nn = force[i]
            k = offsets[i]
            if b["kind"] == "free":
                tau[k:k + 6] = f + nn
            elif b["kind"] == "revolute":
                tau[k] = sum(x * y for x, y in zip(b["axis"], nn))
            else:
                tau[k] = sum(x * y for x, y in zip(b["axis"], f))
            if b["parent"] is not None:
                r, t = placements[i]
                fp = mv(r, f)
                np_ = add(mv(r, nn), cross(t, fp))
                pf, pn = force[b["parent"]]
                force[b["parent"]] = [add(pf, fp), add(pn, np_)]
        return tau

    def forward_dynamics(self, q, v, tau):
        placements = self.placements(q)
        v = [mpf(float(x)) for x in v]
        tau = [mpf(float(x)) for x in tau]
        zero = [mpf(0)] * self.nv
        bias = self.rnea(placements, v, zero, self.gravity)
        m = matrix(self.nv, self.nv)
        for j in range(self.nv):
            e = list(zero)
            e[j] = mpf(1)
            col = self.rnea(placements, zero, e, [mpf(0)] * 3)
            for i in range(self.nv):
                m[i, j] = col[i]
        rhs = matrix([t - b for t, b in zip(tau, bias)])
        x = lu_solve(m, rhs)
        return [x[i] for i in range(self.nv)]
