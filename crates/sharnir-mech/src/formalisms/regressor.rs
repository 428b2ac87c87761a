//! The standard regressor: the joint forces are linear in every body's ten
//! inertial parameters, `τ = Y(q, q̇, q̈) π`, and `Y` is what identifying a
//! robot's parameters from measured torques starts from.
//!
//! `π` holds, body by body (the spec's moving bodies in the order of
//! `BODY_NAMES`), Pinocchio's ten dynamic parameters in Pinocchio's order:
//! the mass `m`, the first moment `m c` (x, y, z) and the inertia about the
//! body-frame origin `I = I_c + m (|c|² 1 − c cᵀ)` as `xx, xy, yy, xz, yz,
//! zz`, all in body axes. Newton–Euler is derived once with these as
//! symbols (the massless auxiliary bodies of composite joints keep zero),
//! and column `k` of `Y` is the derivative of the joint forces in `πₖ`,
//! exact since they are linear: no parameter is left in it.
//!
//! After the bodies' `10·NB` columns come those of the drive parameters
//! the spec declares ([`crate::model::drives`]: armature, damping,
//! friction, joint by joint), so that `Y π` is the force the drives
//! supply, `inverse_dynamics − friction_forces`, with `π` the bodies'
//! parameters then the drives'.

use crate::formalisms::base_parameters::RigidInertia;
use crate::formalisms::derivatives::transposed;
use crate::formalisms::rnea::{inverse_dynamics_of_inertias, PointAcceleration};
use crate::model::inputs::Input;
use crate::Mechanism;
use sharnir_cas::Id;

/// The names of a body's ten parameters, in the order of its columns.
pub const PARAMETER_NAMES: [&str; 10] = ["m", "mx", "my", "mz", "xx", "xy", "yy", "xz", "yz", "zz"];

/// `Y`: one row per velocity coordinate, ten columns per spec body, then
/// one per drive parameter.
pub fn standard_regressor(mechanism: &mut Mechanism) -> Vec<Vec<Id>> {
    let mut parameters: Vec<Id> = Vec::new();
    let inertias: Vec<RigidInertia> = {
        let Mechanism { pool, bodies, .. } = mechanism;
        let zero = pool.zero();
        bodies
            .iter()
            .map(|body| {
                if body.auxiliary {
                    return RigidInertia {
                        mass: zero,
                        first_moment: [zero; 3],
                        rotational: [[zero; 3]; 3],
                    };
                }
                let own: Vec<Id> = PARAMETER_NAMES
                    .iter()
                    .map(|p| pool.input(Input::Named(format!("{}.{p}", body.name))))
                    .collect();
                parameters.extend(&own);
                let [m, mx, my, mz, xx, xy, yy, xz, yz, zz] = std::array::from_fn(|k| own[k]);
                RigidInertia {
                    mass: m,
                    first_moment: [mx, my, mz],
                    rotational: [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]],
                }
            })
            .collect()
    };
    let tau = inverse_dynamics_of_inertias(mechanism, &inertias, PointAcceleration::CrossProducts);
    let pool = &mut mechanism.pool;
    let mut columns: Vec<Vec<Id>> = parameters
        .iter()
        .map(|&parameter| pool.diff_all(&tau, parameter))
        .collect();
    let nv = tau.len();
    columns.extend(mechanism.drives.iter().map(|d| d.column(pool, nv)));
    let zero = pool.zero();
    transposed(&columns, tau.len(), zero)
}
