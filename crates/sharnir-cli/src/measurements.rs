//! The measurements `sharnir identify` reads: a CSV file of samples `t`,
//! `q.<position>`, `tau.<coordinate>` and optionally `v.<coordinate>` and
//! `a.<coordinate>`, checked column by column, with velocities and
//! accelerations taken by central differences where the file has none.
//!
//! A coordinate's joint force is its `tau.<coordinate>` column or, where
//! the file has none, its `drive.<coordinate>` column: the force a drive
//! supplies, which `sharnir sim` writes for every coordinate `[motion]`
//! prescribes, so that a simulated run along an excitation trajectory is
//! identified as it is written. A file with both for one coordinate is read
//! at its `tau.` column.
//!
//! Differentiation: `ẋᵢ = (xᵢ₊₁ − xᵢ₋₁) / (tᵢ₊₁ − tᵢ₋₁)`, once for `v` from
//! `q` and once more for `a` from `v`; each pass drops the first and last
//! sample. With `--cutoff`, the positions (and given velocities) and the
//! joint forces are first low-passed by a second-order Butterworth filter
//! run forwards then backwards (zero phase: no delay, the gain squared),
//! the same filter on both sides of `τ = Y_b β` (Gautier's parallel
//! filtering).

use std::collections::HashMap;
use std::path::Path;

/// The samples, one row each: positions, velocities, accelerations and
/// joint forces in the spec's coordinate order.
pub(crate) struct Samples {
    pub(crate) q: Vec<Vec<f64>>,
    pub(crate) v: Vec<Vec<f64>>,
    pub(crate) a: Vec<Vec<f64>>,
    pub(crate) tau: Vec<Vec<f64>>,
    /// The column each coordinate's joint force was read from
    /// (`tau.<name>` or `drive.<name>`), for the report.
    pub(crate) force_columns: Vec<String>,
    /// How the velocities and accelerations were found, for the report.
    pub(crate) derivatives: &'static str,
}

/// What the file must name: the spec's position and velocity coordinates,
/// and the quaternions' first components (whose rates are no velocity).
pub(crate) struct Layout<'a> {
    pub(crate) positions: &'a [String],
    pub(crate) coordinates: &'a [String],
    pub(crate) quaternions: &'a [usize],
    /// Whether a coordinate without a force column is unactuated (its
    /// force zero): the passive joints of a mechanism with loops. At least
    /// one column is still required.
    pub(crate) passive_joints: bool,
}

/// The file's columns by header, every value a finite number.
struct Table {
    name: String,
    columns: HashMap<String, Vec<f64>>,
    rows: usize,
}

impl Table {
    /// Reads every column of `path` as finite numbers.
    fn read(path: &Path) -> miette::Result<Table> {
        let name = path.display().to_string();
        let mut reader = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .from_path(path)
            .map_err(|e| miette::miette!(help = "check the path", "cannot read {name}: {e}"))?;
        let headers: Vec<String> = reader
            .headers()
            .map_err(|e| miette::miette!("{name}: the header row: {e}"))?
            .iter()
            .map(str::to_owned)
            .collect();
        let mut values: Vec<Vec<f64>> = vec![Vec::new(); headers.len()];
        for (row, record) in reader.records().enumerate() {
            // The header is line 1.
            let line = row + 2;
            let record = record.map_err(|e| miette::miette!("{name}:{line}: {e}"))?;
            if record.len() != headers.len() {
                miette::bail!(
                    help = "every row needs one value per header column",
                    "{name}:{line}: {} values for {} columns",
                    record.len(),
                    headers.len()
                );
            }
            for ((field, column), header) in record.iter().zip(&mut values).zip(&headers) {
                let x: f64 = field
                    .parse()
                    .ok()
                    .filter(|x: &f64| x.is_finite())
                    .ok_or_else(|| {
                        miette::miette!(
                            help = "every value must be a finite number",
                            "{name}:{line}: column `{header}` is `{field}`, not a finite number"
                        )
                    })?;
                column.push(x);
            }
        }
        let rows = values.first().map_or(0, Vec::len);
        Ok(Table {
            name,
            columns: headers.into_iter().zip(values).collect(),
            rows,
        })
    }

