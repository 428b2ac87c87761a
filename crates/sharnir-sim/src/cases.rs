//! The cases of a sweep: the options that list them (`--vary`, `--cases`),
//! their expansion into a numbered list, and the shards that split it.
//!
//! Without the `output` feature too, so that `sharnir-cli` checks a sweep's
//! names against the spec before compiling anything.

use crate::options::{parse_target, parse_value, CoordinateKind};
use clap::Args;
use std::path::{Path, PathBuf};

/// Options of a sweep, beside the [`SimOptions`](crate::SimOptions) every
/// case shares.
#[derive(Args, Clone, Debug)]
pub struct SweepOptions {
    /// Values of one parameter (`p.NAME`) or initial coordinate (`q.NAME`,
    /// `v.NAME`): `A:B:N`, N values evenly spaced from A to B, or a list
    /// `V1,V2,…`. Repeatable: the cases are every combination, the first
    /// --vary changing slowest.
    #[arg(long, value_name = "p.NAME=A:B:N", allow_hyphen_values = true)]
    pub vary: Vec<String>,
    /// A CSV file of cases, one a row, whose header names `p.NAME`,
    /// `q.NAME` and `v.NAME` columns; combined with every --vary.
    #[arg(long, value_name = "FILE")]
    pub cases: Option<PathBuf>,
    /// The directory of the summary (and the per-case CSVs); a rerun into
    /// it skips the cases it holds.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Run only the cases of shard I of N (0-based: case k belongs to shard
    /// k mod N). Default: a Slurm job array's task, from
    /// `SLURM_ARRAY_TASK_ID` and `SLURM_ARRAY_TASK_COUNT`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Write every case's samples to `DIR/cases/case-<id>.csv`.
    #[arg(long)]
    pub case_csv: bool,
    /// Threads running cases (default: one per core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// The most cases a sweep expands to: beyond it a typo in `N` is more
/// likely than a wish.
pub const MOST_CASES: usize = 10_000_000;

/// One swept quantity: a parameter or an initial coordinate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// What it sets.
    pub kind: CoordinateKind,
    /// The parameter's or coordinate's name.
    pub name: String,
}

impl Column {
    /// Its name as the command line and the summary write it: `p.l`.
    pub fn label(&self) -> String {
        format!("{}.{}", self.kind.prefix(), self.name)
    }
}

/// The cases of a sweep, numbered by their index: case `k` sets
/// `columns[i]` to `rows[k][i]`.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseList {
    /// The swept quantities, --cases columns first, then each --vary.
    pub columns: Vec<Column>,
    /// The values of every case.
    pub rows: Vec<Vec<f64>>,
}

/// The slice of a sweep one process runs: case `k` when `k mod count ==
/// index`, so that shards are disjoint, cover the cases, and share the
/// costly regions of a parameter range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which one, from 0.
    pub index: usize,
    /// How many.
    pub count: usize,
}

impl Shard {
    /// The whole sweep.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Whether case `id` is this shard's.
    pub fn contains(self, id: usize) -> bool {
        id % self.count == self.index
    }

    /// The summary file of this shard inside the output directory:
    /// `summary.csv` for the whole sweep, `summary-<i>-of-<n>.csv` for a
    /// shard, so that shards writing to one shared directory never touch
    /// the same file.
    pub fn summary_name(self) -> String {
        if self.count == 1 {
            "summary.csv".to_owned()
        } else {
            format!("summary-{}-of-{}.csv", self.index, self.count)
        }
    }
}

impl SweepOptions {
    /// The cases, or the message that says what is wrong with --vary or
    /// --cases (names are checked against the model by the caller).
    pub fn expand(&self) -> Result<CaseList, String> {
        let mut list = match &self.cases {
            Some(path) => read_cases(path)?,
            None => CaseList {
                columns: Vec::new(),
                rows: vec![Vec::new()],
            },
        };
        for text in &self.vary {
            let (column, values) = parse_vary(text)?;
            if list.columns.contains(&column) {
                return Err(format!(
                    "--vary {text}: {} is already swept; give each quantity once",
                    column.label()
                ));
            }
            let total = list.rows.len().saturating_mul(values.len());
            if total > MOST_CASES {
                return Err(format!(
                    "--vary {text}: the sweep would have more than {MOST_CASES} cases"
                ));
            }
            list.columns.push(column);
            list.rows = list
                .rows
                .iter()
                .flat_map(|row| {
                    values.iter().map(move |v| {
                        let mut row = row.clone();
                        row.push(*v);
                        row
                    })
                })
                .collect();
        }
        if list.columns.is_empty() {
            return Err("a sweep needs --vary p.NAME=A:B:N (or q., v.) or --cases FILE".to_owned());
        }
        Ok(list)
    }

