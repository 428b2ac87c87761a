//! Prints the Markdown table of median times and speed-ups of generated code
//! against the generic algorithms, for the README and
//! `docs/performance.md`:
//!
//! ```text
//! cargo run --release -p sharnir-benches --bin speed-table
//! ```
//!
//! Progress goes to stderr, the table to stdout. Each time is the median of
//! many short batches timed with `std::time::Instant`, the batches of a
//! case's three contestants interleaved; criterion's statistics are in
//! `cargo bench -p sharnir-benches`.

use sharnir_benches::{compare_all, interleaved_medians_ns, markdown, Case, Comparison, Row};
use std::process::ExitCode;

/// Collects one [`Row`] per case.
struct SpeedTable(Vec<Row>);

impl Comparison for SpeedTable {
    fn compare(
        &mut self,
        case: Case,
        generated: impl FnMut(),
        folded: impl FnMut(),
        generic: impl FnMut(),
    ) {
        eprintln!("timing {case}");
        let [generated_ns, folded_ns, generic_ns] =
            interleaved_medians_ns(generated, folded, generic);
        self.0.push(Row {
            case,
            generated_ns,
            folded_ns,
            generic_ns,
        });
    }
}

fn main() -> ExitCode {
    let mut table = SpeedTable(Vec::new());
    match compare_all(&mut table) {
        Ok(()) => {
            print!("{}", markdown(&table.0));
            ExitCode::SUCCESS
        }
        Err(disagreement) => {
            eprintln!("error: {disagreement}");
            ExitCode::FAILURE
        }
    }
}
