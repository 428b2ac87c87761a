//! The regressors behind the C ABI, timed against Pinocchio's
//! `computeJointTorqueRegressor` (`harness.cpp` with `regressor.hpp`).
//!
//! For every robot `<r>` this module exports:
//!
//! - `sharnir_<r>_nb()`, `sharnir_<r>_nd()`, `sharnir_<r>_nbp()`: the number
//!   of bodies, of drive parameters and of base parameters (the module's
//!   `NB`, `ND`, `NBP`);
//! - `sharnir_<r>_body_name(i, &len)`: the name of body `i` of
//!   `BODY_NAMES` (UTF-8, not NUL-terminated), so that the harness maps the
//!   standard regressor's ten columns per body to Pinocchio's by name;
//! - `sharnir_<r>_base_parameters() -> beta`: the emitted
//!   `base_parameters_with`, `NBP` doubles, the spec's parameters;
//! - `sharnir_<r>_friction_forces(q, qd) -> f`: the emitted
//!   `friction_forces_with` (the joints' damping and dry friction), `nv`
//!   doubles: `Y_b β = inverse_dynamics − f`, which the harness checks;
//! - `sharnir_<r>_standard_regressor(q, qd, qdd) -> y`: the emitted
//!   `standard_regressor_with`, row-major `nv × (10 nb + nd)` (ten columns
//!   per body of `BODY_NAMES`, then the drives');
//! - `sharnir_<r>_regressor(q, qd, qdd) -> y_b`: the emitted
//!   `regressor_with`, the minimal regressor, row-major `nv × nbp`.
//!
//! Each with the module's `Derived` computed once, each result returned by
//! value as a C struct ([`Rows`]) like the crate's other functions.

use crate::{name, Doubles};

/// An `R × C` row-major matrix of doubles as a C struct, returned by value
/// like [`Doubles`]: a regressor's `[[f64; C]; R]` (`R = NV` rows).
#[repr(C)]
pub struct Rows<const R: usize, const C: usize>([[f64; C]; R]);

/// Exports the regressors of one generated module `$m` under the C names
/// given.
macro_rules! export_regressor {
    (
        $m:ident,
        $nb:ident, $nd:ident, $nbp:ident, $bname:ident,
        $beta:ident, $friction:ident, $standard:ident, $minimal:ident
    ) => {
        /// Number of bodies (`NB`): the standard regressor has ten columns
        /// per body.
        #[no_mangle]
        pub extern "C" fn $nb() -> usize {
            crate::$m::NB
        }

        /// Number of drive parameters (`ND`): the standard regressor's
        /// columns after the bodies'.
        #[no_mangle]
        pub extern "C" fn $nd() -> usize {
            crate::$m::ND
        }

        /// Number of base parameters (`NBP`): the minimal regressor's
        /// columns.
        #[no_mangle]
        pub extern "C" fn $nbp() -> usize {
            crate::$m::NBP
        }

        /// Name of body `i` (UTF-8, `*len` bytes, not NUL-terminated), in
        /// the order of the standard regressor's column blocks; null if
        /// `i >= nb`.
        ///
        /// # Safety
        ///
        /// `len` must be null or valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $bname(i: usize, len: *mut usize) -> *const u8 {
            name(&crate::$m::BODY_NAMES, i, len)
        }

        /// The base parameters `β` of the spec's parameters (the emitted
        /// `base_parameters_with`): `τ = Y_b β`.
        #[no_mangle]
        pub extern "C" fn $beta() -> Doubles<{ crate::$m::NBP }> {
            static D: std::sync::LazyLock<crate::$m::Derived> =
                std::sync::LazyLock::new(|| crate::$m::Params::default().derived());
            Doubles(crate::$m::base_parameters_with(&D))
        }

        /// The joints' damping and dry friction at `(q, qd)` (the emitted
        /// `friction_forces_with`): the regressors give the joint forces
        /// less these, `Y π = Y_b β = inverse_dynamics − friction_forces`.
        ///
        /// # Safety
        ///
        /// `q` must point to `nq` readable doubles, `qd` to `nv`.
        #[no_mangle]
        pub unsafe extern "C" fn $friction(
            q: *const f64,
            qd: *const f64,
        ) -> Doubles<{ crate::$m::NV }> {
            static D: std::sync::LazyLock<crate::$m::Derived> =
                std::sync::LazyLock::new(|| crate::$m::Params::default().derived());
            Doubles(crate::$m::friction_forces_with(
                &D,
                &*(q as *const [f64; crate::$m::NQ]),
                &*(qd as *const [f64; crate::$m::NV]),
            ))
        }

        /// The standard regressor `Y(q, qd, qdd)` (the emitted
        /// `standard_regressor_with`), row-major `nv × (10 nb + nd)`.
        ///
        /// # Safety
        ///
        /// `q` must point to `nq` readable doubles, `qd` and `qdd` to `nv`.
        #[no_mangle]
        pub unsafe extern "C" fn $standard(
            q: *const f64,
            qd: *const f64,
            qdd: *const f64,
        ) -> Rows<{ crate::$m::NV }, { 10 * crate::$m::NB + crate::$m::ND }> {
            static D: std::sync::LazyLock<crate::$m::Derived> =
                std::sync::LazyLock::new(|| crate::$m::Params::default().derived());
            Rows(crate::$m::standard_regressor_with(
                &D,
                &*(q as *const [f64; crate::$m::NQ]),
                &*(qd as *const [f64; crate::$m::NV]),
                &*(qdd as *const [f64; crate::$m::NV]),
            ))
        }

        /// The minimal regressor `Y_b(q, qd, qdd)` (the emitted
        /// `regressor_with`), row-major `nv × nbp`.
        ///
        /// # Safety
        ///
        /// `q` must point to `nq` readable doubles, `qd` and `qdd` to `nv`.
        #[no_mangle]
        pub unsafe extern "C" fn $minimal(
            q: *const f64,
            qd: *const f64,
            qdd: *const f64,
        ) -> Rows<{ crate::$m::NV }, { crate::$m::NBP }> {
            static D: std::sync::LazyLock<crate::$m::Derived> =
                std::sync::LazyLock::new(|| crate::$m::Params::default().derived());
            Rows(crate::$m::regressor_with(
                &D,
                &*(q as *const [f64; crate::$m::NQ]),
                &*(qd as *const [f64; crate::$m::NV]),
                &*(qdd as *const [f64; crate::$m::NV]),
            ))
        }
    };
}

