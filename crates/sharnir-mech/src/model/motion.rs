//! The coordinates `[motion]` prescribes, each with its law of time and the
//! law's first two derivatives, differentiated symbolically here.

use crate::model::inputs::Input;
use crate::model::lowering::ExprLowering;
use sharnir_cas::Id;
use sharnir_spec::{AppliedForce, Spec, SpecError};

/// One prescribed coordinate.
#[derive(Clone, Debug)]
pub struct Prescribed {
    /// The velocity coordinate's name.
    pub name: String,
    /// Its index among the velocity coordinates (`qd`, `qdd`, `tau`).
    pub velocity: usize,
    /// The index of its position in `q` (it is its position's rate).
    pub position: usize,
    /// The law `q(t)`, its rate `q̇(t)` and acceleration `q̈(t)`, in terms of
    /// `t` and the parameters.
    pub law: [Id; 3],
}

/// The spec's `[motion]` in spec order, lowered and differentiated twice in
/// time.
pub(crate) fn prescribed(
    spec: &Spec,
    lowering: &mut ExprLowering,
) -> Result<Vec<Prescribed>, SpecError> {
    let (positions, velocities) = spec.coordinate_names();
    let time = lowering.pool.input(Input::Time);
    let variables = [(AppliedForce::TIME.to_owned(), time)];
    let mut prescribed = Vec::with_capacity(spec.motion.len());
    for motion in &spec.motion {
        let (Some(velocity), Some(position)) = (
            velocities.iter().position(|v| *v == motion.coordinate),
            positions.iter().position(|p| *p == motion.coordinate),
        ) else {
            continue;
        };
        let value = lowering.expr_with(spec, &motion.law, &variables)?;
        let rate = lowering.pool.diff(value, time);
        let acceleration = lowering.pool.diff(rate, time);
        prescribed.push(Prescribed {
            name: motion.coordinate.clone(),
            velocity,
            position,
            law: [value, rate, acceleration],
        });
    }
    Ok(prescribed)
}
