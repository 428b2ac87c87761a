//! A moving base (`[base]`) as prescribed joints from the ground.
//!
//! The base frame's laws of motion become a chain of joints from the
//! ground, each driven by its law through `[motion]`: prismatic joints
//! along the ground's x, y and z for `xyz`, then revolute joints about z
//! (yaw), the new y (pitch) and the newest x (roll) for `rpy`, so that the
//! last frame is at `xyz` with `R = Rz(yaw) Ry(pitch) Rx(roll)` — or, for
//! `rotations`, revolute joints about each rotation's moving axis in turn.
//! Only the components that are not the number zero get a joint. The
//! bodies between them are massless and carry nothing: every joint of the
//! spec that hung on the ground hangs on the last of them. Their
//! coordinates (`base_x`, `base_y`, `base_z`, then `base_yaw`,
//! `base_pitch`, `base_roll`, or `base_rotation1`, `base_rotation2`, …)
//! come first; their drive forces are the forces and torques the base
//! applies to the mechanism along its own motion, and the dynamics take `t`
//! through the module's `mixed_dynamics`. In a mechanism with loops they
//! are independent coordinates.

use crate::document::{BaseTable, Document};
use crate::expr::{Expr, ExprKind};
use crate::model::{
    Body, ElementaryRotation, Independent, Inertia, Joint, JointKind, PrescribedMotion,
};

/// The base's joints in chain order: coordinate, kind, axis, and the law.
pub(crate) fn components(base: &BaseTable) -> Vec<(String, JointKind, [f64; 3], &Expr)> {
    const X: [f64; 3] = [1.0, 0.0, 0.0];
    const Y: [f64; 3] = [0.0, 1.0, 0.0];
    const Z: [f64; 3] = [0.0, 0.0, 1.0];
    let mut chain = Vec::new();
    if let Some([x, y, z]) = &base.xyz {
        chain.push(("base_x".to_owned(), JointKind::Prismatic, X, x));
        chain.push(("base_y".to_owned(), JointKind::Prismatic, Y, y));
        chain.push(("base_z".to_owned(), JointKind::Prismatic, Z, z));
    }
    if let Some([roll, pitch, yaw]) = &base.rpy {
        chain.push(("base_yaw".to_owned(), JointKind::Revolute, Z, yaw));
        chain.push(("base_pitch".to_owned(), JointKind::Revolute, Y, pitch));
        chain.push(("base_roll".to_owned(), JointKind::Revolute, X, roll));
    }
    for (k, rotation) in base.rotations.iter().enumerate() {
        let (axis, angle) = match rotation {
            ElementaryRotation::X(angle) => (X, angle),
            ElementaryRotation::Y(angle) => (Y, angle),
            ElementaryRotation::Z(angle) => (Z, angle),
            ElementaryRotation::AxisAngle { .. } | ElementaryRotation::Matrix(_) => continue,
        };
        let name = format!("base_rotation{}", k + 1);
        chain.push((name, JointKind::Revolute, axis, angle));
    }
    chain.retain(|(_, _, _, law)| !matches!(law.kind, ExprKind::Number(x) if x == 0.0));
    chain
}

/// Puts the chain of `[base]` between the ground and the mechanism of a
/// validated document.
pub(crate) fn expand(document: &mut Document) {
    let Some(base) = document.base.take() else {
        return;
    };
    let span = base.span;
    let chain = components(&base);
    let Some(last) = chain.last().map(|(name, ..)| name.clone()) else {
        return;
    };
    let zero = || Expr::number(0.0, span);
    let mut bodies = Vec::new();
    let mut joints = Vec::new();
    let mut motion = Vec::new();
    let mut parent = "ground".to_owned();
    for (coordinate, kind, axis, law) in &chain {
        let (coordinate, kind, axis) = (coordinate.as_str(), *kind, *axis);
        bodies.push(Body {
            name: coordinate.to_owned(),
            span,
            mass: zero(),
            com: [zero(), zero(), zero()],
            inertia: Inertia {
                xx: zero(),
                yy: zero(),
                zz: zero(),
                xy: zero(),
                xz: zero(),
                yz: zero(),
                span,
            },
            visuals: Vec::new(),
        });
        joints.push(Joint::written(
            coordinate,
            kind,
            axis,
            (&parent, coordinate),
            coordinate,
            span,
        ));
        motion.push(PrescribedMotion {
            coordinate: coordinate.to_owned(),
            span,
            law: (*law).clone(),
        });
        parent = coordinate.to_owned();
    }
    for joint in &mut document.joints {
        if joint.parent == "ground" {
            joint.parent = last.clone();
        }
    }
    if document.joints.iter().any(|j| j.cut) {
        document.independent.splice(
            0..0,
            chain.iter().map(|(name, ..)| Independent {
                name: name.clone(),
                span,
            }),
        );
    }
    document.moving_base = chain.iter().map(|(name, ..)| name.clone()).collect();
    document.bodies.splice(0..0, bodies);
    document.joints.splice(0..0, joints);
    document.motion.splice(0..0, motion);
}
