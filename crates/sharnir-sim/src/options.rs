//! The command-line options of a simulation, shared by `cargo xtask sim`
//! (which checks them before compiling anything) and the compiled runner
//! (which uses them).

use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// Options of one simulation run.
#[derive(Args, Clone, Debug)]
pub struct SimOptions {
    /// End time of the simulation, s.
    #[arg(long, value_name = "T", allow_negative_numbers = true)]
    pub t_end: f64,
    /// Integrator: fixed-step `rk4`, `euler` (semi-implicit) and `symplectic`
    /// (in the momenta) need `--dt`;
    /// `dopri5` (like ode45), `dop853` (tight tolerances), `adams` (like
    /// ode113) and `radau5` (stiff; like ode15s) choose their steps from
    /// `--rtol`/`--atol`.
    #[arg(long, value_enum, default_value_t = MethodName::Dopri5)]
    pub method: MethodName,
    /// Step size of the fixed-step methods, s.
    #[arg(long, value_name = "H", allow_negative_numbers = true)]
    pub dt: Option<f64>,
    /// Relative tolerance of the adaptive methods.
    #[arg(long, value_name = "R", default_value_t = 1e-6)]
    pub rtol: f64,
    /// Absolute tolerance of the adaptive methods.
    #[arg(long, value_name = "A", default_value_t = 1e-9)]
    pub atol: f64,
    /// Initial value overriding the spec's `[initial]`: `q.<position name>=value`
    /// or `v.<velocity name>=value` (the CSV's column names), or a
    /// parameter's value overriding the spec's: `p.<parameter name>=value`.
    /// Repeatable.
    #[arg(long = "set", value_name = "q.NAME=VALUE")]
    pub set: Vec<String>,
    /// Write the samples to this CSV file (header: t, q.*, v.*, a.*, drive.*,
    /// energy.kinetic, energy.potential, energy.work; full f64 precision).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Draw the coordinates and the energy error against time into this PNG file.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// The curves of --plot and --html, comma-separated CSV column names
    /// (`q.crank,v.crank`; default: every position coordinate).
    #[arg(long, value_name = "NAMES")]
    pub plot_select: Option<String>,
    /// Draw angles (revolute coordinates) wrapped to (−π, π] in the curves.
    #[arg(long)]
    pub wrap: bool,
    /// The units of the position coordinates, comma-separated in the order
    /// of `q` (`rad`, `m`, `1`): written by `sharnir sim` from the joint
    /// types, for the curves' labels and --wrap.
    #[arg(long, value_name = "UNITS", hide = true)]
    pub position_units: Option<String>,
    /// The units of the velocity coordinates, as --position-units.
    #[arg(long, value_name = "UNITS", hide = true)]
    pub velocity_units: Option<String>,
    /// Write a 3-D animation of the run into this HTML file: one
    /// self-contained page (three.js inside) that works offline, with the
    /// bodies' shapes, play/pause, speed, a time slider and the coordinates'
    /// curves (see docs/animation.md).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// What the animation draws (bodies' shapes and joint frames, JSON),
    /// written by `sharnir sim` from the spec; without it the page draws
    /// each body's frame.
    #[arg(long, value_name = "FILE", hide = true)]
    pub scene: Option<PathBuf>,
    /// Interval between samples, s (default: 1000 intervals over the run).
    /// Samples are at exact multiples of it, and at --t-end.
    #[arg(long, value_name = "D", allow_negative_numbers = true)]
    pub output_dt: Option<f64>,
    /// Ignore the events the runner watches (joint stops, …): no event is
    /// located, none stops the run, no events CSV is written.
    #[arg(long)]
    pub no_events: bool,
    /// Stop a closed mechanism's run at a singular configuration of its
    /// loops (the constraint Jacobian losing rank), naming the coordinates
    /// there, instead of going on through it.
    #[arg(long)]
    pub stop_at_singular: bool,
    /// Longest step of the adaptive methods, s: so that an event whose
    /// function crosses zero and back within one step (a brief contact) is
    /// not missed.
    #[arg(long, value_name = "H", allow_negative_numbers = true)]
    pub max_step: Option<f64>,
    /// Draw no bar of simulated time: a sweep draws one over its cases.
    #[arg(long, hide = true)]
    pub no_progress: bool,
}

