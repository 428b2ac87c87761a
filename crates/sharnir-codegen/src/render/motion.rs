//! The prescribed coordinates of a module: `NP`, `PRESCRIBED` and
//! `PRESCRIBED_POSITIONS` in every module, and for a module whose spec has
//! no `[motion]` the two functions a runtime calls on every module,
//! `prescribed_motion` (no coordinates) and `mixed_dynamics` (the forward
//! dynamics), so that a simulation reads the prescribed motion from the
//! module itself and cannot leave it out.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// `NP`, `PRESCRIBED` and `PRESCRIBED_POSITIONS`, for the prescribed
/// coordinates' `(velocity, position)` indices in `[motion]` order.
pub(crate) fn constants(prescribed: &[(usize, usize)]) -> TokenStream {
    let np = Literal::usize_unsuffixed(prescribed.len());
    let velocities = prescribed
        .iter()
        .map(|&(v, _)| Literal::usize_unsuffixed(v));
    let positions = prescribed
        .iter()
        .map(|&(_, p)| Literal::usize_unsuffixed(p));
    quote! {
        /// Number of coordinates the spec's `[motion]` prescribes as
        /// functions of time (zero without `[motion]`).
        pub const NP: usize = #np;
        /// Velocity indices of the prescribed coordinates, in the order of
        /// `prescribed_motion` and of the drive forces of `mixed_dynamics`.
        pub const PRESCRIBED: [usize; NP] = [#(#velocities),*];
        /// Indices in `q` of the prescribed coordinates' positions (each its
        /// coordinate's rate is its velocity), in the order of `PRESCRIBED`.
        pub const PRESCRIBED_POSITIONS: [usize; NP] = [#(#positions),*];
    }
}

/// `prescribed_motion` and `mixed_dynamics` of a module without `[motion]`:
/// no prescribed coordinate, and the forward dynamics.
pub(crate) fn free_motion() -> TokenStream {
    quote! {
        /// The prescribed coordinates' positions, rates and accelerations at
        /// time `t`: none, the spec has no `[motion]` (`NP = 0`).
        pub fn prescribed_motion(p: &Params, t: Real) -> ([Real; NP], [Real; NP], [Real; NP]) {
            prescribed_motion_with(&p.derived(), t)
        }

        /// [`prescribed_motion`] with the parameter groups already computed
        /// by [`Params::derived`].
        pub fn prescribed_motion_with(_d: &Derived, _t: Real) -> ([Real; NP], [Real; NP], [Real; NP]) {
            ([], [], [])
        }

        /// Every acceleration and the drive forces at time `t`: with no
        /// coordinate prescribed (`NP = 0`), the forward dynamics and no
        /// drive force.
        pub fn mixed_dynamics(
            p: &Params,
            t: Real,
            q: &[Real; NQ],
            qd: &[Real; NV],
            tau: &[Real; NV],
        ) -> ([Real; NV], [Real; NP]) {
            mixed_dynamics_with(&p.derived(), t, q, qd, tau)
        }

        /// [`mixed_dynamics`] with the parameter groups already computed by
        /// [`Params::derived`].
        pub fn mixed_dynamics_with(
            d: &Derived,
            _t: Real,
            q: &[Real; NQ],
            qd: &[Real; NV],
            tau: &[Real; NV],
        ) -> ([Real; NV], [Real; NP]) {
            (forward_dynamics_with(d, q, qd, tau), [])
        }
    }
}
