//! Which curves the plot and the animation page draw (`--plot-select`,
//! default every position coordinate and every drive force of a prescribed
//! coordinate), with their units (from
//! `sharnir sim`, which knows the joint types) and angles wrapped to
//! `(−π, π]` on request (`--wrap`).

use crate::options::SimOptions;
use sharnir_runtime::Sample;
use std::f64::consts::PI;

/// Where a curve's value is in the state.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Source {
    Position(usize),
    Velocity(usize),
    Drive(usize),
}

/// The chosen curves of a run.
#[derive(Clone, Debug)]
pub(crate) struct Curves {
    names: Vec<String>,
    sources: Vec<Source>,
    wrapped: Vec<bool>,
}

impl Curves {
    /// The curves `options` asks for among the coordinates `positions` and
    /// `velocities` (names as in `POSITION_NAMES`, `COORDINATE_NAMES`) and
    /// the drive forces of the prescribed coordinates `drives`, or the
    /// message naming an unknown one.
    pub(crate) fn select(
        options: &SimOptions,
        positions: &[&str],
        velocities: &[&str],
        drives: &[&str],
    ) -> Result<Curves, String> {
        let units = |list: &Option<String>, count: usize| -> Vec<String> {
            let given: Vec<String> = list
                .as_deref()
                .map(|l| l.split(',').map(str::to_owned).collect())
                .unwrap_or_default();
            if given.len() == count {
                given
            } else {
                vec![String::new(); count]
            }
        };
        let position_units = units(&options.position_units, positions.len());
        let velocity_units = units(&options.velocity_units, velocities.len());
        let chosen: Vec<String> = match &options.plot_select {
            Some(list) => list.split(',').map(|n| n.trim().to_owned()).collect(),
            None => positions
                .iter()
                .map(|n| format!("q.{n}"))
                .chain(drives.iter().map(|n| format!("drive.{n}")))
                .collect(),
        };
        let mut curves = Curves {
            names: Vec::new(),
            sources: Vec::new(),
            wrapped: Vec::new(),
        };
        for name in chosen {
            let drive = |n: &str| {
                let i = drives.iter().position(|d| *d == n)?;
                let coordinate = velocities.iter().position(|v| *v == n)?;
                let unit = match velocity_units[coordinate].as_str() {
                    "rad/s" => "N·m",
                    "m/s" => "N",
                    _ => "",
                };
                Some((Source::Drive(i), unit.to_owned()))
            };
            let found = match (
                name.strip_prefix("q."),
                name.strip_prefix("v."),
                name.strip_prefix("drive."),
            ) {
                (Some(n), _, _) => positions
                    .iter()
                    .position(|p| *p == n)
                    .map(|i| (Source::Position(i), position_units[i].clone())),
                (_, Some(n), _) => velocities
                    .iter()
                    .position(|p| *p == n)
                    .map(|i| (Source::Velocity(i), velocity_units[i].clone())),
                (_, _, Some(n)) => drive(n),
                _ => None,
            };
            let Some((source, unit)) = found else {
                let known: Vec<String> = positions
                    .iter()
                    .map(|p| format!("q.{p}"))
                    .chain(velocities.iter().map(|v| format!("v.{v}")))
                    .chain(drives.iter().map(|d| format!("drive.{d}")))
                    .collect();
                return Err(format!(
                    "--plot-select: `{name}` is no coordinate; the curves are {}",
                    known.join(", ")
                ));
            };
            let wrapped = options.wrap && matches!(source, Source::Position(_)) && unit == "rad";
            curves.names.push(if unit.is_empty() || unit == "1" {
                name
            } else {
                format!("{name}, {unit}")
            });
            curves.sources.push(source);
            curves.wrapped.push(wrapped);
        }
        Ok(curves)
    }

    /// The curves' names, with their units.
    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }

    /// The curves' values at a sample.
    pub(crate) fn values(&self, sample: &Sample<'_>) -> Vec<f64> {
        let (q, v, drives) = (sample.q, sample.v, sample.drives);
        self.sources
            .iter()
            .zip(&self.wrapped)
            .map(|(source, &wrapped)| {
                let value = match *source {
                    Source::Position(i) => q.get(i).copied().unwrap_or(f64::NAN),
                    Source::Velocity(i) => v.get(i).copied().unwrap_or(f64::NAN),
                    Source::Drive(i) => drives.get(i).copied().unwrap_or(f64::NAN),
                };
                if wrapped {
                    wrap(value)
                } else {
                    value
                }
            })
            .collect()
    }

    /// Whether curve `i` is an angle wrapped to `(−π, π]`, whose jumps are
    /// not drawn as lines.
    pub(crate) fn is_wrapped(&self, i: usize) -> bool {
        self.wrapped.get(i).copied().unwrap_or(false)
    }
}

/// `angle` in `(−π, π]`.
fn wrap(angle: f64) -> f64 {
    let turned = angle - 2.0 * PI * ((angle + PI) / (2.0 * PI)).floor();
    if turned == -PI {
        PI
    } else {
        turned
    }
}

#[cfg(test)]
mod tests {
    use super::{wrap, Curves};
    use crate::options::SimOptions;
    use clap::Parser;
    use sharnir_runtime::Sample;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        options: SimOptions,
    }

    fn options(args: &[&str]) -> SimOptions {
        let mut all = vec!["sim", "--t-end", "1"];
        all.extend(args);
        Cli::parse_from(all).options
    }

    #[test]
    fn curves_are_chosen_named_with_units_and_wrapped() {
        let o = options(&[
            "--plot-select",
            "q.a, v.b",
            "--wrap",
            "--position-units",
            "rad,m",
            "--velocity-units",
            "rad/s,m/s",
        ]);
        let curves = Curves::select(&o, &["a", "b"], &["a", "b"], &[]).expect("known");
        assert_eq!(curves.names(), ["q.a, rad", "v.b, m/s"]);
        let sample = |q: &'static [f64], v: &'static [f64], drives: &'static [f64]| Sample {
            t: 0.0,
            q,
            v,
            a: &[],
            kinetic: 0.0,
            potential: 0.0,
            work: 0.0,
            drives,
        };
        assert_eq!(
            curves.values(&sample(&[7.0, 1.0], &[0.5, 2.0], &[])),
            [7.0 - 2.0 * std::f64::consts::PI, 2.0]
        );
        assert!(curves.is_wrapped(0) && !curves.is_wrapped(1));
        let error =
            Curves::select(&options(&["--plot-select", "q.c"]), &["a"], &["a"], &[]).unwrap_err();
        assert!(error.contains("q.a, v.a"), "{error}");
        let all = Curves::select(&options(&[]), &["a", "b"], &["a", "b"], &[]).expect("default");
        assert_eq!(all.names(), ["q.a", "q.b"]);
        let units = options(&["--velocity-units", "rad/s,m/s"]);
        let driven = Curves::select(&units, &["a", "b"], &["a", "b"], &["b"]).expect("default");
        assert_eq!(driven.names(), ["q.a", "q.b", "drive.b, N"]);
        assert_eq!(
            driven.values(&sample(&[1.0, 2.0], &[0.0, 0.0], &[3.5])),
            [1.0, 2.0, 3.5]
        );
    }

    #[test]
    fn angles_wrap_into_the_half_open_turn() {
        let pi = std::f64::consts::PI;
        assert_eq!(wrap(pi), pi);
        assert_eq!(wrap(-pi), pi);
        assert!((wrap(3.0 * pi / 2.0) + pi / 2.0).abs() < 1e-15);
        assert_eq!(wrap(0.25), 0.25);
    }
}