/// The values of `--method`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MethodName {
    /// Classical Runge–Kutta, fixed step.
    Rk4,
    /// Semi-implicit Euler in the velocities, fixed step.
    Euler,
    /// Symplectic Euler in the momenta, fixed step: bounded energy error over
    /// long conservative runs (no spherical or free joints).
    Symplectic,
    /// Dormand–Prince 5(4), adaptive.
    Dopri5,
    /// Dormand–Prince 8(5,3), adaptive.
    Dop853,
    /// Adams–Bashforth–Moulton, variable order and step (like ode113).
    Adams,
    /// Radau IIA order 5, implicit, adaptive (stiff problems).
    Radau5,
}

/// An initial value or a parameter's value given with `--set`.
#[derive(Clone, Debug, PartialEq)]
pub struct Assignment {
    /// Whether it sets a position (`q.`), a velocity (`v.`) or a
    /// parameter (`p.`).
    pub kind: CoordinateKind,
    /// The coordinate's name.
    pub name: String,
    /// The value.
    pub value: f64,
}

/// What an [`Assignment`] sets: half of the initial state, or a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoordinateKind {
    /// A position coordinate (`q.<name>`).
    Position,
    /// A velocity coordinate (`v.<name>`).
    Velocity,
    /// A runtime parameter of the module (`p.<name>`, a field of `Params`).
    Parameter,
}

impl CoordinateKind {
    /// The prefix of its names: `q`, `v` or `p`.
    pub fn prefix(self) -> &'static str {
        match self {
            CoordinateKind::Position => "q",
            CoordinateKind::Velocity => "v",
            CoordinateKind::Parameter => "p",
        }
    }
}

impl SimOptions {
    /// Checks what can be checked without the model: the times, tolerances,
    /// step size and the form of every `--set`. Returns the assignments.
    pub fn check(&self) -> Result<Vec<Assignment>, String> {
        if !(self.t_end.is_finite() && self.t_end > 0.0) {
            return Err(format!(
                "--t-end {} must be a positive number of seconds",
                self.t_end
            ));
        }
        let fixed_step = matches!(
            self.method,
            MethodName::Rk4 | MethodName::Euler | MethodName::Symplectic
        );
        match self.dt {
            None if fixed_step => {
                return Err(format!(
                    "--method {} needs a step size: add --dt (for example --dt 1e-3)",
                    self.method_name()
                ))
            }
            Some(dt) if !(dt.is_finite() && dt > 0.0) => {
                return Err(format!("--dt {dt} must be a positive number of seconds"))
            }
            _ => {}
        }
        for (flag, value) in [("--rtol", self.rtol), ("--atol", self.atol)] {
            if !(value.is_finite() && value > 0.0) {
                return Err(format!("{flag} {value} must be positive"));
            }
        }
        for (flag, value) in [
            ("--output-dt", self.output_dt),
            ("--max-step", self.max_step),
        ] {
            if let Some(h) = value {
                if !(h.is_finite() && h > 0.0) {
                    return Err(format!("{flag} {h} must be positive"));
                }
            }
        }
        self.set.iter().map(|s| parse_assignment(s)).collect()
    }

    /// The command line that parses back to these options: what `xtask`
    /// passes to the compiled simulation binary.
    pub fn to_args(&self) -> Vec<String> {
        let mut args = vec![
            "--t-end".to_owned(),
            self.t_end.to_string(),
            "--method".to_owned(),
            self.method_name(),
            "--rtol".to_owned(),
            self.rtol.to_string(),
            "--atol".to_owned(),
            self.atol.to_string(),
        ];
        let optional = [
            ("--dt", self.dt.map(|v| v.to_string())),
            ("--output-dt", self.output_dt.map(|v| v.to_string())),
            ("--max-step", self.max_step.map(|v| v.to_string())),
            ("--csv", self.csv.as_ref().map(|p| p.display().to_string())),
            (
                "--plot",
                self.plot.as_ref().map(|p| p.display().to_string()),
            ),
            (
                "--html",
                self.html.as_ref().map(|p| p.display().to_string()),
            ),
            (
                "--scene",
                self.scene.as_ref().map(|p| p.display().to_string()),
            ),
            ("--plot-select", self.plot_select.clone()),
            ("--position-units", self.position_units.clone()),
            ("--velocity-units", self.velocity_units.clone()),
        ];
        for (flag, value) in optional {
            if let Some(value) = value {
                args.push(flag.to_owned());
                args.push(value);
            }
        }
        for set in &self.set {
            args.push("--set".to_owned());
            args.push(set.clone());
        }
        if self.no_events {
            args.push("--no-events".to_owned());
        }
        if self.stop_at_singular {
            args.push("--stop-at-singular".to_owned());
        }
        if self.wrap {
            args.push("--wrap".to_owned());
        }
        if self.no_progress {
            args.push("--no-progress".to_owned());
        }
        args
    }

