//! Fixed joints: the child body is lumped into the body it is welded to.
//!
//! A body welded (possibly through several fixed joints) to a moving body
//! adds its mass, first moment and inertia to that body, and its children
//! are placed relative to that body; a body welded to the ground takes no
//! part in the dynamics. With the welded body's frame at rotation `R` and
//! origin `t` in the host frame:
//! ```text
//! m = m_h + m_b
//! c = (m_h c_h + m_b (t + R c_b)) / m
//! I = I_h + m_h (|d_h|² 1 − d_h d_hᵀ) + R I_b Rᵀ + m_b (|d_b|² 1 − d_b d_bᵀ)
//! ```
//! with `d_h = c_h − c` and `d_b = t + R c_b − c`.

use crate::model::vec3::{Mat3, Vec3, Vec3Ops};
use crate::model::{Placement, TreeBody};
use sharnir_cas::{Coeff, Id, Pool};

/// Adds a body of `mass`, centre of mass `com` and central `inertia` (its
/// own frame), welded at `frame` (a placement in the host), to `host`.
pub(crate) fn lump(
    pool: &mut Pool,
    host: &mut TreeBody,
    frame: &Placement,
    mass: Id,
    com: Vec3,
    inertia: Mat3,
) {
    let rotated = pool.mat_vec(&frame.rotation, com);
    let welded_com = pool.add3(frame.translation, rotated);
    let total = pool.add(host.mass, mass);
    let host_moment = pool.scale3(host.mass, host.com);
    let welded_moment = pool.scale3(mass, welded_com);
    let moment = pool.add3(host_moment, welded_moment);
    let inverse = pool.powi(total, -1);
    let centre = pool.scale3(inverse, moment);
    let welded_inertia = pool.rotate_symmetric(&frame.rotation, &inertia);
    let zero = pool.zero();
    let mut combined = [[zero; 3]; 3];
    for (part_mass, part_com, part_inertia) in [
        (host.mass, host.com, host.inertia),
        (mass, welded_com, welded_inertia),
    ] {
        let minus_centre = pool.scale3c(Coeff::MINUS_ONE, centre);
        let d = pool.add3(part_com, minus_centre);
        let d_squared = pool.dot3(d, d);
        for i in 0..3 {
            for j in 0..3 {
                let dd = pool.mul(d[i], d[j]);
                let spread = if i == j {
                    pool.sub(d_squared, dd)
                } else {
                    pool.neg(dd)
                };
                let shift = pool.mul(part_mass, spread);
                let entry = pool.add(part_inertia[i][j], shift);
                combined[i][j] = pool.add(combined[i][j], entry);
            }
        }
    }
    host.mass = total;
    host.com = centre;
    host.inertia = combined;
}
