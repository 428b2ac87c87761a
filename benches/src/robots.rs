//! The robots that are benchmarked: one line per robot.

use crate::kernels::{Kernels, Robot, RobotVisitor};

/// Implements [`Kernels`] for a marker type by forwarding to a generated
/// module.
macro_rules! forward_kernels {
    ($marker:ident => $module:ident) => {
        impl Kernels<N> for $marker {
            type Params = $module::Derived;

            fn params() -> Self::Params {
                $module::Params::default().derived()
            }

            fn inverse_dynamics(
                p: &Self::Params,
                q: &[f64; N],
                qd: &[f64; N],
                qdd: &[f64; N],
            ) -> [f64; N] {
                $module::inverse_dynamics_with(p, q, qd, qdd)
            }

            fn mass_matrix(p: &Self::Params, q: &[f64; N]) -> [[f64; N]; N] {
                $module::mass_matrix_with(p, q)
            }

            fn forward_dynamics(
                p: &Self::Params,
                q: &[f64; N],
                qd: &[f64; N],
                tau: &[f64; N],
            ) -> [f64; N] {
                $module::forward_dynamics_with(p, q, qd, tau)
            }
        }
    };
}

/// Declares every benchmarked robot, given as `runtime_module, folded_module;`
/// lines naming modules of `sharnir_generated`: a module (with marker types
/// implementing [`Robot`] and [`Kernels`]) per robot, and
/// [`for_each_robot`] visiting them in the order listed.
macro_rules! robots {
    ($($runtime:ident, $folded:ident;)*) => {
        $(
            mod $runtime {
                use super::{Kernels, Robot};
                use sharnir_generated::{$folded as folded, $runtime as runtime};

                /// Number of coordinates.
                pub(crate) const N: usize = runtime::NV;

                /// The robot.
                pub(crate) struct Bundle;
                /// Its runtime-parameter module.
                pub(crate) struct Runtime;
                /// Its folded module.
                pub(crate) struct Folded;

                impl Robot<N> for Bundle {
                    const SPEC: &'static str = stringify!($runtime);
                    type Runtime = Runtime;
                    type Folded = Folded;
                }

                forward_kernels!(Runtime => runtime);
                forward_kernels!(Folded => folded);
            }
        )*

        /// Calls `visitor` once per benchmarked robot, in the order listed.
        pub(crate) fn for_each_robot(visitor: &mut impl RobotVisitor) {
            $(visitor.visit::<{ $runtime::N }, $runtime::Bundle>();)*
        }
    };
}

robots! {
    telegin6, telegin6_folded;
    puma560, puma560_folded;
    chain10, chain10_folded;
    ur5, ur5_folded;
    panda, panda_folded;
    solo12_fixed, solo12_fixed_folded;
}
