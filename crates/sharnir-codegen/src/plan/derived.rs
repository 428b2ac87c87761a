//! The parameter groups of a plan: constant groups of runtime parameters,
//! hoisted out of every function, lowered to the one program that
//! `Params::derived` computes once per parameter change (`derived.rs`
//! prints it).

use sharnir_cas::{Id, OpCount, Pool, Program};
use sharnir_mech::Input;

/// The constant groups of a module, lowered to one straight-line program.
/// Plain data, so that a plan holding it stays `Send`.
#[derive(Debug)]
pub(crate) struct Derived {
    /// The symbol of each group, `Input::Derived(k)`, which names its field.
    pub(crate) fields: Vec<Input>,
    /// The program computing the groups, `k0`, `k1`, … in order.
    pub(crate) program: Program,
    /// Each group's formula in the parameters, as its field's doc says it
    /// (`None` for one too long to read in a doc line).
    pub(crate) formulas: Vec<Option<String>>,
}

/// The longest formula a group's doc line writes out.
const LONGEST_FORMULA: usize = 100;

impl Derived {
    /// Lowers the definitions `(symbol, expression)` made by hoisting.
    pub(crate) fn lower(pool: &Pool, definitions: &[(Input, Id)]) -> Derived {
        let fields = definitions
            .iter()
            .map(|(symbol, _)| symbol.clone())
            .collect();
        let roots: Vec<Id> = definitions.iter().map(|(_, d)| *d).collect();
        let formulas = roots
            .iter()
            .map(|&root| {
                let text = sharnir_mech::formalisms::notation::expression(pool, root);
                (text.chars().count() <= LONGEST_FORMULA).then_some(text)
            })
            .collect();
        Derived {
            fields,
            program: Program::lower(pool, &roots),
            formulas,
        }
    }

    /// What computing the groups costs, once.
    pub(crate) fn op_count(&self) -> OpCount {
        self.program.op_count()
    }
}
