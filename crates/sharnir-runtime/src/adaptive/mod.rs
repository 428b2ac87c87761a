//! Adaptive integrators (need `std`: their stages live on the heap, sized at
//! run time): explicit Dormand–Prince 5(4) and DOP853 for non-stiff
//! mechanisms, and Radau IIA of order 5 for stiff ones.
//!
//! All three step one accepted step at a time through [`crate::Stepper`],
//! with a continuous extension over the last step ([`crate::Trajectory`]),
//! and count their work in [`crate::Stats`]. Their control follows Hairer,
//! Nørsett and Wanner's codes `dopri5`, `dop853` and `RADAU5`.

mod control;
mod dop853;
mod dopri5;
mod linear;
mod radau5;

pub use dop853::Dop853;
pub use dopri5::Dopri5;
pub use radau5::Radau5;