    /// The columns `<prefix>.<name>` for every name, all or none; an error
    /// names the first missing one when some are there.
    fn group(&self, prefix: &str, names: &[String]) -> miette::Result<Option<Vec<Vec<f64>>>> {
        let wanted: Vec<String> = names.iter().map(|n| format!("{prefix}.{n}")).collect();
        let found: Vec<Option<&Vec<f64>>> = wanted.iter().map(|w| self.columns.get(w)).collect();
        if found.iter().all(Option::is_none) {
            return Ok(None);
        }
        let mut columns = Vec::with_capacity(names.len());
        for (column, name) in found.into_iter().zip(&wanted) {
            let column = column.ok_or_else(|| {
                miette::miette!(
                    help = format!("the file needs every one of {}", wanted.join(", ")),
                    "{}: no column `{name}`",
                    self.name
                )
            })?;
            columns.push(column.clone());
        }
        Ok(Some(columns))
    }

    /// Like [`Table::group`], but the columns must be there.
    fn required(&self, prefix: &str, names: &[String]) -> miette::Result<Vec<Vec<f64>>> {
        match self.group(prefix, names)? {
            Some(columns) => Ok(columns),
            None => {
                let first = names
                    .first()
                    .map_or(String::new(), |n| format!("{prefix}.{n}"));
                miette::bail!(
                    help = format!(
                        "give `{prefix}.<name>` for every one of {}",
                        names.join(", ")
                    ),
                    "{}: no column `{first}`",
                    self.name
                )
            }
        }
    }

    /// The joint force of every coordinate, with the column it was read
    /// from: its `tau.<name>` column, or where the file has none its
    /// `drive.<name>` column (the module documentation says why); an error
    /// names the first coordinate with neither, unless `passive_joints`,
    /// where it is unactuated (`passive`, zeros) and only a file without
    /// any force column is refused.
    fn forces(
        &self,
        names: &[String],
        passive_joints: bool,
    ) -> miette::Result<(Vec<String>, Vec<Vec<f64>>)> {
        let found = |name: &String| {
            let (tau, drive) = (format!("tau.{name}"), format!("drive.{name}"));
            [tau, drive]
                .into_iter()
                .find_map(|column| Some((column.clone(), self.columns.get(&column)?.clone())))
        };
        if passive_joints {
            if !names.iter().any(|n| found(n).is_some()) {
                miette::bail!(
                    help = format!(
                        "give `tau.<name>` (or `drive.<name>`) for the actuated ones of {}",
                        names.join(", ")
                    ),
                    "{}: no joint force column",
                    self.name
                );
            }
            return Ok(names
                .iter()
                .map(|n| found(n).unwrap_or_else(|| ("passive".to_owned(), vec![0.0; self.rows])))
                .unzip());
        }
        names
            .iter()
            .map(|name| {
                let (tau, drive) = (format!("tau.{name}"), format!("drive.{name}"));
                found(name).ok_or_else(|| {
                    miette::miette!(
                        help = format!(
                            "give `tau.<name>` (or `drive.<name>`, as `sharnir sim` writes \
                                 for a prescribed coordinate) for every one of {}",
                            names.join(", ")
                        ),
                        "{}: no column `{tau}` (nor `{drive}`)",
                        self.name
                    )
                })
            })
            .collect::<miette::Result<Vec<(String, Vec<f64>)>>>()
            .map(|found| found.into_iter().unzip())
    }
}

/// The samples of `path` for a mechanism of this layout, velocities and
/// accelerations differentiated where missing, filtered at `cutoff` Hz
/// when given.
pub(crate) fn read(path: &Path, layout: &Layout, cutoff: Option<f64>) -> miette::Result<Samples> {
    let table = Table::read(path)?;
    let t = table
        .columns
        .get("t")
        .cloned()
        .ok_or_else(|| miette::miette!("{}: no column `t`", table.name))?;
    let mut q = table.required("q", layout.positions)?;
    let mut v = table.group("v", layout.coordinates)?;
    let a = table.group("a", layout.coordinates)?;
    let (force_columns, mut tau) = table.forces(layout.coordinates, layout.passive_joints)?;
    if table.rows < 5 {
        miette::bail!(
            help = "record many samples along a trajectory that excites every joint",
            "{}: {} samples are too few",
            table.name,
            table.rows
        );
    }
    if let Some(cutoff) = cutoff {
        let filter = Butterworth::new(cutoff, sample_rate(&t, &table.name)?, &table.name)?;
        for column in q.iter_mut().chain(tau.iter_mut()) {
            filter.zero_phase(column);
        }
        for column in v.iter_mut().flatten() {
            filter.zero_phase(column);
        }
    }
    let (q, v, a, tau, derivatives) = match (v, a) {
        (Some(v), Some(a)) => (q, v, a, tau, "measured"),
        (Some(v), None) => {
            let a = differentiate(&t, &v);
            (
                trim(q, 1),
                trim(v, 1),
                a,
                trim(tau, 1),
                "accelerations by central differences",
            )
        }
        (None, _) => {
            if let Some(&start) = layout.quaternions.first() {
                miette::bail!(
                    help = "give `v.<coordinate>` columns: a quaternion's rates are not the \
                            angular velocity",
                    "{}: no velocities, and q[{start}..{}] is a quaternion",
                    table.name,
                    start + 4
                );
            }
            let v = differentiate(&t, &q);
            let a = differentiate(&t[1..t.len() - 1], &v);
            (
                trim(q, 2),
                trim(v, 1),
                a,
                trim(tau, 2),
                "velocities and accelerations by central differences",
            )
        }
    };
    Ok(Samples {
        q: rows(&q),
        v: rows(&v),
        a: rows(&a),
        tau: rows(&tau),
        force_columns,
        derivatives,
    })
}

