//! Rotation matrices built from expressions: about an axis by an angle
//! (placements and revolute joints) and from a unit quaternion (spherical
//! and free joints).

use crate::model::vec3::{Mat3, Vec3, Vec3Ops};
use sharnir_cas::{Coeff, Id, Pool};

/// Rotation by `angle` about the unit vector `axis`:
/// `R = I + sin θ [a]× + (1 − cos θ) [a]×²`.
pub(crate) fn rodrigues(pool: &mut Pool, axis: Vec3, angle: Id) -> Mat3 {
    let (s, c) = (pool.sin(angle), pool.cos(angle));
    let one = pool.one();
    let versine = pool.sub(one, c);
    let mut r = pool.identity3();
    for (i, row) in r.iter_mut().enumerate() {
        for (j, entry) in row.iter_mut().enumerate() {
            // [a]×² = a aᵀ − I
            let aa = pool.mul(axis[i], axis[j]);
            let delta = if i == j { pool.one() } else { pool.zero() };
            let square = pool.sub(aa, delta);
            let cross = match (i, j) {
                (0, 1) => pool.neg(axis[2]),
                (0, 2) => axis[1],
                (1, 0) => axis[2],
                (1, 2) => pool.neg(axis[0]),
                (2, 0) => pool.neg(axis[1]),
                (2, 1) => axis[0],
                _ => pool.zero(),
            };
            let a = pool.mul(s, cross);
            let b = pool.mul(versine, square);
            let with_identity = pool.add(*entry, a);
            *entry = pool.add(with_identity, b);
        }
    }
    r
}

/// The rotation of the unit quaternion `[x, y, z, w]` (scalar last, as
/// Pinocchio stores it): `R = I + 2w[v]× + 2[v]×²` with `v = (x, y, z)`,
/// written out entrywise. Polynomial, so a spherical joint costs no sine or
/// cosine; the quaternion is assumed to have unit norm.
pub(crate) fn quaternion_rotation(pool: &mut Pool, quaternion: [Id; 4]) -> Mat3 {
    let [x, y, z, w] = quaternion;
    let mut product = |a: Id, b: Id| pool.mul(a, b);
    let (xx, yy, zz) = (product(x, x), product(y, y), product(z, z));
    let (xy, xz, yz) = (product(x, y), product(x, z), product(y, z));
    let (wx, wy, wz) = (product(w, x), product(w, y), product(w, z));
    let two = Coeff::int(2);
    let mut entry = |terms: &[(Id, Coeff)], constant: Coeff| pool.linear(terms, constant);
    let minus_two = Coeff::int(-2);
    [
        [
            entry(&[(yy, minus_two), (zz, minus_two)], Coeff::ONE),
            entry(&[(xy, two), (wz, minus_two)], Coeff::ZERO),
            entry(&[(xz, two), (wy, two)], Coeff::ZERO),
        ],
        [
            entry(&[(xy, two), (wz, two)], Coeff::ZERO),
            entry(&[(xx, minus_two), (zz, minus_two)], Coeff::ONE),
            entry(&[(yz, two), (wx, minus_two)], Coeff::ZERO),
        ],
        [
            entry(&[(xz, two), (wy, minus_two)], Coeff::ZERO),
            entry(&[(yz, two), (wx, two)], Coeff::ZERO),
            entry(&[(xx, minus_two), (yy, minus_two)], Coeff::ONE),
        ],
    ]
}