export_regressor!(
    ur5,
    sharnir_ur5_nb,
    sharnir_ur5_nd,
    sharnir_ur5_nbp,
    sharnir_ur5_body_name,
    sharnir_ur5_base_parameters,
    sharnir_ur5_friction_forces,
    sharnir_ur5_standard_regressor,
    sharnir_ur5_regressor
);
export_regressor!(
    panda,
    sharnir_panda_nb,
    sharnir_panda_nd,
    sharnir_panda_nbp,
    sharnir_panda_body_name,
    sharnir_panda_base_parameters,
    sharnir_panda_friction_forces,
    sharnir_panda_standard_regressor,
    sharnir_panda_regressor
);
export_regressor!(
    iiwa,
    sharnir_iiwa_nb,
    sharnir_iiwa_nd,
    sharnir_iiwa_nbp,
    sharnir_iiwa_body_name,
    sharnir_iiwa_base_parameters,
    sharnir_iiwa_friction_forces,
    sharnir_iiwa_standard_regressor,
    sharnir_iiwa_regressor
);
export_regressor!(
    solo12,
    sharnir_solo12_nb,
    sharnir_solo12_nd,
    sharnir_solo12_nbp,
    sharnir_solo12_body_name,
    sharnir_solo12_base_parameters,
    sharnir_solo12_friction_forces,
    sharnir_solo12_standard_regressor,
    sharnir_solo12_regressor
);
export_regressor!(
    anymal,
    sharnir_anymal_nb,
    sharnir_anymal_nd,
    sharnir_anymal_nbp,
    sharnir_anymal_body_name,
    sharnir_anymal_base_parameters,
    sharnir_anymal_friction_forces,
    sharnir_anymal_standard_regressor,
    sharnir_anymal_regressor
);
export_regressor!(
    talos,
    sharnir_talos_nb,
    sharnir_talos_nd,
    sharnir_talos_nbp,
    sharnir_talos_body_name,
    sharnir_talos_base_parameters,
    sharnir_talos_friction_forces,
    sharnir_talos_standard_regressor,
    sharnir_talos_regressor
);
