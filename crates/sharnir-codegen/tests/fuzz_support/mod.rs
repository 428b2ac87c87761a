//! Grammar-shaped random inputs for the fuzz tests: `.spec` and URDF text
//! built from a stream of choices that proptest draws (and shrinks).
//!
//! Most choices make well-formed, physical input, so that most cases get
//! through validation into the derivation and the emitter; a per-input
//! "hostility" makes some values hostile (zero, negative, subnormal, huge,
//! `nan`, `inf`), some names unknown and some keys misplaced.
#![allow(dead_code)]

pub mod spec_grammar;
pub mod urdf_grammar;

use sharnir_codegen::GeneratedModule;
use sharnir_mech::{Mechanism, ParameterMode};
use sharnir_spec::Spec;

/// The stream of choices an input is built from; past its end every
/// choice is the first option, so any stream makes a (small) input.
pub struct Choices<'a> {
    data: &'a [u32],
    at: usize,
    /// Percentage of values drawn from the hostile ones.
    pub hostility: usize,
}

impl<'a> Choices<'a> {
    /// Choices read from `data`; its first entry sets the hostility (half
    /// the inputs have none).
    pub fn new(data: &'a [u32]) -> Choices<'a> {
        let mut choices = Choices {
            data,
            at: 0,
            hostility: 0,
        };
        choices.hostility = [0, 0, 0, 2, 5, 15][choices.pick(6)];
        choices
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn pick(&mut self, n: usize) -> usize {
        let value = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        usize::try_from(value).unwrap_or(0) % n.max(1)
    }

    /// True with `percent` per cent probability.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.pick(100) < percent
    }

    /// One of `items`.
    pub fn one<T: Copy>(&mut self, items: &[T]) -> T {
        let i = self.pick(items.len());
        items[i]
    }

    /// Whether this value is hostile.
    pub fn hostile(&mut self) -> bool {
        self.hostility > 0 && self.chance(self.hostility)
    }

    /// A number as text: ordinary, or hostile at the input's rate.
    pub fn number(&mut self, ordinary: &[&'static str]) -> &'static str {
        if self.hostile() {
            self.one(HOSTILE_NUMBERS)
        } else {
            self.one(ordinary)
        }
    }
}

/// Numbers that break naive arithmetic or printing.
pub const HOSTILE_NUMBERS: &[&str] = &[
    "0",
    "-1",
    "-0.0",
    "1e-320",
    "5e-324",
    "1e308",
    "-1e308",
    "1.7976931348623157e308",
    "1e50",
    "1e-50",
    "1e51",
    "1e-51",
    "1e160",
    "1e-160",
    "nan",
    "inf",
    "-inf",
    "1e25",
    "1e-25",
    "123456789012345678901234567890",
];

/// Positive, moderate numbers.
pub const POSITIVE: &[&str] = &["1", "0.5", "2", "0.1", "3.7", "1e-3", "10"];

/// Moderate numbers of either sign.
pub const ANY: &[&str] = &["0", "1", "-1", "0.5", "-0.25", "2", "0.1", "-3.7", "1e-3"];

/// Runs `work` on a thread with the stack of a main thread (8 MiB), as
/// `cargo xtask` would, and returns its panic message if it panicked. A
/// stack overflow still aborts the process: the test binary then fails.
pub fn on_main_sized_stack<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let handle = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(work)
        .map_err(|e| format!("cannot spawn: {e}"))?;
    handle.join().map_err(|payload| {
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_else(|| "panic".to_owned())
    })
}

/// What the whole pipeline made of one validated spec: derives and emits
/// it with runtime and with folded parameters (and the fused and
/// single-precision twins of the first), as `cargo xtask gen` does. Errors
/// are fine; a module with a non-finite literal is not.
pub fn generate_all(spec: &Spec) -> Result<usize, String> {
    let mut modules = 0;
    for mode in [ParameterMode::Runtime, ParameterMode::Folded] {
        let Ok(mut mechanism) = Mechanism::from_spec(spec, mode) else {
            continue;
        };
        // Every twin, whatever the spec asks for, as `gen --fma
        // --single-precision` writes them.
        let options = sharnir_codegen::PlanOptions {
            method: None,
            fused_multiply_add: true,
            single_precision: true,
            outputs: None,
            body_poses: false,
        };
        let rendered =
            sharnir_codegen::plan(&mut mechanism, &options).and_then(|plan| plan.render_all());
        let rendered = match rendered {
            Ok(rendered) => rendered,
            // With SHARNIR_FUZZ_STRICT set, a constant that overflows while
            // generating counts as a finding: validation let through values
            // it could have refused at their line.
            Err(e) if strict() && e.to_string().contains("constant of the generated code") => {
                return Err(format!("not refused by validation: {e}"));
            }
            Err(_) => continue,
        };
        for module in &rendered {
            check_module(module)?;
        }
        modules += 1;
    }
    Ok(modules)
}

/// A generated module never writes an infinity or a NaN in its code (its
/// comments may name them: the support code's say which angles go to `libm`).
fn check_module(module: &GeneratedModule) -> Result<(), String> {
    let code: Vec<&str> = module
        .source
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect();
    for bad in ["inf", "NaN", "nan"] {
        let literal = code
            .iter()
            .flat_map(|line| line.split(|c: char| !c.is_alphanumeric() && c != '_'))
            .any(|word| word == bad);
        if literal {
            return Err(format!("module {} contains `{bad}`", module.name));
        }
    }
    Ok(())
}

/// Whether generation-time overflows count as findings (long runs).
fn strict() -> bool {
    std::env::var_os("SHARNIR_FUZZ_STRICT").is_some()
}

/// The number of cases of a fuzz test: `PROPTEST_CASES` when set (a long
/// run), else `default` (the bounded run of `cargo test`).
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
