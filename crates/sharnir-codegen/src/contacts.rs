//! The joints' own forces in a module: `contact_gaps`, `limit_forces` and
//! `friction_forces`, emitted in every module (zeros when the spec has no
//! stops, clearances, gear meshes, damping or friction) so that the runtime
//! adds them without knowing which modules have any.
//!
//! `limit_forces` is a straight-line program for every contact's gap `g`,
//! its rate `ġ`, the law's `k`, `μ`, `a` and the gap's gradient, with the
//! contact law written around it:
//!
//! ```text
//! z = a g;  if z < CONTACT_REACH and k − μ ġ > 0:  F = (k − μ ġ) e^{−z},  τ += F ∇g
//! ```
//!
//! The law is clamped so that a contact never pulls, and skipped beyond
//! [`CONTACT_REACH`] (27.7), where `e^{−z}` is below `1e-12`: the skipped force is less
//! than `1e-12` of the force the contact would exert at zero gap at the same
//! speed. A contact far from its boundary so costs one multiplication and
//! one comparison; the operation counts are those with every contact
//! engaged.

use crate::module::{Argument, FunctionSpec, Shape};
use crate::printer::float_literal;
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use sharnir_cas::{Coeff, Id, OpCount};
use sharnir_mech::model::joint_forces::CONTACT_REACH;
use sharnir_mech::{Input, Mechanism};

/// What the emitted law needs to know about one contact beyond its program
/// outputs.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactFacts {
    /// `<joint>.lower`, `<joint>.clearance`, …
    pub name: String,
    /// The gradient's entries: velocity index, and `Some(±1)` for a unit
    /// weight written as a sign, `None` for a weight the program computes.
    pub weights: Vec<(usize, Option<i8>)>,
    /// Whether the law's `μ` may be nonzero: without it the law is
    /// `F = k e^{−a g}`, and `k − μ ġ` is neither printed nor counted.
    pub dissipative: bool,
}

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

/// Operations the law adds to the program of `limit_forces`, every contact
/// engaged: `a g`, `−z`, `k − μ ġ` (where `μ` is not zero), the product
/// with the exponential, and per gradient entry an addition (and a
/// multiplication by a weight that is not a sign).
pub(crate) fn law_ops(contacts: &[ContactFacts]) -> OpCount {
    let mut ops = OpCount::default();
    for contact in contacts {
        let weighted = contact.weights.iter().filter(|(_, s)| s.is_none()).count();
        let entries = contact.weights.len();
        let dissipation = u32::from(contact.dissipative);
        ops.mul += 2 + dissipation + u32::try_from(weighted).unwrap_or(u32::MAX);
        ops.add += 1 + dissipation + u32::try_from(entries).unwrap_or(u32::MAX);
        ops.exp += 1;
    }
    ops
}

/// The body of `limit_forces` from the printed program outputs (per
/// contact: `g`, `ġ`, `k`, `μ`, `a`, then the computed weights), one block
/// per contact in the order of `CONTACT_NAMES`.
pub(crate) fn law_value(contacts: &[ContactFacts], outputs: &[TokenStream]) -> TokenStream {
    if contacts.is_empty() {
        return quote!([0.0; NV]);
    }
    // A finite constant, so never the empty fallback (which would not parse).
    let cutoff = float_literal(CONTACT_REACH).unwrap_or_default();
    let mut rest = outputs;
    let mut blocks = Vec::with_capacity(contacts.len());
    for contact in contacts {
        let weighted = contact.weights.iter().filter(|(_, s)| s.is_none()).count();
        let take = (5 + weighted).min(rest.len());
        let (mine, tail) = rest.split_at(take);
        rest = tail;
        let [g, rate, k, mu, a] = [0, 1, 2, 3, 4].map(|i| mine.get(i).cloned().unwrap_or_default());
        let mut computed = mine.iter().skip(5);
        let updates: Vec<TokenStream> = contact
            .weights
            .iter()
            .map(|&(i, sign)| {
                let i = Literal::usize_unsuffixed(i);
                match sign {
                    Some(1) => quote!(tau[#i] += force;),
                    Some(_) => quote!(tau[#i] -= force;),
                    None => {
                        let w = computed.next().cloned().unwrap_or_default();
                        quote!(tau[#i] += force * (#w);)
                    }
                }
            })
            .collect();
        let (bound, push) = if contact.dissipative {
            (quote!((gap, rate)), quote!(#k - #mu * rate))
        } else {
            (quote!((gap, _)), k)
        };
        blocks.push(quote! {
            {
                let #bound = (#g, #rate);
                let z = #a * gap;
                if z < #cutoff {
                    let push = #push;
                    if push > 0.0 {
                        let force = push * libm::Libm::<Real>::exp(-z);
                        #(#updates)*
                    }
                }
            }
        });
    }
    quote! {
        let mut tau: [Real; NV] = [0.0; NV];
        #(#blocks)*
        tau
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contact(dissipative: bool) -> ContactFacts {
        ContactFacts {
            name: "slider.lower".to_owned(),
            weights: vec![(0, Some(1)), (1, None)],
            dissipative,
        }
    }

    #[test]
    fn a_law_without_dissipation_neither_prints_nor_counts_it() {
        let outputs: Vec<TokenStream> = ["g", "r", "k", "mu", "a", "w"]
            .iter()
            .map(|s| s.parse().expect("an identifier"))
            .collect();
        let with = law_value(&[contact(true)], &outputs).to_string();
        let without = law_value(&[contact(false)], &outputs).to_string();
        assert!(with.contains("k - mu * rate"), "{with}");
        assert!(
            !without.contains("rate") && without.contains("let push = k ;"),
            "{without}"
        );
        let (with, without) = (law_ops(&[contact(true)]), law_ops(&[contact(false)]));
        // a g, the product with e^{−z}, the weight w; −z and two entries.
        assert_eq!((without.mul, without.add, without.exp), (3, 3, 1));
        assert_eq!((with.mul - without.mul, with.add - without.add), (1, 1));
    }
}
