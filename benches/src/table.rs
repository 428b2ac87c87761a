//! The Markdown speed table of the README and `docs/performance.md`.

use crate::comparison::Case;

/// Median times of one case, three ways.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row {
    /// Which robot and function.
    pub case: Case,
    /// Generated code reading parameters at run time, ns per call.
    pub generated_ns: f64,
    /// Generated code with folded parameters, ns per call.
    pub folded_ns: f64,
    /// The generic algorithm of `sharnir-numeric`, ns per call.
    pub generic_ns: f64,
}

impl Row {
    /// How many times faster the runtime-parameter module is than the
    /// generic algorithm: the headline number.
    pub fn speed_up(&self) -> f64 {
        self.generic_ns / self.generated_ns
    }

    /// How many times faster the folded module is than the generic algorithm.
    pub fn folded_speed_up(&self) -> f64 {
        self.generic_ns / self.folded_ns
    }
}

/// The rows as a Markdown table, header included, one line per row.
pub fn markdown(rows: &[Row]) -> String {
    let header = "| robot | function | generated (ns) | folded (ns) | generic (ns) | speed-up | \
                  speed-up, folded |\n|---|---|---:|---:|---:|---:|---:|\n";
    let lines = rows.iter().map(|row| {
        format!(
            "| {} | `{}` | {} | {} | {} | {} | {} |\n",
            row.case.robot,
            row.case.function,
            nanoseconds(row.generated_ns),
            nanoseconds(row.folded_ns),
            nanoseconds(row.generic_ns),
            ratio(row.speed_up()),
            ratio(row.folded_speed_up()),
        )
    });
    std::iter::once(header.to_string()).chain(lines).collect()
}

/// One decimal below 100 ns, whole nanoseconds above.
fn nanoseconds(ns: f64) -> String {
    if ns < 100.0 {
        format!("{ns:.1}")
    } else {
        format!("{ns:.0}")
    }
}

/// A speed-up such as `12.3×`.
fn ratio(r: f64) -> String {
    format!("{r:.1}×")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row() -> Row {
        Row {
            case: Case {
                robot: "telegin6",
                function: "mass_matrix",
            },
            generated_ns: 40.0,
            folded_ns: 25.0,
            generic_ns: 1234.4,
        }
    }

    #[test]
    fn speed_ups_are_generic_time_over_generated_time() {
        let r = row();
        assert!((r.speed_up() - 30.86).abs() < 1e-12);
        assert!((r.folded_speed_up() - 49.376).abs() < 1e-12);
    }

    #[test]
    fn table_has_a_header_and_one_line_per_row() {
        let expected =
            "| robot | function | generated (ns) | folded (ns) | generic (ns) | speed-up | \
                        speed-up, folded |\n\
                        |---|---|---:|---:|---:|---:|---:|\n\
                        | telegin6 | `mass_matrix` | 40.0 | 25.0 | 1234 | 30.9× | 49.4× |\n";
        assert_eq!(markdown(&[row()]), expected);
    }
}