    /// The `--method` value as the user types it.
    pub fn method_name(&self) -> String {
        self.method
            .to_possible_value()
            .map(|v| v.get_name().to_owned())
            .unwrap_or_default()
    }
}

/// Parses `q.<name>=<value>`, `v.<name>=<value>` or `p.<name>=<value>`, as
/// `--set` takes it (also `sharnir linearize`'s and `view`'s).
pub fn parse_assignment(text: &str) -> Result<Assignment, String> {
    let hint = "write --set q.<position name>=<value>, v.<velocity name>=<value> \
                or p.<parameter name>=<value>";
    let (target, value) = text
        .split_once('=')
        .ok_or_else(|| format!("--set {text}: no '=': {hint}"))?;
    let (kind, name) = parse_target(target).ok_or_else(|| {
        format!("--set {text}: the name must start with q. or v. (p. for a parameter): {hint}")
    })?;
    let value = parse_value(value).map_err(|e| format!("--set {text}: {e}"))?;
    Ok(Assignment {
        kind,
        name: name.to_owned(),
        value,
    })
}

/// `q.<name>`, `v.<name>` or `p.<name>` as what it names; `None` for any
/// other prefix or an empty name.
pub fn parse_target(target: &str) -> Option<(CoordinateKind, &str)> {
    let target = target.trim();
    [
        CoordinateKind::Position,
        CoordinateKind::Velocity,
        CoordinateKind::Parameter,
    ]
    .into_iter()
    .find_map(|kind| {
        target
            .strip_prefix(kind.prefix())
            .and_then(|rest| rest.strip_prefix('.'))
            .filter(|name| !name.is_empty())
            .map(|name| (kind, name))
    })
}

/// A finite number, or the message that says why the text is none.
pub fn parse_value(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{}' is not a number", text.trim()))?;
    if value.is_finite() {
        Ok(value)
    } else {
        Err(format!("'{}' is not finite", text.trim()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        options: SimOptions,
    }

    fn options(args: &[&str]) -> SimOptions {
        let mut argv = vec!["sim"];
        argv.extend_from_slice(args);
        Cli::try_parse_from(argv).expect("valid arguments").options
    }

    #[test]
    fn assignments_are_parsed_and_checked() {
        let o = options(&[
            "--t-end",
            "2",
            "--set",
            "q.theta1=-1",
            "--set",
            "v.theta1 = 0.5",
        ]);
        let set = o.check().expect("valid");
        assert_eq!(set.len(), 2);
        assert_eq!(set[0].kind, CoordinateKind::Position);
        assert_eq!(set[0].value, -1.0);
        assert_eq!(set[1].kind, CoordinateKind::Velocity);
        assert_eq!(set[1].name, "theta1");
        for bad in [
            "theta1=1",
            "q.theta1",
            "q.theta1=abc",
            "x.theta1=1",
            "q.a=inf",
        ] {
            let o = options(&["--t-end", "2", "--set", bad]);
            assert!(o.check().is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn forwarded_arguments_parse_back_to_the_same_options() {
        let o = options(&[
            "--t-end",
            "2.5",
            "--method",
            "rk4",
            "--dt",
            "0.001",
            "--set",
            "q.a=-1",
            "--csv",
            "out.csv",
            "--html",
            "out.html",
            "--plot-select",
            "q.a,v.a",
            "--wrap",
            "--output-dt",
            "0.1",
            "--no-events",
            "--stop-at-singular",
            "--max-step",
            "0.01",
        ]);
        let args: Vec<String> = o.to_args();
        let back = options(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(back.to_args(), args);
        assert_eq!(back.dt, Some(0.001));
        assert_eq!(back.set, vec!["q.a=-1".to_owned()]);
        assert!(back.no_events && back.stop_at_singular);
        assert_eq!(back.max_step, Some(0.01));
    }

    #[test]
    fn times_and_steps_are_checked() {
        assert!(options(&["--t-end", "-1"]).check().is_err());
        assert!(options(&["--t-end", "1", "--max-step", "0"])
            .check()
            .is_err());
        assert!(options(&["--t-end", "1", "--method", "rk4"])
            .check()
            .is_err());
        assert!(options(&["--t-end", "1", "--method", "rk4", "--dt", "0"])
            .check()
            .is_err());
        assert!(
            options(&["--t-end", "1", "--method", "rk4", "--dt", "0.01"])
                .check()
                .is_ok()
        );
        assert!(options(&["--t-end", "1", "--rtol", "0"]).check().is_err());
        assert!(options(&["--t-end", "1", "--output-dt", "-0.1"])
            .check()
            .is_err());
    }
}
