//! The runtime that integrates generated modules through time.
//!
//! sharnir emits one self-contained module per mechanism (`core` + `libm`);
//! this crate runs them:
//!
//! - [`Model`]: what every generated module provides (sizes, coordinate
//!   names, parameters, forward dynamics, coordinate rates, energy), and
//!   [`model!`], which implements it for a module without hand-written glue;
//! - [`OdeSystem`]: a first-order system on a flat state, and
//!   [`ModelSystem`], a model seen as one (`y = (q, q̇)`, quaternions kept
//!   unit);
//! - [`Stepper`]: one accepted step at a time with dense output, and the
//!   fixed-step integrators that need no allocator: [`Rk4`],
//!   [`SemiImplicitEuler`] and [`SymplecticEuler`] (in the momenta, for
//!   long conservative runs);
//! - [`LoopClosure`]: mechanisms closed by cut joints — [`assemble`],
//!   [`project_velocities`] and [`ConstrainedSystem`], the constrained
//!   dynamics with coordinate projection, on trees with quaternions too
//!   ([`integrate`], `q ⊕ δ`);
//! - with the `std` feature (default): the adaptive integrators in
//!   [`adaptive`], event location ([`EventLocator`]: when a function of the
//!   state crosses zero, on the dense output, optionally stopping there)
//!   and the [`Simulation`] driver.
//!
//! Without the `std` feature the crate is `#![no_std]` and allocates
//! nothing, like the generated modules, so a controller can step a model on
//! a microcontroller.

#![cfg_attr(not(feature = "std"), no_std)]

#[cfg(feature = "std")]
pub mod adaptive;
mod detach;
#[cfg(feature = "std")]
mod events;
mod fixed_step;
mod jacobian;
mod linalg;
mod loops;
mod manifold;
mod model;
mod model_macro;
mod poses;
mod real;
#[cfg(feature = "std")]
mod simulation;
mod singularity;
mod stepper;
mod symplectic;
mod system;

pub use detach::{
    free_joint_state, release_functions, release_state, release_state_into, released_sizes,
    rotation_quaternion, BodyPose, BodyVelocity, Detachable, Detachment, Release, ReleaseError,
    State, MAX_DETACHABLE,
};
#[cfg(feature = "std")]
pub use events::{Direction, Event, EventError, EventLocator, EventRecord};
pub use fixed_step::{Rk4, SemiImplicitEuler, StateVector};
pub use loops::{
    assemble, project_velocities, project_velocities_holding, Accelerations, AssemblyError,
    ConstrainedMotionDerivatives, ConstrainedSystem, DriftControl, LoopClosure,
};
pub use manifold::integrate;
pub use model::{
    join_state, normalize_quaternions, split_state, Control, ForwardDynamicsDerivatives, Model,
    ModelSystem, Passive,
};
pub use poses::BodyPoses;
pub use real::Real;
#[cfg(feature = "std")]
pub use simulation::{
    release_events, MechanicalSystem, Method, Observer, ObserverError, Sample, Simulation,
    SimulationError, SimulationErrorKind, Summary,
};
pub use singularity::{closure_conditioning, mass_matrix_conditioning};
pub use stepper::{IntegrationError, Stats, Stepper, Tolerances, Trajectory};
pub use symplectic::SymplecticEuler;
pub use system::{OdeSystem, RhsError};
