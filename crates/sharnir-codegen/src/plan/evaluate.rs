//! Numeric evaluation of a plan's programs: what the emitted functions
//! compute, without compiling them, so that tests check exactly the
//! programs that ship.

use super::Plan;
use sharnir_mech::Input;

impl Plan {
    /// The outputs of the program of `function` (row-major, as the emitted
    /// function fills its result; for `limit_forces`, the inputs of the
    /// contact law written around the program), with the parameter groups
    /// computed first from the parameters and every other input read from
    /// `input`. `None` for an unknown function or an input `input` does
    /// not give.
    pub fn evaluate(
        &self,
        function: &str,
        input: &dyn Fn(&Input) -> Option<f64>,
    ) -> Option<Vec<f64>> {
        let program = &self.function(function)?.program;
        let groups = self.derived.program.eval(input)?;
        let env = |symbol: &Input| match symbol {
            Input::Derived(k) => groups.get(*k).copied(),
            other => input(other),
        };
        program.eval(&env)
    }
}