    /// The shard to run: `--shard I/N`, else a Slurm job array's task
    /// (`lookup` reads the environment), else the whole sweep.
    pub fn shard(&self, lookup: impl Fn(&str) -> Option<String>) -> Result<Shard, String> {
        if let Some(text) = &self.shard {
            return parse_shard(text);
        }
        let (Some(id), Some(count)) = (
            lookup("SLURM_ARRAY_TASK_ID"),
            lookup("SLURM_ARRAY_TASK_COUNT"),
        ) else {
            return Ok(Shard::ALL);
        };
        let number = |name: &str, text: &str| {
            text.trim()
                .parse::<usize>()
                .map_err(|_| format!("{name}={text} is no task number; give --shard I/N instead"))
        };
        let id = number("SLURM_ARRAY_TASK_ID", &id)?;
        let count = number("SLURM_ARRAY_TASK_COUNT", &count)?;
        let min = match lookup("SLURM_ARRAY_TASK_MIN") {
            Some(text) => number("SLURM_ARRAY_TASK_MIN", &text)?,
            None => 0,
        };
        let step = match lookup("SLURM_ARRAY_TASK_STEP") {
            Some(text) => number("SLURM_ARRAY_TASK_STEP", &text)?.max(1),
            None => 1,
        };
        let index = id.saturating_sub(min) / step;
        checked_shard(index, count).map_err(|e| {
            format!(
                "the Slurm array task {id} of {count} (from {min} by {step}) is no shard: {e}; \
                 write the array as --array=0-{}",
                count.saturating_sub(1)
            )
        })
    }
}

/// `I/N` with `0 ≤ I < N`.
pub fn parse_shard(text: &str) -> Result<Shard, String> {
    let hint = "write --shard I/N with 0 <= I < N, e.g. --shard 0/4 … --shard 3/4";
    let (index, count) = text
        .split_once('/')
        .ok_or_else(|| format!("--shard {text}: no '/': {hint}"))?;
    let parse = |part: &str| {
        part.trim().parse::<usize>().map_err(|_| {
            format!(
                "--shard {text}: '{}' is no whole number: {hint}",
                part.trim()
            )
        })
    };
    checked_shard(parse(index)?, parse(count)?).map_err(|e| format!("--shard {text}: {e}: {hint}"))
}

fn checked_shard(index: usize, count: usize) -> Result<Shard, String> {
    if count == 0 {
        return Err("there must be at least one shard".to_owned());
    }
    if index >= count {
        return Err(format!(
            "shard {index} is out of range (shards are numbered 0 to {})",
            count - 1
        ));
    }
    Ok(Shard { index, count })
}

/// `p.NAME=A:B:N` or `p.NAME=V1,V2,…` as the column and its values.
pub fn parse_vary(text: &str) -> Result<(Column, Vec<f64>), String> {
    let hint = "write --vary p.NAME=A:B:N (N values from A to B) or --vary p.NAME=V1,V2,… \
                (also q.NAME, v.NAME)";
    let (target, values) = text
        .split_once('=')
        .ok_or_else(|| format!("--vary {text}: no '=': {hint}"))?;
    let (kind, name) = parse_target(target)
        .ok_or_else(|| format!("--vary {text}: the name must start with p., q. or v.: {hint}"))?;
    let column = Column {
        kind,
        name: name.trim().to_owned(),
    };
    let values = if values.contains(':') {
        let parts: Vec<&str> = values.split(':').collect();
        let [a, b, n] = parts[..] else {
            return Err(format!(
                "--vary {text}: a range has three parts A:B:N: {hint}"
            ));
        };
        let a = parse_value(a).map_err(|e| format!("--vary {text}: {e}"))?;
        let b = parse_value(b).map_err(|e| format!("--vary {text}: {e}"))?;
        let n: usize = n.trim().parse().map_err(|_| {
            format!(
                "--vary {text}: N = '{}' is no whole number: {hint}",
                n.trim()
            )
        })?;
        if n == 0 || n > MOST_CASES {
            return Err(format!(
                "--vary {text}: N = {n} values; give 1 to {MOST_CASES}: {hint}"
            ));
        }
        if n == 1 && a != b {
            return Err(format!(
                "--vary {text}: one value cannot span {a} to {b}; give N ≥ 2 or A = B"
            ));
        }
        range(a, b, n)
    } else {
        values
            .split(',')
            .map(|v| parse_value(v).map_err(|e| format!("--vary {text}: {e}: {hint}")))
            .collect::<Result<Vec<f64>, String>>()?
    };
    Ok((column, values))
}

/// `n` values from `a` to `b`, both ends exact.
fn range(a: f64, b: f64, n: usize) -> Vec<f64> {
    if n == 1 {
        return vec![a];
    }
    let last = (n - 1) as f64;
    (0..n)
        .map(|i| {
            if i + 1 == n {
                b
            } else {
                a + (b - a) * (i as f64 / last)
            }
        })
        .collect()
}

