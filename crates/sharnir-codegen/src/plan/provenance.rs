//! Where each function of a plan comes from: which formalism derived it
//! and why that one, recorded as data so that the header, `ops` and the
//! tests read the same decision instead of re-deriving it.

use super::cost::Cost;
use crate::method::{Method, Output};

/// A derivation that can produce a dynamics output: one of the methods, or
/// the composite-rigid-body algorithm, which derives nothing but the mass
/// matrix and so is no [`Method`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Formalism {
    /// The outputs of this method (read off its joint forces where it
    /// produces inverse dynamics).
    Method(Method),
    /// `sharnir_mech::formalisms::crba`: the mass matrix from composite inertias.
    CompositeRigidBody,
}

impl Formalism {
    /// The formalism's name in prose, for module headers.
    pub fn prose(self) -> &'static str {
        match self {
            Formalism::Method(method) => method.formalism(),
            Formalism::CompositeRigidBody => "the composite-rigid-body algorithm",
        }
    }

    /// The name `ops` lists it under (`newton-euler`, …, `crba`).
    pub fn name(self) -> &'static str {
        match self {
            Formalism::Method(method) => method.name(),
            Formalism::CompositeRigidBody => "crba",
        }
    }
}

/// Why the usual producer made an output instead of the method asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fallback {
    /// The method does not produce this output (Newton–Euler has no
    /// forward dynamics, the separate-bodies method no inverse dynamics).
    NotProduced,
    /// Coupled (follower) joints are outside the separate-bodies method,
    /// so the forward dynamics solve `M q̈ = τ − bias` instead.
    CoupledJoints,
}

/// How one function's formalism was decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Provenance {
    /// There is nothing to choose: kinematics, energy, the Coriolis matrix
    /// (always from Newton–Euler's bias), contacts, loops, reactions.
    Fixed,
    /// Derived by the method asked for (`--method`).
    Asked(Formalism),
    /// Derived by the usual producer, for the reason given, although
    /// another method was asked for.
    Fallback(Formalism, Fallback),
    /// The cheapest of every formalism that applies, each with the cost
    /// it was compared by ([`super::cost`]); ties go to the earlier
    /// candidate.
    Cheapest {
        /// The formalism taken.
        chosen: Formalism,
        /// Every candidate compared, in the order compared.
        candidates: Vec<(Formalism, Cost)>,
    },
}

impl Provenance {
    /// The formalism that produced the function; `None` for
    /// [`Provenance::Fixed`].
    pub fn formalism(&self) -> Option<Formalism> {
        match self {
            Provenance::Fixed => None,
            Provenance::Asked(f) | Provenance::Fallback(f, _) => Some(*f),
            Provenance::Cheapest { chosen, .. } => Some(*chosen),
        }
    }

    /// The provenance of an output when `method` is asked for and
    /// `producer` made it.
    pub(crate) fn of_method(method: Method, output: Output, producer: Method) -> Provenance {
        let formalism = Formalism::Method(producer);
        if producer == method {
            Provenance::Asked(formalism)
        } else if producer != method.producer(output) {
            Provenance::Fallback(formalism, Fallback::CoupledJoints)
        } else {
            Provenance::Fallback(formalism, Fallback::NotProduced)
        }
    }

    /// The provenance in a module's header note: the formalism in prose and,
    /// for a fallback, why.
    fn prose(&self) -> String {
        let formalism = self.formalism().map_or("", Formalism::prose);
        let why = match self {
            Provenance::Fallback(_, Fallback::CoupledJoints) => {
                " (coupled joints rule out the separate-bodies method)"
            }
            Provenance::Fallback(_, Fallback::NotProduced) => {
                " (the default; this method does not produce it)"
            }
            _ => "",
        };
        format!("{formalism}{why}")
    }
}

/// How a plan's dynamics outputs were selected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    /// Output by output, the cheapest formalism (the default).
    Cheapest,
    /// The outputs this method produces by it, the rest by their usual
    /// producers (`--method`).
    Method(Method),
}

/// The header paragraph (`//!` lines) that says which formalism made each
/// dynamics output; `provenance` finds a function's provenance by name,
/// `None` for a function the module does not have, which gets no line.
pub(crate) fn header_note(
    selection: Selection,
    provenance: &dyn Fn(&str) -> Option<Provenance>,
) -> String {
    let of = |function: &str| provenance(function).map(|p| p.prose());
    let line = |functions: &str, prose: Option<String>| {
        prose.map_or_else(String::new, |p| format!("//! - {functions}: {p}.\n"))
    };
    match selection {
        Selection::Cheapest => [
            "//! Each dynamics output by the formalism whose code is cheapest (`sharnir ops`\n\
             //! compares them all):\n"
                .to_owned(),
            line("`inverse_dynamics`", of("inverse_dynamics")),
            line("`mass_matrix`", of("mass_matrix")),
            line("`bias`", of("bias")),
            line("`gravity`", of("gravity")),
            line(
                "`joint_space`",
                of("joint_space")
                    .map(|p| format!("its mass matrix by {p}, bias and gravity as above")),
            ),
            line("`forward_dynamics`", of("forward_dynamics")),
        ]
        .concat(),
        Selection::Method(method) => [
            format!("//! Method `{}` (`sharnir gen --method`):\n", method.name()),
            line("`inverse_dynamics`", of("inverse_dynamics")),
            line(
                "`mass_matrix`, `bias`, `gravity`",
                of("mass_matrix").or_else(|| of("bias")),
            ),
            line("`forward_dynamics`", of("forward_dynamics")),
        ]
        .concat(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The note of a module made with `method`, whose forward dynamics
    /// came from `forward`.
    fn note(method: Method, forward: Method) -> String {
        header_note(Selection::Method(method), &|function| {
            let output = match function {
                "inverse_dynamics" => Output::InverseDynamics,
                "forward_dynamics" => {
                    return Some(Provenance::of_method(
                        method,
                        Output::ForwardDynamics,
                        forward,
                    ))
                }
                _ => Output::JointSpace,
            };
            Some(Provenance::of_method(
                method,
                output,
                method.producer(output),
            ))
        })
    }

    #[test]
    fn a_method_note_says_why_another_formalism_made_an_output() {
        let v = note(Method::Vereshchagin, Method::Vereshchagin);
        assert!(v.contains(
            "- `inverse_dynamics`: recursive Newton–Euler (the default; this method does not produce it)."
        ));
        assert!(v.contains("- `forward_dynamics`: Vereshchagin's separate-bodies method.\n"));
        assert!(!note(Method::Lagrange, Method::Lagrange).contains("does not produce"));
        assert!(note(Method::NewtonEuler, Method::Lagrange)
            .contains("(coupled joints rule out the separate-bodies method)"));
    }

    #[test]
    fn provenance_names_its_formalism() {
        let crba = Provenance::Cheapest {
            chosen: Formalism::CompositeRigidBody,
            candidates: vec![(Formalism::CompositeRigidBody, Cost::Lowered(3))],
        };
        assert_eq!(crba.formalism(), Some(Formalism::CompositeRigidBody));
        assert_eq!(Provenance::Fixed.formalism(), None);
        assert_eq!(Formalism::CompositeRigidBody.name(), "crba");
    }
}
