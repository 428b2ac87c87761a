//! What a controller's firmware does with sharnir: a generated module (here
//! `telegin6_f32`, single precision for a Cortex-M4F's floating-point unit)
//! stepped by the runtime's fixed-step integrator, with no `std` and no
//! allocator.
//!
//! CI builds this crate for `thumbv7em-none-eabihf`
//! (`cargo build -p sharnir-firmware-check --target thumbv7em-none-eabihf`),
//! which fails if the module or the runtime's core needs `std` or `alloc`.
//! On the host, its test checks the single-precision step against the
//! double-precision module.

#![no_std]

// The module is included as the user would paste it into firmware.
#[allow(dead_code)]
#[rustfmt::skip]
#[path = "../../../generated/src/telegin6_f32.rs"]
mod telegin6_f32;

use sharnir_runtime::{model, IntegrationError, ModelSystem, Rk4, Stepper, Trajectory};

model!(pub Arm = telegin6_f32);

/// Advances the arm's state `(q, q̇)` by one control period `dt` under its
/// own weight (one RK4 step), as a controller's interrupt would.
pub fn step(state: &mut [f32; Arm::STATE_LEN], dt: f32) -> Result<(), IntegrationError> {
    let mut system = ModelSystem::new(Arm::default());
    let mut rk4 = Rk4::new(&mut system, 0.0, *state, dt)?;
    rk4.step(&mut system, dt)?;
    state.copy_from_slice(rk4.y());
    Ok(())
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use sharnir_runtime::Model;

    model!(Reference = sharnir_generated::telegin6);

    #[test]
    fn a_single_precision_step_follows_the_double_precision_module() {
        let mut state32 = [0.0_f32; Arm::STATE_LEN];
        state32[..6].copy_from_slice(&[0.3, -0.2, 0.1, 0.4, -0.5, 0.2]);
        state32[6..].copy_from_slice(&[0.5, 0.1, -0.3, 0.2, 0.0, 0.4]);
        let state64: [f64; Arm::STATE_LEN] = state32.map(f64::from);
        let mut system = ModelSystem::new(Reference::default());
        let mut rk4 = Rk4::new(&mut system, 0.0, state64, 1e-3).expect("valid start");
        rk4.step(&mut system, 1e-3).expect("step");
        step(&mut state32, 1e-3).expect("step");
        let moved = (0..Arm::STATE_LEN)
            .map(|i| (rk4.y()[i] - state64[i]).abs())
            .fold(0.0, f64::max);
        assert!(moved > 1e-4, "the state barely moved: {moved}");
        for (i, (&single, &double)) in state32.iter().zip(rk4.y()).enumerate() {
            let error = (f64::from(single) - double).abs();
            // f32 rounding of states of order 1 and rates of order 10.
            assert!(error < 1e-5, "component {i}: {single} vs {double}");
        }
        assert_eq!(
            <Arm as Model<6, 6>>::POSITION_NAMES,
            telegin6_f32::POSITION_NAMES
        );
    }
}
