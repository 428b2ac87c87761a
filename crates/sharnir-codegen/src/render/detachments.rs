//! Detachable joints in a module: `N_DETACHABLE` and the `Detachment`
//! table that names each joint's variant module with its release condition
//! and state map (`plan/detachments.rs` plans `joint_reactions`, the
//! reactions the conditions watch).
//! Emitted only by modules of mechanisms with detachable joints; the
//! runtime's `detachments!` reads them.

use crate::error::EmitError;
use crate::print::printer::float_literal;
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use sharnir_mech::model::detachment::{Detachment, ReleaseCondition};

/// The constants and types describing `detachments`; nothing when empty.
/// Fails on a threshold that is not finite.
pub(crate) fn items(detachments: &[Detachment]) -> Result<TokenStream, EmitError> {
    if detachments.is_empty() {
        return Ok(TokenStream::new());
    }
    let n = Literal::usize_unsuffixed(detachments.len());
    let entries = detachments
        .iter()
        .map(|d| -> Result<TokenStream, EmitError> {
            let joint = &d.joint;
            let variant = &d.variant;
            let (variant_name, number, component) = match d.condition {
                ReleaseCondition::At(time) => ("At", time, None),
                ReleaseCondition::Above {
                    component,
                    threshold,
                } => ("Above", threshold, Some(component)),
                ReleaseCondition::Below {
                    component,
                    threshold,
                } => ("Below", threshold, Some(component)),
            };
            let kind = proc_macro2::Ident::new(variant_name, proc_macro2::Span::call_site());
            let number = float_literal(number)?;
            let release = match component.map(Literal::usize_unsuffixed) {
                Some(c) => quote!(Release::#kind(#c, #number)),
                None => quote!(Release::#kind(#number)),
            };
            let body = match d.body {
                Some(b) => {
                    let b = Literal::usize_unsuffixed(b);
                    quote!(Some(#b))
                }
                None => quote!(None),
            };
            let (p0, pn) = (
                Literal::usize_unsuffixed(d.positions.0),
                Literal::usize_unsuffixed(d.positions.1),
            );
            let (v0, vn) = (
                Literal::usize_unsuffixed(d.velocities.0),
                Literal::usize_unsuffixed(d.velocities.1),
            );
            Ok(quote! {
                Detachment {
                    joint: #joint,
                    variant: #variant,
                    release: #release,
                    body: #body,
                    positions: (#p0, #pn),
                    velocities: (#v0, #vn),
                }
            })
        });
    let entries = entries.collect::<Result<Vec<_>, _>>()?;
    Ok(quote! {
        /// Number of joints that let go during a simulation.
        pub const N_DETACHABLE: usize = #n;

        /// When a detachable joint lets go.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Release {
            /// At this time (s).
            At(Real),
            /// When component `.0` of `joint_reactions` (fx fy fz mx my mz)
            /// rises through `.1`.
            Above(usize, Real),
            /// When component `.0` of `joint_reactions` falls through `.1`.
            Below(usize, Real),
        }

        /// A joint that lets go, and the module the mechanism continues in:
        /// every structure is generated ahead of time, so a simulation
        /// switches modules at the release and derives nothing.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct Detachment {
            /// The joint's name.
            pub joint: &'static str,
            /// The variant module (a sibling of this one) without the joint.
            pub variant: &'static str,
            /// When it lets go.
            pub release: Release,
            /// For a tree joint, the index in `BODY_NAMES` of its child,
            /// which moves on a free joint in the variant; `None` for a cut
            /// joint, whose variant has the same coordinates.
            pub body: Option<usize>,
            /// The joint's coordinates in `q` (first index, count): the
            /// variant's free joint takes their place with seven (position,
            /// then the unit quaternion `[x, y, z, w]`).
            pub positions: (usize, usize),
            /// The joint's coordinates in `qd` (first index, count): the
            /// free joint takes their place with six (linear, then angular
            /// velocity, both in the body frame).
            pub velocities: (usize, usize),
        }

        /// The detachable joints, in spec order.
        pub const DETACHMENTS: [Detachment; N_DETACHABLE] = [#(#entries),*];
    })
}