/// The cases of a `--cases` CSV file: a header of `p.`, `q.`, `v.` names,
/// then one row of numbers per case.
fn read_cases(path: &Path) -> Result<CaseList, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--cases {}: cannot read it: {e}", path.display()))?;
    let shown = path.display();
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        return Err(format!(
            "--cases {shown}: the file is empty; its first line names the columns (p.NAME, q.NAME, v.NAME)"
        ));
    };
    let mut columns: Vec<Column> = Vec::new();
    for name in header.split(',') {
        let (kind, n) = parse_target(name).ok_or_else(|| {
            format!(
                "--cases {shown}: column `{}` is no p.NAME, q.NAME or v.NAME \
                 (a parameter or an initial coordinate)",
                name.trim()
            )
        })?;
        let column = Column {
            kind,
            name: n.trim().to_owned(),
        };
        if columns.contains(&column) {
            return Err(format!(
                "--cases {shown}: column {} appears twice",
                column.label()
            ));
        }
        columns.push(column);
    }
    let mut rows = Vec::new();
    for (number, line) in lines {
        let row = line
            .split(',')
            .map(parse_value)
            .collect::<Result<Vec<f64>, String>>()
            .map_err(|e| format!("--cases {shown}:{}: {e}", number + 1))?;
        if row.len() != columns.len() {
            return Err(format!(
                "--cases {shown}:{}: {} values for {} columns",
                number + 1,
                row.len(),
                columns.len()
            ));
        }
        if rows.len() == MOST_CASES {
            return Err(format!("--cases {shown}: more than {MOST_CASES} cases"));
        }
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(format!("--cases {shown}: no case below the header"));
    }
    Ok(CaseList { columns, rows })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(vary: &[&str]) -> SweepOptions {
        SweepOptions {
            vary: vary.iter().map(|s| (*s).to_owned()).collect(),
            cases: None,
            out: PathBuf::from("out"),
            shard: None,
            case_csv: false,
            threads: None,
        }
    }

    #[test]
    fn ranges_and_lists_expand_to_every_combination() {
        let list = options(&["p.l=0.5:1:3", "q.theta=-1,1"])
            .expand()
            .expect("valid");
        assert_eq!(list.columns[0].label(), "p.l");
        assert_eq!(list.columns[1].label(), "q.theta");
        assert_eq!(
            list.rows,
            vec![
                vec![0.5, -1.0],
                vec![0.5, 1.0],
                vec![0.75, -1.0],
                vec![0.75, 1.0],
                vec![1.0, -1.0],
                vec![1.0, 1.0]
            ]
        );
    }

    #[test]
    fn malformed_vary_is_refused() {
        for bad in [
            "l=1:2:3",
            "p.l",
            "p.l=1:2",
            "p.l=1:2:0",
            "p.l=1:2:x",
            "p.l=1:2:1",
            "p.l=1,a",
            "x.l=1",
            "p.=1",
        ] {
            assert!(options(&[bad]).expand().is_err(), "{bad} accepted");
        }
        assert!(options(&["p.l=1", "p.l=2"]).expand().is_err());
        assert!(options(&[]).expand().is_err());
        assert!(options(&["p.a=0:1:100000", "p.b=0:1:1000"])
            .expand()
            .is_err());
    }

    #[test]
    fn shards_are_disjoint_and_come_from_slurm() {
        let o = options(&["p.l=1"]);
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        assert_eq!(o.shard(env(&[])), Ok(Shard::ALL));
        assert_eq!(
            o.shard(env(&[
                ("SLURM_ARRAY_TASK_ID", "3"),
                ("SLURM_ARRAY_TASK_COUNT", "16")
            ])),
            Ok(Shard {
                index: 3,
                count: 16
            })
        );
        assert_eq!(
            o.shard(env(&[
                ("SLURM_ARRAY_TASK_ID", "16"),
                ("SLURM_ARRAY_TASK_COUNT", "16"),
                ("SLURM_ARRAY_TASK_MIN", "1")
            ])),
            Ok(Shard {
                index: 15,
                count: 16
            })
        );
        assert!(o
            .shard(env(&[
                ("SLURM_ARRAY_TASK_ID", "16"),
                ("SLURM_ARRAY_TASK_COUNT", "16")
            ]))
            .is_err());
        for bad in ["2/2", "0/0", "1", "a/2", "-1/2"] {
            assert!(parse_shard(bad).is_err(), "{bad} accepted");
        }
        let shards = [
            Shard { index: 0, count: 3 },
            Shard { index: 1, count: 3 },
            Shard { index: 2, count: 3 },
        ];
        for id in 0..10 {
            assert_eq!(shards.iter().filter(|s| s.contains(id)).count(), 1);
        }
        assert_eq!(shards[1].summary_name(), "summary-1-of-3.csv");
    }
}
