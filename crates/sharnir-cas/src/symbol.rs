//! The inputs an expression reads, as typed symbols.
//!
//! A [`Node::Symbol`](crate::Node::Symbol) and a
//! [`Term::Input`](crate::Term::Input) hold a [`Symbol`]: what the
//! derivation means by it (a parameter, a joint coordinate, a velocity, …),
//! not a name to be parsed back. The emitter matches on it to write the Rust
//! that reads the input, evaluation environments match on it to find its
//! value, and nothing on the way formats or parses a string. The names
//! (`p.m1`, `q[0]`, …) remain for people: [`Symbol`]'s `Display` writes them
//! (in error messages, debugging output and the local names of sines and
//! cosines, `s_q0`), and [`Symbol::parse`] reads them back for tests and
//! tools that build expressions by name.

use std::fmt;

/// An input of a generated function, or a scratch symbol of its own.
///
/// Every variant but [`Symbol::Named`] is something the emitted code reads
/// (a field of `Params`, an element of `q`, …); `Named` is for symbols that
/// never reach the emitter — the cost model's provisional parameter groups,
/// the variables of tests — and the emitter refuses it.
///
/// The name a symbol displays as and the symbol are in one-to-one
/// correspondence ([`Symbol::parse`] is the inverse of `Display`), so
/// interning symbols in a pool identifies exactly the expressions that
/// interning their names did.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Symbol {
    /// A runtime parameter (a field of the generated `Params`), `p.{name}`.
    Parameter(String),
    /// Joint position `q[i]`, in coordinate order.
    Position(usize),
    /// Joint velocity `qd[i]`.
    Velocity(usize),
    /// Joint acceleration `qdd[i]`.
    Acceleration(usize),
    /// Joint force `tau[i]` (torque for a revolute joint).
    Force(usize),
    /// The `k`-th constant group of parameters, `d.k{k}`, computed once by
    /// the generated `Params::derived`.
    Derived(usize),
    /// Time, `t`: read only by the applied forces of `[forces]`.
    Time,
    /// Multiplier `lambda[i]` of loop-closure constraint `i`: read only by
    /// the cut joints' reactions.
    Multiplier(usize),
    /// Base parameter `beta[i]`, in the order of the module's
    /// `BASE_PARAMETER_NAMES`: read only by the inverse dynamics written in
    /// the base parameters, whose caller passes an identified `β`.
    BaseParameter(usize),
    /// Any other name: a scratch symbol that is no input of a generated
    /// function (never one of the names above, see [`Symbol::parse`]).
    Named(String),
}

impl Symbol {
    /// The symbol a name stands for: the inverse of `Display`. A name that
    /// is no input's (`x`, `cost.k0`, and also `q[01]` or `d.k+1`, which no
    /// input displays as) is [`Symbol::Named`], so that each name is one
    /// symbol and each symbol one name.
    pub fn parse(name: &str) -> Symbol {
        Symbol::input(name).unwrap_or_else(|| Symbol::Named(name.to_owned()))
    }

    /// The input `name` is the display name of, if any.
    fn input(name: &str) -> Option<Symbol> {
        if name == "t" {
            return Some(Symbol::Time);
        }
        if let Some(name) = name.strip_prefix("p.") {
            return Some(Symbol::Parameter(name.to_owned()));
        }
        if let Some(k) = name.strip_prefix("d.k") {
            return index(k).map(Symbol::Derived);
        }
        let (array, rest) = name.split_once('[')?;
        let i = index(rest.strip_suffix(']')?)?;
        match array {
            "q" => Some(Symbol::Position(i)),
            "qd" => Some(Symbol::Velocity(i)),
            "qdd" => Some(Symbol::Acceleration(i)),
            "tau" => Some(Symbol::Force(i)),
            "lambda" => Some(Symbol::Multiplier(i)),
            "beta" => Some(Symbol::BaseParameter(i)),
            _ => None,
        }
    }
}

/// An index written as `Display` writes a `usize`: decimal digits without
/// a sign or a leading zero (other spellings would make two names of one
/// symbol).
fn index(digits: &str) -> Option<usize> {
    let canonical =
        digits.bytes().all(|b| b.is_ascii_digit()) && (digits == "0" || !digits.starts_with('0'));
    if canonical {
        digits.parse().ok()
    } else {
        None
    }
}

/// The symbol's name: `p.m1`, `q[0]`, `qd[0]`, `qdd[0]`, `tau[0]`, `d.k0`,
/// `t`, `lambda[0]`, `beta[0]`, or a named symbol's own name.
impl fmt::Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Symbol::Parameter(name) => write!(f, "p.{name}"),
            Symbol::Position(i) => write!(f, "q[{i}]"),
            Symbol::Velocity(i) => write!(f, "qd[{i}]"),
            Symbol::Acceleration(i) => write!(f, "qdd[{i}]"),
            Symbol::Force(i) => write!(f, "tau[{i}]"),
            Symbol::Derived(k) => write!(f, "d.k{k}"),
            Symbol::Time => f.write_str("t"),
            Symbol::Multiplier(i) => write!(f, "lambda[{i}]"),
            Symbol::BaseParameter(i) => write!(f, "beta[{i}]"),
            Symbol::Named(name) => f.write_str(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for symbol in [
            Symbol::Parameter("m01".into()),
            Symbol::Parameter("x[1]".into()),
            Symbol::Position(3),
            Symbol::Multiplier(2),
            Symbol::BaseParameter(4),
            Symbol::Velocity(0),
            Symbol::Acceleration(11),
            Symbol::Force(2),
            Symbol::Derived(7),
            Symbol::Time,
            Symbol::Named("cost.k3".into()),
        ] {
            assert_eq!(Symbol::parse(&symbol.to_string()), symbol);
        }
    }

    #[test]
    fn a_name_and_its_symbol_are_one_node() {
        let mut pool = crate::Pool::new();
        assert_eq!(pool.symbol("q[0]"), pool.input(Symbol::Position(0)));
        assert_eq!(
            pool.symbol("p.m1"),
            pool.input(Symbol::Parameter("m1".into()))
        );
        assert_eq!(pool.symbol("x"), pool.input(Symbol::Named("x".into())));
        assert_ne!(pool.symbol("q[01]"), pool.symbol("q[1]"));
    }

    #[test]
    fn a_name_no_input_displays_as_is_named() {
        for name in [
            "x", "x[1]", "q[one]", "q[01]", "q[+1]", "q[]", "d.k", "d.k07", "d.kx", "tt",
        ] {
            let symbol = Symbol::parse(name);
            assert_eq!(symbol, Symbol::Named(name.to_owned()));
            assert_eq!(symbol.to_string(), name);
        }
    }
}
