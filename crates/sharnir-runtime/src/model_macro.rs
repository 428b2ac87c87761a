//! `model!`: the `Model` impl of a generated module, written by a macro so
//! that no module needs hand-written glue and the modules stay independent
//! of this crate. What the module has (applied forces, joint forces,
//! prescribed coordinates, loops) is read from the module itself.

/// Implements [`Model`](crate::Model) for a generated module, so that the runtime can
/// integrate it without hand-written glue.
///
/// `model!(pub TriplePendulum = path::to::triple_pendulum)` defines a type
/// `TriplePendulum` holding the module's `Params` (and the parameter groups
/// computed from them once), with `new(params)`, `Default` (the spec's
/// values) and the `Model` impl. What the mechanism applies by itself (the
/// spec's `[forces]`, `HAS_APPLIED_FORCES`; stops, damping and friction,
/// `HAS_JOINT_FORCES`) is read from the module, so it cannot be left out.
///
/// The coordinates a spec's `[motion]` prescribes (`PRESCRIBED`) are read
/// from the module too: every module has `prescribed_motion` and
/// `mixed_dynamics` (without `[motion]`, no coordinate and the forward
/// dynamics), so a simulation always follows the laws.
///
/// The module must be in scope at the macro call and provide what every
/// generated module provides (`NQ`, `NV`, `NP`, `POSITION_NAMES`,
/// `COORDINATE_NAMES`, `QUATERNIONS`, `PRESCRIBED`,
/// `PRESCRIBED_POSITIONS`, `INITIAL_POSITIONS`, `INITIAL_VELOCITIES`,
/// `Params`, `Derived`, and the `_with` functions of the forward dynamics
/// and its derivatives, the mixed dynamics and prescribed motion,
/// coordinate rates, energy, mass matrix, Coriolis matrix and gravity).
///
/// Add `, linear` for a module generated
/// without its superlinear outputs (`sharnir gen --outputs linear`, and the
/// default above 48 velocity coordinates): it needs no `mass_matrix_with`,
/// `coriolis_matrix_with` or `forward_dynamics_derivatives_with` (implicit
/// integrators then differentiate the dynamics numerically). The mass matrix is then computed from
/// `inverse_dynamics_with`, column `j` as `τ(q, 0, eⱼ) − τ(q, 0, 0)` (`n`
/// calls of an `O(n)` function, exact up to rounding), so closed loops
/// and the state maps still have it; the Coriolis matrix is NaN and
/// [`Model::HAS_CORIOLIS_MATRIX`](crate::Model::HAS_CORIOLIS_MATRIX) `false`, so `SymplecticEuler` refuses
/// the model. Every other integrator needs only the forward dynamics.
/// Without `, linear`, a module lacking those functions fails to compile
/// with "cannot find function `mass_matrix_with`".
///
/// Add `, loops` (after `, linear`) for a module of a mechanism with closed
/// loops (`HAS_LOOPS`; it has `NC` and `constraints`), and only then: a
/// loop module declared without it does not compile (its tree dynamics
/// would leave the loops open):
///
/// ```compile_fail,E0080
/// sharnir_runtime::model!(FourBar = sharnir_generated::four_bar);
/// ```
///
/// The type then also
/// implements [`LoopClosure`](crate::LoopClosure), so
/// [`assemble`](crate::assemble) and
/// [`ConstrainedSystem`](crate::ConstrainedSystem) take it.
#[macro_export]
macro_rules! model {
    ($vis:vis $name:ident = $($module:ident)::+) => {
        $crate::model!(@tree $($module)::+);
        $crate::model!(@define $vis $name = $($module)::+);
        $crate::model!(@impl full $name = $($module)::+);
    };
    ($vis:vis $name:ident = $($module:ident)::+, linear) => {
        $crate::model!(@tree $($module)::+);
        $crate::model!(@define $vis $name = $($module)::+);
        $crate::model!(@impl linear $name = $($module)::+);
    };
    ($vis:vis $name:ident = $($module:ident)::+, loops) => {
        $crate::model!(@define $vis $name = $($module)::+);
        $crate::model!(@impl full $name = $($module)::+);
        $crate::model!(@loops full $name = $($module)::+);
    };
    ($vis:vis $name:ident = $($module:ident)::+, linear, loops) => {
        $crate::model!(@define $vis $name = $($module)::+);
        $crate::model!(@impl linear $name = $($module)::+);
        $crate::model!(@loops linear $name = $($module)::+);
    };
    (@tree $($module:ident)::+) => {
        const _: () = assert!(
            !$($module)::+::HAS_LOOPS,
            concat!(
                "`", stringify!($($module)::+), "` has closed loops, which this model would ",
                "leave open: write `model!(Name = ", stringify!($($module)::+), ", loops)`"
            )
        );
    };
    (@loops $outputs:ident $name:ident = $($module:ident)::+) => {
        impl $crate::LoopClosure<{ $($module)::+::NQ }, { $($module)::+::NV }, { $($module)::+::NC }>
            for $name
        {
            const INDEPENDENT: &'static [usize] = &$($module)::+::INDEPENDENT;
            const CONSTRAINT_NAMES: &'static [&'static str] = &$($module)::+::CONSTRAINT_NAMES;

            fn constraints(
                &self,
                q: &[Self::Real; $($module)::+::NQ],
            ) -> [Self::Real; $($module)::+::NC] {
                $($module)::+::constraints_with(&self.derived, q)
            }

            fn constraint_jacobian(
                &self,
                q: &[Self::Real; $($module)::+::NQ],
            ) -> [[Self::Real; $($module)::+::NV]; $($module)::+::NC] {
                $($module)::+::constraint_jacobian_with(&self.derived, q)
            }

            fn constraint_bias(
                &self,
                q: &[Self::Real; $($module)::+::NQ],
                qd: &[Self::Real; $($module)::+::NV],
            ) -> [Self::Real; $($module)::+::NC] {
                $($module)::+::constraint_bias_with(&self.derived, q, qd)
            }

            $crate::model!(@loop_derivatives $outputs $($module)::+);
        }
    };
    (@loop_derivatives full $($module:ident)::+) => {
        fn constrained_forward_dynamics_derivatives(
            &self,
            q: &[Self::Real; $($module)::+::NQ],
            qd: &[Self::Real; $($module)::+::NV],
            tau: &[Self::Real; $($module)::+::NV],
        ) -> Option<$crate::ConstrainedMotionDerivatives<Self::Real, { $($module)::+::NV }>> {
            let derivatives =
                $($module)::+::constrained_forward_dynamics_derivatives_with(&self.derived, q, qd, tau)
                    .ok()?;
            Some($crate::ConstrainedMotionDerivatives {
                by_position: derivatives.accelerations_by_position,
                by_velocity: derivatives.accelerations_by_velocity,
            })
        }
    };
    (@loop_derivatives linear $($module:ident)::+) => {};
    (@define $vis:vis $name:ident = $($module:ident)::+) => {
        #[doc = concat!("The generated module `", stringify!($($module)::+), "` with its parameter values, as a [`", stringify!($crate), "::Model`].")]
        #[derive(Clone, Copy, Debug)]
        $vis struct $name {
            params: $($module)::+::Params,
            derived: $($module)::+::Derived,
        }

        impl $name {
            /// Length of the flat state `(q, q̇)` integrators work on.
            pub const STATE_LEN: usize = $($module)::+::NQ + $($module)::+::NV;

            /// The mechanism with these parameter values (the parameter
            /// groups are computed once, here).
            pub fn new(params: $($module)::+::Params) -> Self {
                $name {
                    derived: params.derived(),
                    params,
                }
            }
        }

        impl Default for $name {
            /// The spec's parameter values.
            fn default() -> Self {
                Self::new(Default::default())
            }
        }
    };
    (@impl $kind:ident $name:ident = $($module:ident)::+) => {
        impl $crate::Model<{ $($module)::+::NQ }, { $($module)::+::NV }> for $name {
            type Real = $($module)::+::Real;
            type Params = $($module)::+::Params;
            const NAME: &'static str = stringify!($($module)::+);
            const POSITION_NAMES: [&'static str; $($module)::+::NQ] = $($module)::+::POSITION_NAMES;
            const VELOCITY_NAMES: [&'static str; $($module)::+::NV] = $($module)::+::COORDINATE_NAMES;
            const QUATERNIONS: &'static [usize] = &$($module)::+::QUATERNIONS;
            const HAS_APPLIED_FORCES: bool = $($module)::+::HAS_APPLIED_FORCES;

            fn params(&self) -> &Self::Params {
                &self.params
            }

            fn initial_positions(&self) -> [Self::Real; $($module)::+::NQ] {
                $($module)::+::INITIAL_POSITIONS
            }

            fn initial_velocities(&self) -> [Self::Real; $($module)::+::NV] {
                $($module)::+::INITIAL_VELOCITIES
            }

            fn forward_dynamics(
                &self,
                q: &[Self::Real; $($module)::+::NQ],
                qd: &[Self::Real; $($module)::+::NV],
                tau: &[Self::Real; $($module)::+::NV],
            ) -> [Self::Real; $($module)::+::NV] {
                $($module)::+::forward_dynamics_with(&self.derived, q, qd, tau)
            }

            fn coordinate_rates(
                &self,
                q: &[Self::Real; $($module)::+::NQ],
                qd: &[Self::Real; $($module)::+::NV],
            ) -> [Self::Real; $($module)::+::NQ] {
                $($module)::+::coordinate_rates_with(&self.derived, q, qd)
            }

            fn energy(
                &self,
                q: &[Self::Real; $($module)::+::NQ],
                qd: &[Self::Real; $($module)::+::NV],
            ) -> (Self::Real, Self::Real) {
                $($module)::+::energy_with(&self.derived, q, qd)
            }

            $crate::model!(@matrices $kind $($module)::+);

            fn gravity(
                &self,
                q: &[Self::Real; $($module)::+::NQ],
            ) -> [Self::Real; $($module)::+::NV] {
                $($module)::+::gravity_with(&self.derived, q)
            }

            $crate::model!(@derivatives $kind $($module)::+);

            const HAS_JOINT_FORCES: bool = $($module)::+::HAS_JOINT_FORCES;
            const CONTACT_NAMES: &'static [&'static str] = &$($module)::+::CONTACT_NAMES;

            fn joint_forces(
                &self,
                q: &[Self::Real; $($module)::+::NQ],
                qd: &[Self::Real; $($module)::+::NV],
            ) -> [Self::Real; $($module)::+::NV] {
                let mut tau = $($module)::+::limit_forces_with(&self.derived, q, qd);
                let friction = $($module)::+::friction_forces_with(&self.derived, q, qd);
                for (total, f) in tau.iter_mut().zip(friction) {
                    *total += f;
                }
                tau
            }

            fn contact_gaps(&self, q: &[Self::Real; $($module)::+::NQ], gaps: &mut [Self::Real]) {
                let all = $($module)::+::contact_gaps_with(&self.derived, q);
                for (gap, value) in gaps.iter_mut().zip(all) {
                    *gap = value;
                }
            }

            fn applied_forces(
                &self,
                t: Self::Real,
                q: &[Self::Real; $($module)::+::NQ],
                qd: &[Self::Real; $($module)::+::NV],
            ) -> [Self::Real; $($module)::+::NV] {
                $($module)::+::applied_forces_with(&self.derived, t, q, qd)
            }

            const PRESCRIBED: &'static [usize] = &$($module)::+::PRESCRIBED;
            const PRESCRIBED_POSITIONS: &'static [usize] = &$($module)::+::PRESCRIBED_POSITIONS;

            fn prescribe(
                &self,
                t: Self::Real,
                q: &mut [Self::Real; $($module)::+::NQ],
                qd: &mut [Self::Real; $($module)::+::NV],
            ) -> [Self::Real; $($module)::+::NV] {
                let (positions, rates, accelerations) =
                    $($module)::+::prescribed_motion_with(&self.derived, t);
                for (&i, &value) in $($module)::+::PRESCRIBED_POSITIONS.iter().zip(&positions) {
                    q[i] = value;
                }
                let mut known = [<Self::Real as $crate::Real>::ZERO; $($module)::+::NV];
                for (k, &i) in $($module)::+::PRESCRIBED.iter().enumerate() {
                    qd[i] = rates[k];
                    known[i] = accelerations[k];
                }
                known
            }

            fn mixed_dynamics(
                &self,
                t: Self::Real,
                q: &[Self::Real; $($module)::+::NQ],
                qd: &[Self::Real; $($module)::+::NV],
                tau: &[Self::Real; $($module)::+::NV],
            ) -> ([Self::Real; $($module)::+::NV], [Self::Real; $($module)::+::NV]) {
                let (qdd, drives) = $($module)::+::mixed_dynamics_with(&self.derived, t, q, qd, tau);
                let mut forces = [<Self::Real as $crate::Real>::ZERO; $($module)::+::NV];
                for (&i, &drive) in $($module)::+::PRESCRIBED.iter().zip(&drives) {
                    forces[i] = drive;
                }
                (qdd, forces)
            }
        }
    };
    (@matrices full $($module:ident)::+) => {
        fn mass_matrix(
            &self,
            q: &[Self::Real; $($module)::+::NQ],
        ) -> [[Self::Real; $($module)::+::NV]; $($module)::+::NV] {
            $($module)::+::mass_matrix_with(&self.derived, q)
        }

        fn coriolis_matrix(
            &self,
            q: &[Self::Real; $($module)::+::NQ],
            qd: &[Self::Real; $($module)::+::NV],
        ) -> [[Self::Real; $($module)::+::NV]; $($module)::+::NV] {
            $($module)::+::coriolis_matrix_with(&self.derived, q, qd)
        }
    };
    (@matrices linear $($module:ident)::+) => {
        const HAS_CORIOLIS_MATRIX: bool = false;

        /// Column `j` is `τ(q, 0, eⱼ) − τ(q, 0, 0)`: the module has no
        /// `mass_matrix` (see [`model!`](crate::model)'s `linear`).
        fn mass_matrix(
            &self,
            q: &[Self::Real; $($module)::+::NQ],
        ) -> [[Self::Real; $($module)::+::NV]; $($module)::+::NV] {
            let zero = [<Self::Real as $crate::Real>::ZERO; $($module)::+::NV];
            let at_rest = $($module)::+::inverse_dynamics_with(&self.derived, q, &zero, &zero);
            let mut mass = [zero; $($module)::+::NV];
            let mut unit = zero;
            for j in 0..$($module)::+::NV {
                unit[j] = <Self::Real as $crate::Real>::ONE;
                let column = $($module)::+::inverse_dynamics_with(&self.derived, q, &zero, &unit);
                unit[j] = <Self::Real as $crate::Real>::ZERO;
                for (row, (tau, rest)) in mass.iter_mut().zip(column.iter().zip(&at_rest)) {
                    row[j] = *tau - *rest;
                }
            }
            mass
        }

        /// NaN everywhere: the module has no `coriolis_matrix`
        /// ([`Model::HAS_CORIOLIS_MATRIX`](crate::Model::HAS_CORIOLIS_MATRIX)).
        fn coriolis_matrix(
            &self,
            _q: &[Self::Real; $($module)::+::NQ],
            _qd: &[Self::Real; $($module)::+::NV],
        ) -> [[Self::Real; $($module)::+::NV]; $($module)::+::NV] {
            let nan = <Self::Real as $crate::Real>::from_f64(f64::NAN);
            [[nan; $($module)::+::NV]; $($module)::+::NV]
        }
    };
    (@derivatives full $($module:ident)::+) => {
        fn forward_dynamics_derivatives(
            &self,
            q: &[Self::Real; $($module)::+::NQ],
            qd: &[Self::Real; $($module)::+::NV],
            tau: &[Self::Real; $($module)::+::NV],
        ) -> Option<$crate::ForwardDynamicsDerivatives<Self::Real, { $($module)::+::NV }>> {
            let (by_position, by_velocity, by_force) =
                $($module)::+::forward_dynamics_derivatives_with(&self.derived, q, qd, tau);
            Some($crate::ForwardDynamicsDerivatives {
                by_position,
                by_velocity,
                by_force,
            })
        }
    };
    (@derivatives linear $($module:ident)::+) => {};
}
