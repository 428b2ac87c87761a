//! The forces joints apply by themselves: stops at the bounds of `limits`,
//! the boundary of a `clearance`, the flanks of a `gear` mesh with
//! backlash, and viscous damping and dry friction.
//!
//! Every contact is a gap `g(q)`, positive while its surfaces are apart,
//! with the gap's gradient in the velocity coordinates and the contact law
//! of the joint-coordinate package (`F = max(0, k − μ ġ) e^{−a g}` along
//! the gradient). The law is not smooth, so the emitter writes it around
//! these expressions instead of the algebra core differentiating it; the
//! gaps themselves are the event functions that locate contacts.
//!
//! Damping and friction act on a joint's own rates, so they are plain
//! expressions: `−c ẋ − F_c ẋ / √(ẋ² + v²)` on every velocity coordinate of
//! the joint (through a follower's multiplier onto its leader).

use crate::model::inputs::Input;
use crate::model::lowering::ExprLowering;
use sharnir_cas::{Coeff, Id, Pool};
pub use sharnir_spec::CONTACT_REACH;
use sharnir_spec::{Clearance, ContactLaw, Joint, Spec, SpecError, DEFAULT_FRICTION_SPEED};

/// One unilateral contact of a joint.
#[derive(Clone, Debug)]
pub struct Contact {
    /// `<joint>.lower`, `<joint>.upper`, `<joint>.clearance`,
    /// `<joint>.flank+` or `<joint>.flank-`.
    pub name: String,
    /// The gap `g(q)`: positive while the surfaces are apart, negative
    /// while they overlap.
    pub gap: Id,
    /// `∂g/∂q̇`-weights: `ġ = Σ wᵢ q̇ᵢ` over (velocity index, weight), and
    /// the contact force `F` acts on coordinate `i` as `F wᵢ`.
    pub gradient: Vec<(usize, Id)>,
    /// `k`.
    pub stiffness: Id,
    /// `μ`.
    pub dissipation: Id,
    /// `a`.
    pub decay: Id,
}

/// The coordinate `x` of a revolute or prismatic joint and its gradient:
/// `q[i]` for a joint with a coordinate, `m q[leader] + offset` for a
/// follower; `firsts` is [`Spec::first_coordinates`].
fn joint_coordinate(
    spec: &Spec,
    lowering: &mut ExprLowering,
    firsts: &[(usize, usize)],
    index: usize,
) -> Result<(Id, Vec<(usize, Id)>), SpecError> {
    let joint = &spec.joints[index];
    match &joint.mimic {
        None => {
            let (position, velocity) = firsts[index];
            let one = lowering.pool.one();
            let x = lowering.pool.input(Input::Position(position));
            Ok((x, vec![(velocity, one)]))
        }
        Some(mimic) => {
            let leader = spec
                .joints
                .iter()
                .position(|j| j.name == mimic.joint)
                .unwrap_or(index);
            let (position, velocity) = firsts[leader];
            let multiplier = lowering.expr(spec, &mimic.multiplier)?;
            let offset = lowering.expr(spec, &mimic.offset)?;
            let pool = &mut lowering.pool;
            let leader_x = pool.input(Input::Position(position));
            let scaled = pool.mul(multiplier, leader_x);
            Ok((pool.add(scaled, offset), vec![(velocity, multiplier)]))
        }
    }
}

/// The contact law's three coefficients, lowered.
fn law(spec: &Spec, lowering: &mut ExprLowering, law: &ContactLaw) -> Result<[Id; 3], SpecError> {
    Ok([
        lowering.expr(spec, &law.stiffness)?,
        lowering.expr(spec, &law.dissipation)?,
        lowering.expr(spec, &law.decay)?,
    ])
}

/// A contact on the gap `gap` with the given gradient.
fn contact(name: String, gap: Id, gradient: Vec<(usize, Id)>, [k, mu, a]: [Id; 3]) -> Contact {
    Contact {
        name,
        gap,
        gradient,
        stiffness: k,
        dissipation: mu,
        decay: a,
    }
}

/// `gradient` scaled by `factor`.
fn scaled(pool: &mut Pool, gradient: &[(usize, Id)], factor: Coeff) -> Vec<(usize, Id)> {
    gradient
        .iter()
        .map(|&(i, w)| (i, pool.scale(factor, w)))
        .collect()
}

