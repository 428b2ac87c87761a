//! The contact law of a module's `limit_forces`, written around the
//! function's program (`plan/contacts.rs` plans the joints' own forces).
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

use crate::print::printer::float_literal;
use crate::vocabulary::ContactFacts;
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use sharnir_cas::OpCount;
use sharnir_mech::model::joint_forces::CONTACT_REACH;

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
