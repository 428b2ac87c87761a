//! A computed-torque controller for the 6-axis arm of Telegin's example,
//! in `f32`, as it would run on a Cortex-M4F: every 10 ms it reads the
//! state, computes `τ = M(q) (q̈_d + K_d ė + K_p e) + bias(q, q̇)` from the
//! generated `f32` module, and the plant (the same module, integrated by
//! the runtime's allocation-free RK4 in steps of 1 ms) moves under it.
//! Nothing here allocates; only `main` prints.

use sharnir_generated::telegin6_f32 as arm;
use sharnir_runtime::{
    model, Control, IntegrationError, Model, ModelSystem, Rk4, Stepper, Trajectory,
};

model!(Arm = sharnir_generated::telegin6_f32);

/// Where the arm goes: every joint from its initial angle to `TARGET`.
const TARGET: [f32; arm::NV] = [0.5, -0.3, 0.4, 0.2, -0.1, 0.3];
/// Gains of the tracking error (1/s², 1/s): a critically damped 5 rad/s.
const KP: f32 = 25.0;
const KD: f32 = 10.0;
/// The control period and the integration step, s.
const PERIOD: f32 = 0.01;
const STEP: f32 = 1e-3;

/// The torque the controller holds for one period at `(q, q̇)`.
fn computed_torque(
    params: &arm::Params,
    q: &[f32; arm::NQ],
    qd: &[f32; arm::NV],
) -> [f32; arm::NV] {
    let acceleration: [f32; arm::NV] =
        core::array::from_fn(|k| KP * (TARGET[k] - q[k]) - KD * qd[k]);
    arm::inverse_dynamics(params, q, qd, &acceleration)
}

/// The torque held over one control period (a zero-order hold, as a
/// drive's current loop holds its set point).
struct Held([f32; arm::NV]);

impl Control<f32, { arm::NQ }, { arm::NV }> for Held {
    fn forces(&mut self, _t: f32, _q: &[f32; arm::NQ], _qd: &[f32; arm::NV]) -> [f32; arm::NV] {
        self.0
    }
}

/// Runs the loop for `seconds` and returns the largest joint error at
/// the end, rad.
fn run(seconds: f32) -> Result<f32, IntegrationError> {
    let params = arm::Params::default();
    let plant = Arm::default();
    let mut y = [0.0f32; Arm::STATE_LEN];
    y[..arm::NQ].copy_from_slice(&plant.initial_positions());
    let mut system = ModelSystem::with_control(plant, Held([0.0; arm::NV]));
    let mut rk4 = Rk4::new(&mut system, 0.0, y, STEP)?;
    let periods = (seconds / PERIOD).round() as u32;
    for k in 1..=periods {
        let state = rk4.y();
        let q: [f32; arm::NQ] = core::array::from_fn(|i| state[i]);
        let qd: [f32; arm::NV] = core::array::from_fn(|i| state[arm::NQ + i]);
        system.control = Held(computed_torque(&params, &q, &qd));
        rk4.advance_to(&mut system, k as f32 * PERIOD)?;
    }
    let state = rk4.y();
    Ok((0..arm::NV)
        .map(|k| (state[k] - TARGET[k]).abs())
        .fold(0.0, f32::max))
}

fn main() -> Result<(), IntegrationError> {
    let error = run(3.0)?;
    println!("largest joint error after 3 s of computed-torque control: {error:.2e} rad");
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_arm_reaches_its_target() {
        // e(t) = e(0) (1 + 5t) e^(−5t): after 3 s, 1.6e-6 of the start.
        let error = super::run(3.0).expect("runs");
        assert!(error < 1e-3, "error {error}");
    }
}