/// Every contact of the spec, joint by joint in spec order: lower then
/// upper stop, clearance, then the two flanks of a gear mesh.
pub(crate) fn contacts(
    spec: &Spec,
    lowering: &mut ExprLowering,
) -> Result<Vec<Contact>, SpecError> {
    let firsts = spec.first_coordinates();
    let mut contacts = Vec::new();
    for (index, joint) in spec.joints.iter().enumerate() {
        if let Some(limits) = &joint.limits {
            if let Some(stops) = &limits.stops {
                let coefficients = law(spec, lowering, stops)?;
                let (x, gradient) = joint_coordinate(spec, lowering, &firsts, index)?;
                if let Some(lower) = &limits.lower {
                    let lower = lowering.expr(spec, lower)?;
                    let gap = lowering.pool.sub(x, lower);
                    let name = format!("{}.lower", joint.name);
                    contacts.push(contact(name, gap, gradient.clone(), coefficients));
                }
                if let Some(upper) = &limits.upper {
                    let upper = lowering.expr(spec, upper)?;
                    let gap = lowering.pool.sub(upper, x);
                    let gradient = scaled(&mut lowering.pool, &gradient, Coeff::int(-1));
                    let name = format!("{}.upper", joint.name);
                    contacts.push(contact(name, gap, gradient, coefficients));
                }
            }
        }
        if let Some(clearance) = &joint.clearance {
            let name = format!("{}.clearance", joint.name);
            contacts.push(clearance_contact(
                spec,
                lowering,
                firsts[index],
                clearance,
                name,
            )?);
        }
        if let Some(gear) = &joint.gear {
            let coefficients = law(spec, lowering, &gear.law)?;
            let (x, own) = joint_coordinate(spec, lowering, &firsts, index)?;
            let driver = spec
                .joints
                .iter()
                .position(|j| j.name == gear.joint)
                .unwrap_or(index);
            let (driver_x, driver_gradient) = joint_coordinate(spec, lowering, &firsts, driver)?;
            let ratio = lowering.expr(spec, &gear.ratio)?;
            let offset = lowering.expr(spec, &gear.offset)?;
            let backlash = lowering.expr(spec, &gear.backlash)?;
            let pool = &mut lowering.pool;
            // s = x − (ratio · x_driver + offset), held in [−b/2, b/2].
            let driven = pool.mul(ratio, driver_x);
            let centre = pool.add(driven, offset);
            let play = pool.sub(x, centre);
            let half = pool.scale(Coeff::ratio(1, 2), backlash);
            let mut gradient = own;
            for (i, w) in driver_gradient {
                let w = pool.mul(ratio, w);
                gradient.push((i, pool.neg(w)));
            }
            let ahead = pool.sub(half, play);
            let behind = pool.add(half, play);
            let reversed = scaled(pool, &gradient, Coeff::int(-1));
            contacts.push(contact(
                format!("{}.flank+", joint.name),
                ahead,
                reversed,
                coefficients,
            ));
            contacts.push(contact(
                format!("{}.flank-", joint.name),
                behind,
                gradient,
                coefficients,
            ));
        }
    }
    Ok(contacts)
}

/// `g = c − √(x² + y²)` for the planar joint's translation `(x, y)`, whose
/// gradient `−(x, y)/r` points the contact force back to the centre.
fn clearance_contact(
    spec: &Spec,
    lowering: &mut ExprLowering,
    (position, velocity): (usize, usize),
    clearance: &Clearance,
    name: String,
) -> Result<Contact, SpecError> {
    let coefficients = law(spec, lowering, &clearance.law)?;
    let radius = lowering.expr(spec, &clearance.radius)?;
    let pool = &mut lowering.pool;
    let x = pool.input(Input::Position(position));
    let y = pool.input(Input::Position(position + 1));
    let (x2, y2) = (pool.powi(x, 2), pool.powi(y, 2));
    let r2 = pool.add(x2, y2);
    let r = pool.sqrt(r2);
    let gap = pool.sub(radius, r);
    let gradient = vec![
        (velocity, pool.diff(gap, x)),
        (velocity + 1, pool.diff(gap, y)),
    ];
    Ok(contact(name, gap, gradient, coefficients))
}

/// The damping and dry-friction forces, one per velocity coordinate (zero
/// where no joint has either); `None` when no joint has any.
pub(crate) fn friction_forces(
    spec: &Spec,
    lowering: &mut ExprLowering,
) -> Result<Option<Vec<Id>>, SpecError> {
    let nv: usize = spec.joints.iter().map(Joint::nv).sum();
    let zero = lowering.pool.zero();
    let mut forces = vec![zero; nv];
    let mut any = false;
    let firsts = spec.first_coordinates();
    for (index, joint) in spec.joints.iter().enumerate() {
        if joint.damping.is_none() && joint.friction.is_none() || joint.cut {
            continue;
        }
        let damping = match &joint.damping {
            Some(c) => lowering.expr(spec, c)?,
            None => zero,
        };
        let friction = match &joint.friction {
            Some(f) => lowering.expr(spec, f)?,
            None => zero,
        };
        let speed = match &joint.friction_speed {
            Some(v) => lowering.expr(spec, v)?,
            None => lowering
                .pool
                .num(Coeff::from_decimal_f64(DEFAULT_FRICTION_SPEED)),
        };
        // Each rate of the joint with the weights of its coordinates.
        let rates: Vec<Vec<(usize, Id)>> = if joint.mimic.is_some() {
            vec![joint_coordinate(spec, lowering, &firsts, index)?.1]
        } else {
            let one = lowering.pool.one();
            (0..joint.nv())
                .map(|k| vec![(firsts[index].1 + k, one)])
                .collect()
        };
        for weights in rates {
            let pool = &mut lowering.pool;
            let terms: Vec<Id> = weights
                .iter()
                .map(|&(i, w)| {
                    let v = pool.input(Input::Velocity(i));
                    pool.mul(w, v)
                })
                .collect();
            let rate = pool.sum(&terms);
            // −c ẋ − F_c ẋ / √(ẋ² + v²)
            let viscous = pool.mul(damping, rate);
            let rate2 = pool.powi(rate, 2);
            let speed2 = pool.powi(speed, 2);
            let norm2 = pool.add(rate2, speed2);
            let norm = pool.sqrt(norm2);
            let direction = pool.div(rate, norm);
            let dry = pool.mul(friction, direction);
            let resisting = pool.add(viscous, dry);
            for &(i, w) in &weights {
                let generalised = pool.mul(w, resisting);
                forces[i] = pool.sub(forces[i], generalised);
            }
            any = true;
        }
    }
    Ok(any.then_some(forces))
}
