//! The top of every generated module: its constants (`NQ`, `NV`,
//! `COORDINATE_NAMES`, `NB`, `BODY_NAMES`, `QUATERNIONS`, the initial
//! state, a module with loops' `NC`, `CUT_JOINTS`, …, and `NBP` and
//! `BASE_PARAMETER_NAMES` with the base parameters), the types
//! `OpCount`, `Real`, `Params` and `Pose`, and the lints the module allows.

use crate::error::EmitError;
use crate::plan::Variant;
use crate::print::printer::float_literal;
use crate::render::detachments;
use crate::vocabulary::{BaseParameterFacts, Facts, LoopFacts};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

/// Constants, `OpCount` (with an `fma` field in fused variants), `Real`
/// (`f32` in single-precision variants) and `Params`.
pub(crate) fn preamble(facts: &Facts, variant: Variant) -> Result<TokenStream, EmitError> {
    let fma = variant.fused_multiply_add;
    let real = if variant.single_precision {
        quote!(f32)
    } else {
        quote!(f64)
    };
    let n = Literal::usize_unsuffixed(facts.dof);
    let nq = Literal::usize_unsuffixed(facts.nq);
    let names = &facts.coordinates;
    let positions = &facts.positions;
    let quaternion_count = Literal::usize_unsuffixed(facts.quaternions.len());
    let quaternions = facts
        .quaternions
        .iter()
        .map(|&i| Literal::usize_unsuffixed(i));
    let literals = |values: &[f64]| -> Result<Vec<TokenStream>, EmitError> {
        values.iter().map(|&x| float_literal(x)).collect()
    };
    let initial_positions = literals(&facts.initial_positions)?;
    let initial_velocities = literals(&facts.initial_velocities)?;
    let body_names = &facts.body_names;
    let nb = Literal::usize_unsuffixed(body_names.len());
    let fields: Vec<Ident> = facts
        .parameters
        .iter()
        .map(|(name, _)| Ident::new(name, Span::call_site()))
        .collect();
    let defaults: Vec<TokenStream> = facts
        .parameters
        .iter()
        .map(|(_, default)| float_literal(*default))
        .collect::<Result<_, _>>()?;
    let field_docs: Vec<String> = facts
        .parameters
        .iter()
        .map(|(name, default)| format!(" `{name}` (spec value {default})."))
        .collect();
    let loop_constants = facts.loops.as_ref().map(loop_constants);
    let motion_constants = crate::render::motion::constants(&facts.prescribed);
    let base_constants = facts.base_parameters.as_ref().map(base_constants);
    let drive_constants =
        (!facts.drive_parameters.is_empty()).then(|| drive_constants(&facts.drive_parameters));
    let contact_names = facts.contacts.iter().map(|c| c.name.as_str());
    let n_contacts = Literal::usize_unsuffixed(facts.contacts.len());
    let joint_forces = facts.joint_forces;
    let applied_forces = facts.applied_forces;
    let has_loops = facts.loops.is_some();
    let detachment_items = detachments::items(&facts.detachments)?;
    let (op_count_doc, fma_field) = if fma {
        (
            quote! {
                /// Arithmetic operations of one generated function (subtractions and
                /// negations count as additions, a fused multiply–add as one `fma` and
                /// neither a multiplication nor an addition).
            },
            quote! {
                /// Fused multiply–adds (`libm`'s `fma`).
                pub fma: u32,
            },
        )
    } else {
        (
            quote! {
                /// Arithmetic operations of one generated function (subtractions and
                /// negations count as additions).
            },
            TokenStream::new(),
        )
    };
    // `Default` is derived where it gives the spec's values (none, or all
    // +0.0), as clippy asks, and written out otherwise.
    let all_zero = facts
        .parameters
        .iter()
        .all(|(_, default)| default.to_bits() == 0.0_f64.to_bits());
    let (derive_default, default_impl) = if all_zero {
        (quote!(, Default), TokenStream::new())
    } else {
        (
            TokenStream::new(),
            quote! {
                impl Default for Params {
                    fn default() -> Self {
                        Params { #(#fields: #defaults,)* }
                    }
                }
            },
        )
    };
    let allowed = allowed_lints(facts);
    Ok(quote! {
        #![allow(#(#allowed),*)]

        /// The floating-point type of every input, output and parameter:
        /// change it to `f32` (or generate with `single_precision = true` in
        /// the spec) for single precision.
        pub type Real = #real;

        /// Number of position coordinates `q` (larger than `NV` when a
        /// spherical or free joint stores a quaternion).
        pub const NQ: usize = #nq;
        /// Number of velocity coordinates `qd` (and of accelerations and forces).
        pub const NV: usize = #n;
        /// Velocity coordinate names, in the order of `qd`, `qdd`, `tau` and
        /// the outputs.
        pub const COORDINATE_NAMES: [&str; NV] = [#(#names),*];
        /// Position coordinate names, in the order of `q`; the same as
        /// `COORDINATE_NAMES` unless a joint stores a quaternion.
        pub const POSITION_NAMES: [&str; NQ] = [#(#positions),*];
        /// Index in `q` of the first component (`qx`) of every unit quaternion
        /// (scalar last), which an integrator renormalises after each step.
        pub const QUATERNIONS: [usize; #quaternion_count] = [#(#quaternions),*];
        /// The spec's initial positions (`[initial]`; zeros and identity
        /// quaternions by default), in the order of `q`.
        pub const INITIAL_POSITIONS: [Real; NQ] = [#(#initial_positions),*];
        /// The spec's initial velocities (`[initial]`; zeros by default), in
        /// the order of `qd`.
        pub const INITIAL_VELOCITIES: [Real; NV] = [#(#initial_velocities),*];
        /// Number of moving bodies.
        pub const NB: usize = #nb;
        /// Body names in the order of `body_poses` and `body_jacobians`:
        /// every body after its parent.
        pub const BODY_NAMES: [&str; NB] = [#(#body_names),*];
        #loop_constants
        #motion_constants
        #drive_constants
        #base_constants
        /// Number of unilateral contacts of the joints (stops, clearances,
        /// gear flanks).
        pub const N_CONTACTS: usize = #n_contacts;
        /// Contact names (`<joint>.lower`, `<joint>.upper`,
        /// `<joint>.clearance`, `<joint>.flank+`, `<joint>.flank-`), in the
        /// order of `contact_gaps`.
        pub const CONTACT_NAMES: [&str; N_CONTACTS] = [#(#contact_names),*];
        /// Whether any joint applies a force of its own (`limit_forces` or
        /// `friction_forces` not identically zero): without any, and without
        /// `[forces]`, a passive motion conserves energy.
        pub const HAS_JOINT_FORCES: bool = #joint_forces;
        /// Whether the spec has a `[forces]` table (`applied_forces` is zero
        /// otherwise): what `sharnir_runtime::model!` reads, so that a
        /// model's forces cannot be left out.
        pub const HAS_APPLIED_FORCES: bool = #applied_forces;
        /// Whether the mechanism has closed loops (`NC`, `constraints`, …):
        /// its `forward_dynamics` is then its spanning tree's, and a
        /// simulation must close the loops (`sharnir_runtime::model!(…,
        /// loops)` refuses to compile without it).
        pub const HAS_LOOPS: bool = #has_loops;
        #detachment_items

        /// Where a body is: `p_ground = position + rotation · p_body`.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct Pose {
            /// Rotation from body to ground coordinates, row-major.
            pub rotation: [[Real; 3]; 3],
            /// Body-frame origin in ground coordinates.
            pub position: [Real; 3],
        }

        /// An `NV × NV` matrix over the velocity coordinates, row-major (row:
        /// output, column: coordinate): what the derivative functions and
        /// `mass_matrix_inverse` return.
        pub type JointMatrix = [[Real; NV]; NV];

        /// The joint-space terms of `M(q) q̈ + bias(q, q̇) = τ` at one state,
        /// computed together so that they share every subexpression.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct JointSpace {
            /// The mass matrix `M(q)`, row-major.
            pub mass_matrix: [[Real; NV]; NV],
            /// `C(q, q̇) q̇ + g(q)`.
            pub bias: [Real; NV],
            /// `g(q)`.
            pub gravity: [Real; NV],
        }

        #op_count_doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct OpCount {
            /// Multiplications.
            pub mul: u32,
            /// Additions, subtractions and negations.
            pub add: u32,
            /// Divisions.
            pub div: u32,
            /// Square roots.
            pub sqrt: u32,
            /// Sines.
            pub sin: u32,
            /// Cosines.
            pub cos: u32,
            /// Exponentials (the contact law of `limit_forces`).
            pub exp: u32,
            #fma_field
        }

        /// Runtime parameters of the mechanism; `Default` gives the spec's values.
        #[derive(Clone, Copy, Debug, PartialEq #derive_default)]
        pub struct Params {
            #(#[doc = #field_docs] pub #fields: Real,)*
        }

        #default_impl
    })
}

/// `ND` and `DRIVE_PARAMETER_NAMES`, in a module whose standard regressor
/// has drive parameters.
fn drive_constants(names: &[String]) -> TokenStream {
    let count = Literal::usize_unsuffixed(names.len());
    quote! {
        /// Number of drive parameters: the columns of `standard_regressor`
        /// after the `10 * NB` of the bodies.
        pub const ND: usize = #count;
        /// Drive parameter names, in the order of `standard_regressor`'s
        /// last `ND` columns: `<joint>.armature` (`<joint>.armature.<k>`
        /// per coordinate), `<joint>.damping`, `<joint>.friction`.
        pub const DRIVE_PARAMETER_NAMES: [&str; ND] = [#(#names),*];
    }
}

/// `NBP` and `BASE_PARAMETER_NAMES`, in a module with the base parameters.
fn base_constants(base: &BaseParameterFacts) -> TokenStream {
    let count = Literal::usize_unsuffixed(base.names.len());
    let names = &base.names;
    quote! {
        /// Number of base parameters (`NB` is the number of bodies): the
        /// length of `base_parameters` and the width of `regressor`.
        pub const NBP: usize = #count;
        /// Base parameter names, in the order of `base_parameters` and of
        /// `regressor`'s columns: `<body>.<parameter>` of the standard
        /// parameter each starts from (`m`, `mx`, `my`, `mz`, `xx`, `xy`,
        /// `yy`, `xz`, `yz`, `zz`), with `_r` when others are regrouped
        /// into it (the formulas are in the module header).
        pub const BASE_PARAMETER_NAMES: [&str; NBP] = [#(#names),*];
    }
}

/// The lints a module allows, each only where its code needs it:
/// `dead_code` always, since a module is a library of which its user calls
/// some functions, and pasted into a crate as a private module (the way
/// a controller takes it) the rest must not warn; `clippy::approx_constant`
/// always, since a literal that a spec's numbers
/// make equal to `1/√2` or `π/2` is a value, not a constant written out by
/// hand; `non_snake_case` where a parameter (a field of `Params`, and the
/// name of a sine of it) is not snake case, as the spec named it; and in a
/// module with loops, the lints of its hand-written solves, whose index
/// loops follow the textbook's and whose `!(x > 0.0)` is also true for NaN.
fn allowed_lints(facts: &Facts) -> Vec<TokenStream> {
    let mut allowed = vec![quote!(dead_code), quote!(clippy::approx_constant)];
    if facts
        .parameters
        .iter()
        .any(|(name, _)| name.chars().any(|c| c.is_ascii_uppercase()))
    {
        allowed.push(quote!(non_snake_case));
    }
    if facts.loops.is_some() {
        allowed.push(quote!(clippy::needless_range_loop));
        allowed.push(quote!(clippy::neg_cmp_op_on_partial_ord));
    }
    allowed
}

/// `NC`, `CUT_JOINTS`, `CONSTRAINT_NAMES` and `INDEPENDENT` of a module
/// with loops.
fn loop_constants(loops: &LoopFacts) -> TokenStream {
    let nc = Literal::usize_unsuffixed(loops.constraint_names.len());
    let n_cut = Literal::usize_unsuffixed(loops.cut_joints.len());
    let cut_joints = &loops.cut_joints;
    let names = &loops.constraint_names;
    let n_independent = Literal::usize_unsuffixed(loops.independent.len());
    let independent = loops
        .independent
        .iter()
        .map(|&i| Literal::usize_unsuffixed(i));
    quote! {
        /// Number of loop-closure constraints `Ψ(q) = 0` (rows that vanish
        /// identically are not counted).
        pub const NC: usize = #nc;
        /// Number of cut joints: one per independent kinematic loop.
        pub const N_CUT: usize = #n_cut;
        /// The cut joints, in the order of `cut_joint_reactions`.
        pub const CUT_JOINTS: [&str; N_CUT] = [#(#cut_joints),*];
        /// Constraint names (`<cut joint>.<component>`: `fx` a force along the
        /// joint frame's x axis, `my` a moment about its y axis, …), in the
        /// order of `constraints` and of the multipliers.
        pub const CONSTRAINT_NAMES: [&str; NC] = [#(#names),*];
        /// Velocity indices of the independent coordinates (the spec's
        /// `independent`), which assembly holds and actuators drive.
        pub const INDEPENDENT: [usize; #n_independent] = [#(#independent),*];
        /// An `NC × NV` matrix, one row per constraint (row-major): the
        /// constraint Jacobian's shape, and that of the multipliers' and the
        /// constraints' derivatives.
        pub type ConstraintMatrix = [[Real; NV]; NC];
    }
}