/// Columns as rows.
fn rows(columns: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = columns.first().map_or(0, Vec::len);
    (0..n)
        .map(|i| columns.iter().map(|c| c[i]).collect())
        .collect()
}

/// Every column without its first and last `k` samples.
fn trim(columns: Vec<Vec<f64>>, k: usize) -> Vec<Vec<f64>> {
    columns
        .into_iter()
        .map(|c| {
            c.get(k..c.len().saturating_sub(k))
                .unwrap_or_default()
                .to_vec()
        })
        .collect()
}

/// Central differences of every column, one sample shorter at each end.
fn differentiate(t: &[f64], columns: &[Vec<f64>]) -> Vec<Vec<f64>> {
    columns
        .iter()
        .map(|x| {
            (1..x.len().saturating_sub(1))
                .map(|i| (x[i + 1] - x[i - 1]) / (t[i + 1] - t[i - 1]))
                .collect()
        })
        .collect()
}

/// The sample rate of uniformly spaced, increasing times.
fn sample_rate(t: &[f64], name: &str) -> miette::Result<f64> {
    let steps: Vec<f64> = t.windows(2).map(|w| w[1] - w[0]).collect();
    let mean = (t[t.len() - 1] - t[0]) / steps.len() as f64;
    match steps
        .iter()
        .position(|&dt| (dt - mean).abs() > 1e-3 * mean.abs() || dt <= 0.0)
    {
        Some(i) => miette::bail!(
            help = "--cutoff filters uniformly spaced samples; resample the file or leave it out",
            "{name}:{}: the time step is {:e}, the mean step {mean:e}",
            i + 3,
            steps[i]
        ),
        None => Ok(1.0 / mean),
    }
}

/// A second-order Butterworth low-pass (bilinear transform, prewarped),
/// and how many samples it settles in (three time constants).
struct Butterworth {
    b: [f64; 3],
    a: [f64; 2],
    settling: usize,
}

impl Butterworth {
    fn new(cutoff: f64, rate: f64, name: &str) -> miette::Result<Butterworth> {
        if !(cutoff > 0.0 && cutoff < 0.5 * rate) {
            miette::bail!(
                help = format!("give a cutoff between 0 and {} Hz", 0.5 * rate),
                "{name}: --cutoff {cutoff} is not below half the sample rate {rate} Hz"
            );
        }
        let k = (std::f64::consts::PI * cutoff / rate).tan();
        let norm = 1.0 / (1.0 + std::f64::consts::SQRT_2 * k + k * k);
        let b0 = k * k * norm;
        Ok(Butterworth {
            settling: (3.0 * rate / cutoff).ceil() as usize,
            b: [b0, 2.0 * b0, b0],
            a: [
                2.0 * (k * k - 1.0) * norm,
                (1.0 - std::f64::consts::SQRT_2 * k + k * k) * norm,
            ],
        })
    }

    /// One pass, started at rest at the first value.
    fn pass(&self, x: &mut [f64]) {
        let Some(&first) = x.first() else {
            return;
        };
        let (mut x1, mut x2, mut y1, mut y2) = (first, first, first, first);
        for value in x.iter_mut() {
            let y = self.b[0] * *value + self.b[1] * x1 + self.b[2] * x2
                - self.a[0] * y1
                - self.a[1] * y2;
            (x2, x1, y2, y1) = (x1, *value, y1, y);
            *value = y;
        }
    }

