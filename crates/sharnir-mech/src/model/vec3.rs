//! Symbolic 3-vectors and 3×3 matrices over the expression pool.
//!
//! The Newton–Euler recursions are written with these helpers so they read
//! like the textbook formulas; every zero and one in a vector or matrix
//! disappears as the pool canonicalises each product and sum.

use sharnir_cas::{Coeff, Id, Pool};

/// A column vector of three expressions.
pub type Vec3 = [Id; 3];
/// A 3×3 matrix of expressions, row-major.
pub type Mat3 = [[Id; 3]; 3];

/// Vector and matrix arithmetic on a [`Pool`].
pub trait Vec3Ops {
    /// The zero vector.
    fn zero3(&mut self) -> Vec3;
    /// The identity matrix.
    fn identity3(&mut self) -> Mat3;
    /// `a + b`.
    fn add3(&mut self, a: Vec3, b: Vec3) -> Vec3;
    /// `s · a` for a scalar expression `s`.
    fn scale3(&mut self, s: Id, a: Vec3) -> Vec3;
    /// `c · a` for a numeric coefficient `c`.
    fn scale3c(&mut self, c: Coeff, a: Vec3) -> Vec3;
    /// `a · b`.
    fn dot3(&mut self, a: Vec3, b: Vec3) -> Id;
    /// `a × b`.
    fn cross3(&mut self, a: Vec3, b: Vec3) -> Vec3;
    /// `M a`.
    fn mat_vec(&mut self, m: &Mat3, a: Vec3) -> Vec3;
    /// `Mᵀ a`.
    fn mat_t_vec(&mut self, m: &Mat3, a: Vec3) -> Vec3;
    /// `A B`.
    fn mat_mul(&mut self, a: &Mat3, b: &Mat3) -> Mat3;
    /// `Aᵀ B`: `B`'s axes seen from `A`'s (a relative orientation).
    fn mat_t_mat(&mut self, a: &Mat3, b: &Mat3) -> Mat3;
    /// `E A Eᵀ` for a symmetric `A` (an inertia seen in rotated axes), each
    /// off-diagonal entry computed once so the result is symmetric entry for
    /// entry.
    fn rotate_symmetric(&mut self, e: &Mat3, a: &Mat3) -> Mat3;
    /// `U = ω̇̃ + ω̃ω̃`, the matrix with `U r = ω̇ × r + ω × (ω × r)`: the
    /// acceleration, relative to a body's origin, of the body point at `r`
    /// (Khalil's customised Newton–Euler). Its entries are products
    /// `ωᵢωⱼ` that every point of the body shares, where the two cross
    /// products would multiply again for each point.
    fn acceleration_field(&mut self, omega: Vec3, omega_dot: Vec3) -> Mat3;
}

impl Vec3Ops for Pool {
    fn zero3(&mut self) -> Vec3 {
        let z = self.zero();
        [z; 3]
    }

    fn identity3(&mut self) -> Mat3 {
        let (z, o) = (self.zero(), self.one());
        [[o, z, z], [z, o, z], [z, z, o]]
    }

    fn add3(&mut self, a: Vec3, b: Vec3) -> Vec3 {
        [
            self.add(a[0], b[0]),
            self.add(a[1], b[1]),
            self.add(a[2], b[2]),
        ]
    }

    fn scale3(&mut self, s: Id, a: Vec3) -> Vec3 {
        [self.mul(s, a[0]), self.mul(s, a[1]), self.mul(s, a[2])]
    }

    fn scale3c(&mut self, c: Coeff, a: Vec3) -> Vec3 {
        [
            self.scale(c, a[0]),
            self.scale(c, a[1]),
            self.scale(c, a[2]),
        ]
    }

    fn dot3(&mut self, a: Vec3, b: Vec3) -> Id {
        let terms = [
            self.mul(a[0], b[0]),
            self.mul(a[1], b[1]),
            self.mul(a[2], b[2]),
        ];
        self.sum(&terms)
    }

    fn cross3(&mut self, a: Vec3, b: Vec3) -> Vec3 {
        let mut component = |i: usize, j: usize| {
            let p = self.mul(a[i], b[j]);
            let q = self.mul(a[j], b[i]);
            self.sub(p, q)
        };
        [component(1, 2), component(2, 0), component(0, 1)]
    }

    fn mat_vec(&mut self, m: &Mat3, a: Vec3) -> Vec3 {
        [self.dot3(m[0], a), self.dot3(m[1], a), self.dot3(m[2], a)]
    }

    fn mat_t_vec(&mut self, m: &Mat3, a: Vec3) -> Vec3 {
        let column = |j: usize| [m[0][j], m[1][j], m[2][j]];
        [
            self.dot3(column(0), a),
            self.dot3(column(1), a),
            self.dot3(column(2), a),
        ]
    }

    fn mat_mul(&mut self, a: &Mat3, b: &Mat3) -> Mat3 {
        let column = |j: usize| [b[0][j], b[1][j], b[2][j]];
        let mut out = [[a[0][0]; 3]; 3];
        for (i, row) in out.iter_mut().enumerate() {
            for (j, entry) in row.iter_mut().enumerate() {
                *entry = self.dot3(a[i], column(j));
            }
        }
        out
    }

    fn mat_t_mat(&mut self, a: &Mat3, b: &Mat3) -> Mat3 {
        let columns = [0, 1, 2].map(|j| [b[0][j], b[1][j], b[2][j]]);
        let rows = [0, 1, 2].map(|i| [a[0][i], a[1][i], a[2][i]]);
        rows.map(|row| columns.map(|column| self.dot3(row, column)))
    }

    fn acceleration_field(&mut self, omega: Vec3, omega_dot: Vec3) -> Mat3 {
        let [x, y, z] = omega;
        let [dx, dy, dz] = omega_dot;
        let (xx, yy, zz) = (self.mul(x, x), self.mul(y, y), self.mul(z, z));
        let (xy, xz, yz) = (self.mul(x, y), self.mul(x, z), self.mul(y, z));
        let minus = |pool: &mut Pool, a: Id, b: Id| {
            let s = pool.add(a, b);
            pool.neg(s)
        };
        [
            [minus(self, yy, zz), self.sub(xy, dz), self.add(xz, dy)],
            [self.add(xy, dz), minus(self, xx, zz), self.sub(yz, dx)],
            [self.sub(xz, dy), self.add(yz, dx), minus(self, xx, yy)],
        ]
    }

    fn rotate_symmetric(&mut self, e: &Mat3, a: &Mat3) -> Mat3 {
        let a_et = a.map(|row| e.map(|e_row| self.dot3(row, e_row)));
        let mut out = *a;
        for i in 0..3 {
            for k in i..3 {
                let column = [a_et[0][k], a_et[1][k], a_et[2][k]];
                out[i][k] = self.dot3(e[i], column);
                out[k][i] = out[i][k];
            }
        }
        out
    }
}
