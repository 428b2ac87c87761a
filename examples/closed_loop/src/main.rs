//! A mechanism with a closed loop from Rust: the four-bar of
//! `specs/four_bar.spec`, assembled with its crank (the independent
//! coordinate) at 1 rad, started at 5 rad/s with the other joints'
//! velocities from `dependent_velocities`, then 5 s of the constrained
//! dynamics with DOP853, the loop closed again after every step.

use sharnir_generated::four_bar as m;
use sharnir_runtime::adaptive::Dop853;
use sharnir_runtime::{
    assemble, model, ConstrainedSystem, LoopClosure, Model, Stepper, Tolerances, Trajectory,
};
use std::error::Error;

model!(FourBar = sharnir_generated::four_bar, loops);

/// The largest `|Ψ|` after any step and the energy drift relative to the
/// energy at the start.
fn run() -> Result<(f64, f64), Box<dyn Error>> {
    let model = FourBar::default();
    let mut q = m::INITIAL_POSITIONS;
    q[0] = 1.0;
    let q = assemble(&model, q, &m::INDEPENDENT, 1e-13)?;
    let qd = m::dependent_velocities(&m::Params::default(), &q, &[5.0])
        .map_err(|_| "the crank does not drive the linkage here")?;
    let mut y = [0.0; m::NQ + m::NV];
    y[..m::NQ].copy_from_slice(&q);
    y[m::NQ..].copy_from_slice(&qd);
    let energy = |y: &[f64]| {
        let q: [f64; m::NQ] = core::array::from_fn(|k| y[k]);
        let v: [f64; m::NV] = core::array::from_fn(|k| y[m::NQ + k]);
        let (t, v) = model.energy(&q, &v);
        t + v
    };
    let start = energy(&y);
    let mut system = ConstrainedSystem::new(model);
    let tolerances = Tolerances {
        rtol: 1e-10,
        atol: 1e-10,
    };
    let mut dop853 = Dop853::new(&mut system, 0.0, &y, tolerances)?;
    let (mut closure, mut drift) = (0.0_f64, 0.0_f64);
    while dop853.t() < 5.0 {
        dop853.step(&mut system, 5.0)?;
        let q: [f64; m::NQ] = core::array::from_fn(|k| dop853.y()[k]);
        closure = system
            .model
            .constraints(&q)
            .iter()
            .fold(closure, |c, x| c.max(x.abs()));
        drift = drift.max((energy(dop853.y()) - start).abs() / start.abs());
    }
    Ok((closure, drift))
}

fn main() -> Result<(), Box<dyn Error>> {
    let (closure, drift) = run()?;
    println!("5 s of the four-bar: largest |Ψ| {closure:.1e}, energy drift {drift:.1e}");
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_loop_stays_closed_and_the_energy_holds() {
        let (closure, drift) = super::run().expect("runs");
        assert!(closure < 1e-10, "Ψ {closure}");
        assert!(drift < 1e-7, "drift {drift}");
    }
}
