//! The inputs of derived expressions and their symbol names.
//!
//! Every symbol in a derived expression is one of these; the emitter maps them
//! back to Rust (`p.m1`, `q[0]`, …) by parsing the symbol name, so the naming
//! scheme lives in exactly one place.

/// An input of a generated function.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Input {
    /// A runtime parameter (a field of the generated `Params`).
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
}

impl Input {
    /// The pool symbol name for this input.
    pub fn symbol_name(&self) -> String {
        match self {
            Input::Parameter(name) => format!("p.{name}"),
            Input::Position(i) => format!("q[{i}]"),
            Input::Velocity(i) => format!("qd[{i}]"),
            Input::Acceleration(i) => format!("qdd[{i}]"),
            Input::Force(i) => format!("tau[{i}]"),
            Input::Derived(k) => format!("d.k{k}"),
            Input::Time => "t".to_owned(),
            Input::Multiplier(i) => format!("lambda[{i}]"),
        }
    }

    /// Recovers the input from a symbol name made by [`Input::symbol_name`].
    pub fn parse(symbol: &str) -> Option<Input> {
        if symbol == "t" {
            return Some(Input::Time);
        }
        if let Some(k) = symbol.strip_prefix("d.k") {
            return k.parse().ok().map(Input::Derived);
        }
        if let Some(name) = symbol.strip_prefix("p.") {
            return Some(Input::Parameter(name.to_owned()));
        }
        let (array, rest) = symbol.split_once('[')?;
        let index: usize = rest.strip_suffix(']')?.parse().ok()?;
        match array {
            "q" => Some(Input::Position(index)),
            "qd" => Some(Input::Velocity(index)),
            "qdd" => Some(Input::Acceleration(index)),
            "tau" => Some(Input::Force(index)),
            "lambda" => Some(Input::Multiplier(index)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbol_names_round_trip() {
        for input in [
            Input::Parameter("m01".into()),
            Input::Position(3),
            Input::Multiplier(2),
            Input::Velocity(0),
            Input::Acceleration(11),
            Input::Force(2),
            Input::Derived(7),
            Input::Time,
        ] {
            assert_eq!(Input::parse(&input.symbol_name()), Some(input));
        }
        assert_eq!(Input::parse("x[1]"), None);
        assert_eq!(Input::parse("q[one]"), None);
    }
}
