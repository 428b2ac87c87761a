//! What a controller's firmware does with sharnir: a generated module (here
//! `telegin6_f32`, single precision for a Cortex-M4F's floating-point unit)
//! stepped by the runtime's fixed-step integrator, and a closed linkage
//! (`four_bar`: its constrained dynamics, stepped with loop projection), with
//! no `std` and no allocator.
//!
//! CI builds and links this crate's `firmware` binary for
//! `thumbv7em-none-eabihf` (`tests/firmware/run-qemu.sh`), which fails if
//! the modules or the runtime's core need `std` or `alloc`, or if a panic
//! path is reachable from what the binary calls ([`workload`],
//! [`coverage`]), and runs it on QEMU where it can (`docs/embedded.md`).
//! On the host, its tests check the single-precision step against the
//! double-precision module and the emulated results against the host's.

#![no_std]

// The module is included as the user would paste it into firmware: a
// private module, with no lint allowance of its own (it must not warn).
#[rustfmt::skip]
#[path = "../../../generated/src/telegin6_f32.rs"]
mod telegin6_f32;

// Its double-precision original, for the firmware binary to compare the
// two on the target (`workload`).
#[rustfmt::skip]
#[path = "../../../generated/src/telegin6.rs"]
mod telegin6;

// A mechanism with a closed loop: its constrained dynamics are solved in
// fixed-size arrays inside the module, and the runtime's projection keeps
// the loop closed, all without `std`.
#[rustfmt::skip]
#[path = "../../../generated/src/four_bar.rs"]
mod four_bar;

pub mod coverage;
pub mod workload;

use sharnir_runtime::{
    model, ConstrainedSystem, IntegrationError, ModelSystem, OdeSystem, Rk4, Stepper, Trajectory,
};

model!(pub Arm = telegin6_f32);
model!(pub Linkage = four_bar, loops);

/// The four-bar's accelerations and pin reactions for a crank torque, from
/// the module's own constrained solve.
pub fn linkage_accelerations(
    q: &[f64; 3],
    qd: &[f64; 3],
    crank_torque: f64,
) -> Result<([f64; 3], [f64; 2]), four_bar::Singular> {
    four_bar::constrained_forward_dynamics(
        &four_bar::Params::default(),
        q,
        qd,
        &[crank_torque, 0.0, 0.0],
    )
}

/// Advances the four-bar's state by one RK4 step of `dt`, then closes the
/// loop again (coordinate projection).
pub fn linkage_step(
    state: &mut [f64; Linkage::STATE_LEN],
    dt: f64,
) -> Result<(), IntegrationError> {
    let mut system = ConstrainedSystem::new(Linkage::default());
    let mut rk4 = Rk4::new(&mut system, 0.0, *state, dt)?;
    rk4.step(&mut system, dt)?;
    state.copy_from_slice(rk4.y());
    system.project(dt, state);
    Ok(())
}

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

    #[test]
    fn the_linkage_steps_with_its_loop_closed() {
        use sharnir_runtime::LoopClosure;
        let mut state = [0.0; Linkage::STATE_LEN];
        state[..3].copy_from_slice(&four_bar::INITIAL_POSITIONS);
        let (qdd, _) =
            linkage_accelerations(&four_bar::INITIAL_POSITIONS, &[0.0; 3], 0.0).expect("regular");
        for _ in 0..100 {
            linkage_step(&mut state, 1e-3).expect("step");
        }
        let q = [state[0], state[1], state[2]];
        let psi = Linkage::default().constraints(&q);
        assert!(psi.iter().all(|x| x.abs() < 1e-11), "Ψ = {psi:?}");
        // Released from rest, the crank starts the way its acceleration says.
        let moved = state[0] - four_bar::INITIAL_POSITIONS[0];
        assert!(
            moved * qdd[0] > 0.0 && moved.abs() > 1e-4,
            "{moved} against {qdd:?}"
        );
    }
}
