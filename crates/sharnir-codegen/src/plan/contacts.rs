//! The joints' own forces as functions to plan: `contact_gaps`,
//! `limit_forces` and `friction_forces`, in every module (zeros when the
//! spec has no stops, clearances, gear meshes, damping or friction) so that
//! the runtime adds them without knowing which modules have any; and the
//! facts of every contact that the law written around `limit_forces`
//! (`contacts.rs`) reads.

use crate::vocabulary::{Argument, ContactFacts, FunctionSpec, Shape};
use sharnir_cas::{Coeff, Id};
use sharnir_mech::model::joint_forces::CONTACT_REACH;
use sharnir_mech::{Input, Mechanism};

/// The facts of every contact of `mechanism`, in the order of its
/// `contacts`.
pub(crate) fn facts(mechanism: &Mechanism) -> Vec<ContactFacts> {
    mechanism
        .contacts
        .iter()
        .map(|contact| ContactFacts {
            name: contact.name.clone(),
            weights: contact
                .gradient
                .iter()
                .map(|&(i, w)| (i, unit_sign(mechanism, w)))
                .collect(),
            dissipative: mechanism
                .pool
                .as_num(contact.dissipation)
                .is_none_or(|mu| !mu.is_zero()),
        })
        .collect()
}

/// `Some(±1)` when `w` is exactly one or minus one.
fn unit_sign(mechanism: &Mechanism, w: Id) -> Option<i8> {
    match mechanism.pool.as_num(w) {
        Some(c) if c == Coeff::int(1) => Some(1),
        Some(c) if c == Coeff::int(-1) => Some(-1),
        _ => None,
    }
}

/// `contact_gaps`, `limit_forces` and `friction_forces` for `mechanism`.
pub(crate) fn functions(mechanism: &mut Mechanism) -> Vec<FunctionSpec> {
    use Argument::{Position, Velocity};
    let contacts = mechanism.contacts.clone();
    let gaps = contacts.iter().map(|c| c.gap).collect();
    let mut terms = Vec::new();
    for contact in &contacts {
        let pool = &mut mechanism.pool;
        let rates: Vec<Id> = contact
            .gradient
            .iter()
            .map(|&(i, w)| {
                let v = pool.input(Input::Velocity(i));
                pool.mul(w, v)
            })
            .collect();
        let rate = pool.sum(&rates);
        terms.extend([
            contact.gap,
            rate,
            contact.stiffness,
            contact.dissipation,
            contact.decay,
        ]);
        for &(_, w) in &contact.gradient {
            if unit_sign(mechanism, w).is_none() {
                terms.push(w);
            }
        }
    }
    let zero = mechanism.pool.zero();
    let friction = mechanism
        .friction_forces
        .clone()
        .unwrap_or_else(|| vec![zero; mechanism.dof()]);
    vec![
        FunctionSpec {
            name: "contact_gaps".to_owned(),
            doc: "The gap of every contact (`CONTACT_NAMES`): the distance to a joint's stop, to\n\
                  a clearance's boundary or between a gear mesh's flanks, positive while apart\n\
                  and negative while the contact is pressed in. A contact begins where its gap\n\
                  crosses zero downwards: these are the event functions that locate contacts."
                .to_owned(),
            arguments: vec![Position],
            shape: Shape::ContactVector,
            outputs: gaps,
        },
        FunctionSpec {
            name: "limit_forces".to_owned(),
            doc: format!(
                "The joint forces of the stops, clearances and gear meshes: each contact pushes\n\
                 its gap `g` open with `F = max(0, k − μ ġ) e^{{−a g}}` (the joint-coordinate\n\
                 package's law; it never pulls), dropped where `a g > {CONTACT_REACH}` (below 1e-12 of the\n\
                 force at zero gap). Add them to `tau`, with `friction_forces`, before\n\
                 `forward_dynamics`. The operation count is that with every contact engaged."
            ),
            arguments: vec![Position, Velocity],
            shape: Shape::LimitForces,
            outputs: terms,
        },
        FunctionSpec {
            name: "friction_forces".to_owned(),
            doc: "The joints' viscous damping and dry friction: `−c ẋ − F_c ẋ / √(ẋ² + v²)` on\n\
                  every rate of a joint with `damping` `c` or `friction` `F_c` (the dry friction\n\
                  regularised below the speed `v`, the joint's `friction_speed`, 1e-3 by\n\
                  default). Add them to `tau` before `forward_dynamics`."
                .to_owned(),
            arguments: vec![Position, Velocity],
            shape: Shape::JointVector,
            outputs: friction,
        },
    ]
}