    /// Forwards then backwards: zero phase. The signal is first extended
    /// at both ends by its odd reflection (`2 x₀ − x_k`) over the settling
    /// length, which keeps the value and the slope at the ends, so that the
    /// filter's start-up transients fall on the extension, then cut off.
    fn zero_phase(&self, x: &mut [f64]) {
        let n = x.len();
        let pad = self.settling.min(n.saturating_sub(1));
        let (Some(&first), Some(&last)) = (x.first(), x.last()) else {
            return;
        };
        let mut extended: Vec<f64> = (1..=pad).rev().map(|k| 2.0 * first - x[k]).collect();
        extended.extend_from_slice(x);
        extended.extend((1..=pad).map(|k| 2.0 * last - x[n - 1 - k]));
        self.pass(&mut extended);
        extended.reverse();
        self.pass(&mut extended);
        extended.reverse();
        x.copy_from_slice(&extended[pad..pad + n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A slow sine passes the filter unchanged (away from the ends) and
    /// without delay; a fast one is removed.
    #[test]
    fn the_filter_keeps_slow_motion_in_phase_and_removes_fast() {
        let rate = 1000.0;
        let filter = Butterworth::new(20.0, rate, "test").expect("a valid cutoff");
        let t: Vec<f64> = (0..4000).map(|i| i as f64 / rate).collect();
        let slow: Vec<f64> = t
            .iter()
            .map(|t| (2.0 * std::f64::consts::PI * t).sin())
            .collect();
        let mut noisy: Vec<f64> = t
            .iter()
            .zip(&slow)
            .map(|(t, s)| s + 0.1 * (2.0 * std::f64::consts::PI * 300.0 * t).sin())
            .collect();
        filter.zero_phase(&mut noisy);
        let worst = noisy[500..3500]
            .iter()
            .zip(&slow[500..3500])
            .map(|(f, s)| (f - s).abs())
            .fold(0.0, f64::max);
        assert!(worst < 1e-3, "off by {worst}");
    }

    /// `read` on a file of `header` and six rows of `row(i)` for a
    /// mechanism of one revolute coordinate `a`.
    fn read_one_joint(header: &str, row: impl Fn(f64) -> String) -> miette::Result<Samples> {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("log.csv");
        let mut text = format!("{header}\n");
        for i in 0..6 {
            text.push_str(&row(f64::from(i)));
            text.push('\n');
        }
        std::fs::write(&path, text).expect("the file is written");
        let names = ["a".to_owned()];
        let layout = Layout {
            positions: &names,
            coordinates: &names,
            quaternions: &[],
            passive_joints: false,
        };
        read(&path, &layout, None)
    }

    /// A file with `drive.a` and no `tau.a` (`sharnir sim` on a prescribed
    /// coordinate) gives its drive forces as the joint forces.
    #[test]
    fn drive_columns_are_the_joint_forces_where_there_is_no_tau() {
        let samples = read_one_joint("t,q.a,v.a,a.a,drive.a", |i| {
            format!("{i},{i},1,0,{}", 10.0 + i)
        })
        .expect("drive.a is read as the joint force");
        let forces: Vec<f64> = samples.tau.iter().map(|row| row[0]).collect();
        assert_eq!(forces, [10.0, 11.0, 12.0, 13.0, 14.0, 15.0]);
        assert_eq!(samples.force_columns, ["drive.a"]);
    }

    /// With both, `tau.a` is read; with neither, the error names both.
    #[test]
    fn tau_wins_over_drive_and_neither_is_refused() {
        let samples = read_one_joint("t,q.a,v.a,a.a,drive.a,tau.a", |i| {
            format!("{i},{i},1,0,-1,{i}")
        })
        .expect("a valid file");
        let forces: Vec<f64> = samples.tau.iter().map(|row| row[0]).collect();
        assert_eq!(forces, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(samples.force_columns, ["tau.a"]);
        let refused = read_one_joint("t,q.a,v.a,a.a,torque.a", |i| format!("{i},{i},1,0,1"));
        let message = refused.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            message.ends_with("no column `tau.a` (nor `drive.a`)"),
            "{message}"
        );
    }

    #[test]
    fn central_differences_are_exact_on_parabolas() {
        let t: Vec<f64> = (0..10).map(|i| 0.1 * i as f64).collect();
        let x = vec![t.iter().map(|t| 3.0 * t * t - t).collect::<Vec<f64>>()];
        let v = differentiate(&t, &x);
        for (i, v) in v[0].iter().enumerate() {
            assert!((v - (6.0 * t[i + 1] - 1.0)).abs() < 1e-12);
        }
    }
}
