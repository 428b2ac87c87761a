//! Parameters that nothing uses.
//!
//! An unused parameter is harmless to the equations, but every parameter is
//! a field of the generated `Params` and a symbol of the derivation, so a
//! spec with very many of them costs memory and time for nothing (600 000
//! unused parameters take gigabytes). `cargo xtask` warns about them.

use crate::expr::Expr;
use crate::model::{Body, Joint, Parameter, ParameterValue};
use crate::Spec;
use std::collections::{HashMap, HashSet};

impl Spec {
    /// The parameters, in spec order, that no expression of the mechanism
    /// uses: not gravity, a body, a joint or an applied force, directly or
    /// through the derived parameters they use. (`[initial]` is evaluated
    /// when the spec is read; a parameter only it uses is listed too, as it
    /// does not enter the generated equations.)
    pub fn unused_parameters(&self) -> Vec<&Parameter> {
        let definitions: HashMap<&str, &Parameter> = self
            .parameters
            .iter()
            .map(|p| (p.name.as_str(), p))
            .collect();
        let mut used: HashSet<&str> = HashSet::new();
        let mut pending: Vec<&str> = Vec::new();
        for expr in self.mechanism_expressions() {
            pending.extend(expr.parameters().into_iter().map(|(name, _)| name));
        }
        while let Some(name) = pending.pop() {
            if !used.insert(name) {
                continue;
            }
            if let Some(Parameter {
                value: ParameterValue::Derived(definition),
                ..
            }) = definitions.get(name)
            {
                pending.extend(definition.parameters().into_iter().map(|(n, _)| n));
            }
        }
        self.parameters
            .iter()
            .filter(|p| !used.contains(p.name.as_str()))
            .collect()
    }

    /// A warning about [`Spec::unused_parameters`], located at the first of
    /// them (`file:line:col: …`) and naming a few, or `None` when every
    /// parameter is used.
    pub fn unused_parameters_warning(&self) -> Option<String> {
        const NAMED: usize = 5;
        let unused = self.unused_parameters();
        let first = unused.first()?;
        let (line, column) = self.source.line_column(first.span.offset);
        let mut names: Vec<String> = unused
            .iter()
            .take(NAMED)
            .map(|p| format!("`{}`", p.name))
            .collect();
        if unused.len() > NAMED {
            names.push(format!("… ({} more)", unused.len() - NAMED));
        }
        let count = match unused.len() {
            1 => "parameter is".to_owned(),
            n => format!("{n} parameters are"),
        };
        Some(format!(
            "{}:{line}:{column}: {count} never used: {} \
             (each stays a field of `Params` and changes nothing; remove it, see docs/spec-format.md)",
            self.source.name,
            names.join(", ")
        ))
    }

    /// Every expression outside `[parameters]` that the derivation reads.
    fn mechanism_expressions(&self) -> Vec<&Expr> {
        let mut all: Vec<&Expr> = self.gravity.iter().collect();
        all.extend(self.bodies.iter().flat_map(Body::expressions));
        all.extend(self.joints.iter().flat_map(Joint::expressions));
        all.extend(self.forces.iter().map(|f| &f.value));
        all.extend(self.motion.iter().map(|m| &m.law));
        all
    }
}
