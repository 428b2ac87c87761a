//! Where a released body starts in its variant module: the pose and
//! velocity its own frame has at the parent mechanism's initial state,
//! written as the coordinates of the free joint that carries it after the
//! release. So a variant's `INITIAL_POSITIONS` and `INITIAL_VELOCITIES`
//! are the parent's initial state mapped across a release at the start,
//! the same map the runtime's `release_state` applies during a simulation,
//! and never a body parked at the ground frame while its neighbours are
//! elsewhere.

use crate::geometry::jacobian::body_jacobians;
use crate::geometry::kinematics::body_frame_poses;
use crate::geometry::mobility::at_configuration;
use crate::model::{Mechanism, ParameterMode};
use sharnir_spec::{rotation_quaternion, Joint, ReleasedStart, Spec, SpecError};

/// This spec and every variant its detachable joints lead to
/// ([`Spec::with_variants`]), each released body starting where the
/// mechanism it is released from puts it at its initial state.
pub fn with_variants(spec: Spec) -> Result<Vec<Spec>, SpecError> {
    spec.with_variants(released_start)
}

/// The free-joint coordinates of the child of the detachable tree joint
/// `joint` at the initial state of `spec`: its frame's origin and unit
/// quaternion in the ground frame, and its origin's velocity and angular
/// velocity in its own axes, with the parameters at their spec values.
pub fn released_start(spec: &Spec, joint: &Joint) -> Result<ReleasedStart, SpecError> {
    let mut mechanism = Mechanism::from_spec(spec, ParameterMode::Runtime)?;
    let failed = |why: &str| {
        spec.error_at(
            joint.detach.as_ref().map_or(joint.span, |d| d.span),
            format!(
                "cannot place body `{}` after `{}` lets go: {why}",
                joint.child, joint.name
            ),
            "released here",
            "check the spec's [initial] and [parameters] values",
        )
    };
    let body = mechanism
        .bodies
        .iter()
        .position(|b| b.name == joint.child)
        .ok_or_else(|| failed("the body is not in the mechanism's tree"))?;
    let pose = body_frame_poses(&mut mechanism)[body];
    let jacobian = body_jacobians(&mut mechanism).swap_remove(body);
    let q = mechanism.initial_positions.clone();
    let env = at_configuration(&mechanism, &q);
    let mut roots: Vec<_> = pose.rotation.concat();
    roots.extend(pose.position);
    roots.extend(jacobian.iter().flatten());
    let values = mechanism
        .pool
        .eval(&roots, &env)
        .map_err(|_| failed("its pose does not evaluate"))?;
    let (rotation, rest) = values.split_at(9);
    let (position, entries) = rest.split_at(3);
    let rotation: [[f64; 3]; 3] = core::array::from_fn(|i| [0, 1, 2].map(|j| rotation[3 * i + j]));
    let nv = mechanism.dof();
    // The twist in ground axes, J q̇, then in the body's.
    let twist: Vec<f64> = entries
        .chunks(nv.max(1))
        .map(|row| {
            row.iter()
                .zip(&mechanism.initial_velocities)
                .map(|(j, v)| j * v)
                .sum()
        })
        .collect();
    let in_body = |x: &[f64]| -> [f64; 3] {
        core::array::from_fn(|i| (0..3).map(|k| rotation[k][i] * x[k]).sum())
    };
    let (linear, angular) = (in_body(&twist[..3]), in_body(&twist[3..6]));
    let [x, y, z, w] = rotation_quaternion(&rotation);
    let start = ReleasedStart {
        positions: [position[0], position[1], position[2], x, y, z, w],
        velocities: [
            linear[0], linear[1], linear[2], angular[0], angular[1], angular[2],
        ],
    };
    if start
        .positions
        .iter()
        .chain(&start.velocities)
        .all(|x| x.is_finite())
    {
        Ok(start)
    } else {
        Err(failed("its pose or velocity is not finite"))
    }
}
