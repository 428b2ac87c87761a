//! Which formalism derives the dynamics outputs of a generated module.
//!
//! The same equations of motion can be derived several ways, and the
//! derivations differ in what the emitted code costs; choosing one lets the
//! op counts of the formalisms be compared on the same mechanism, and each
//! checks the others. Without `--method`, every output comes from the
//! formalism whose code is cheapest for that mechanism (`generate`). With
//! it, the method produces the outputs it is meaningful for and every other
//! output comes from its usual producer; the module header says which made
//! what:
//!
//! | output | `newton-euler` | `vereshchagin` | `lagrange` | `telegin` (serial chains) |
//! |---|---|---|---|---|
//! | `inverse_dynamics` | Newton–Euler | (Newton–Euler) | `M q̈ + bias` | direction cosines |
//! | `mass_matrix`, `bias`, `gravity` | read off Newton–Euler | (read off Newton–Euler) | `Σ BᵀMB`, `Bᵀ(M Ḃ q̇ − g)` | read off Telegin's τ |
//! | `forward_dynamics` | (Vereshchagin) | Vereshchagin | `L D Lᵀ` solve of `M q̈ = τ − bias` | (Vereshchagin) |
//!
//! Without `--method`, `mass_matrix` and the mass matrix inside
//! `joint_space` have one more candidate, the composite-rigid-body
//! algorithm (`sharnir_mech::formalisms::crba`); it derives nothing else, so it is no
//! method here.
//!
//! Newton–Euler is an inverse-dynamics recursion and the separate-bodies
//! method a forward-dynamics one, so `newton-euler` and `vereshchagin`
//! produce the same module and differ only in their headers. The other
//! outputs (`coriolis_matrix`, energy, poses, rates, Jacobians) do not
//! depend on the method.

use std::fmt;
use std::str::FromStr;

/// A formalism that derives the dynamics outputs of a module.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Method {
    /// The recursive Newton–Euler inverse dynamics
    /// (`sharnir_mech::formalisms::rnea`), with M, bias and gravity read off it: the
    /// default for those outputs.
    #[default]
    NewtonEuler,
    /// Vereshchagin's separate-bodies forward dynamics
    /// (`sharnir_mech::formalisms::vereshchagin`): the default for `forward_dynamics`.
    Vereshchagin,
    /// The joint-coordinate (Lagrange) formalism of Sukhov and Chekina (2024)
    /// (`sharnir_mech::formalisms::lagrange`), producing every dynamics output.
    Lagrange,
    /// Telegin's direction-cosine formalism (`sharnir_mech::formalisms::telegin`) for
    /// serial chains: inverse dynamics, and M, bias and gravity read off it.
    Telegin,
}

/// A dynamics output whose producer depends on the method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Output {
    /// `inverse_dynamics`.
    InverseDynamics,
    /// `mass_matrix`, `bias` and `gravity`, which are always derived together.
    JointSpace,
    /// `forward_dynamics`.
    ForwardDynamics,
}

impl Method {
    /// Every method, in the order the command line lists them.
    pub const ALL: [Method; 4] = [
        Method::NewtonEuler,
        Method::Vereshchagin,
        Method::Lagrange,
        Method::Telegin,
    ];

    /// The name on the command line and in module headers.
    pub fn name(self) -> &'static str {
        match self {
            Method::NewtonEuler => "newton-euler",
            Method::Vereshchagin => "vereshchagin",
            Method::Lagrange => "lagrange",
            Method::Telegin => "telegin",
        }
    }

    /// Whether this method derives `output` itself rather than leaving it
    /// to the default.
    pub fn produces(self, output: Output) -> bool {
        match self {
            Method::NewtonEuler => output != Output::ForwardDynamics,
            Method::Vereshchagin => output == Output::ForwardDynamics,
            Method::Lagrange => true,
            Method::Telegin => output != Output::ForwardDynamics,
        }
    }

    /// The method that derives `output` when this one is chosen: itself if
    /// it can, the default producer otherwise.
    pub fn producer(self, output: Output) -> Method {
        if self.produces(output) {
            self
        } else if output == Output::ForwardDynamics {
            Method::Vereshchagin
        } else {
            Method::NewtonEuler
        }
    }

    /// The formalism's name in prose, for module headers.
    pub fn formalism(self) -> &'static str {
        match self {
            Method::NewtonEuler => "recursive Newton–Euler",
            Method::Vereshchagin => "Vereshchagin's separate-bodies method",
            Method::Lagrange => "the joint-coordinate (Lagrange) formalism",
            Method::Telegin => "Telegin's direction-cosine formalism",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A method name that is not one of [`Method::ALL`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownMethod(pub String);

impl fmt::Display for UnknownMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
        write!(
            f,
            "unknown method `{}`: expected one of {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownMethod {}

impl FromStr for Method {
    type Err = UnknownMethod;

    fn from_str(s: &str) -> Result<Method, UnknownMethod> {
        Method::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| UnknownMethod(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for method in Method::ALL {
            assert_eq!(method.to_string().parse::<Method>(), Ok(method));
        }
        assert_eq!(
            "lagrangian".parse::<Method>(),
            Err(UnknownMethod("lagrangian".into()))
        );
    }

    #[test]
    fn unproduced_outputs_fall_back_to_the_default_producers() {
        use Output::*;
        let v = Method::Vereshchagin;
        assert_eq!(v.producer(InverseDynamics), Method::NewtonEuler);
        assert_eq!(v.producer(JointSpace), Method::NewtonEuler);
        assert_eq!(v.producer(ForwardDynamics), Method::Vereshchagin);
        let ne = Method::NewtonEuler;
        assert_eq!(ne.producer(ForwardDynamics), Method::Vereshchagin);
        for output in [InverseDynamics, JointSpace, ForwardDynamics] {
            assert_eq!(Method::Lagrange.producer(output), Method::Lagrange);
            assert_eq!(
                Method::default().producer(output),
                Method::Vereshchagin.producer(output)
            );
        }
    }
}
