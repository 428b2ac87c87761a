//! The functions every generated module exports, behind traits, so that a
//! benchmark is written once and instantiated for each robot and both
//! parameter modes.

/// One generated module (runtime-parameter or folded) of an `N`-coordinate
/// robot.
///
/// Generated modules share function names and shapes but not types (each has
/// its own `Params`), so generic benchmark code reaches them through this
/// trait; the impls are written by [`crate::robots`].
pub(crate) trait Kernels<const N: usize> {
    /// The module's `Derived` struct: the parameters with their constant
    /// groups computed once, as a controller holding fixed parameters
    /// would keep them.
    type Params;

    /// The spec's parameter values (the same ones the generic tree is built
    /// from), with their groups computed.
    fn params() -> Self::Params;

    /// The module's `inverse_dynamics_with`.
    fn inverse_dynamics(p: &Self::Params, q: &[f64; N], qd: &[f64; N], qdd: &[f64; N]) -> [f64; N];

    /// The module's `mass_matrix_with`.
    fn mass_matrix(p: &Self::Params, q: &[f64; N]) -> [[f64; N]; N];

    /// The module's `forward_dynamics_with`.
    fn forward_dynamics(p: &Self::Params, q: &[f64; N], qd: &[f64; N], tau: &[f64; N]) -> [f64; N];
}

/// A bundled robot: the spec its modules were generated from and the two
/// modules, so that one type carries everything a comparison needs.
pub(crate) trait Robot<const N: usize> {
    /// File stem of the spec in `specs/`, which is also the runtime module's
    /// name; the generic tree is built from this spec.
    const SPEC: &'static str;
    /// The module that reads parameters from `Params` at run time.
    type Runtime: Kernels<N>;
    /// The module with the parameters folded into constants.
    type Folded: Kernels<N>;
}

/// Something done once per bundled robot.
///
/// Robots differ in their number of coordinates `N`, a const generic, so a
/// loop over them is a visitor with a generic method rather than an iterator.
pub(crate) trait RobotVisitor {
    /// Called by [`crate::robots::for_each_robot`] for every robot in turn.
    fn visit<const N: usize, R: Robot<N>>(&mut self);
}
