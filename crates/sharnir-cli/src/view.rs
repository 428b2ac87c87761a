//! `sharnir view`: a spec (or URDF) drawn at one configuration into the
//! animation page, every joint frame and body named. Nothing is compiled:
//! `body_poses` is planned and evaluated in memory
//! ([`sharnir_codegen::Plan::evaluate`], the numbers the emitted function
//! returns), and the page is `sim --html`'s with a single sample.

use crate::args::ViewArgs;
use crate::{load, normalise_quaternions};
use sharnir_codegen::plan::outputs::{Function, Outputs};
use sharnir_codegen::PlanOptions;
use sharnir_mech::{Input, Mechanism, ParameterMode};
use sharnir_sim::{parse_assignment, BodyPose, CoordinateKind, Frames};
use std::collections::HashMap;
use std::path::Path;

/// Runs `sharnir view`.
pub(crate) fn run(args: &ViewArgs, root: &Path) -> miette::Result<()> {
    let spec = load(root, &args.spec, &args.urdf.options())?;
    let mut mechanism = Mechanism::from_spec(&spec, ParameterMode::Runtime)?;
    let mut q = mechanism.initial_positions.clone();
    for text in &args.set {
        let assignment = parse_assignment(text).map_err(|e| miette::miette!("{e}"))?;
        if assignment.kind != CoordinateKind::Position {
            miette::bail!(
                help = "a view is a configuration: set positions, --set q.NAME=VALUE",
                "--set {text}: velocities do not change a drawing"
            );
        }
        let slot = mechanism
            .positions
            .iter()
            .position(|n| *n == assignment.name)
            .ok_or_else(|| {
                miette::miette!(
                    help = format!("the positions are {}", mechanism.positions.join(", ")),
                    "--set q.{}: `{}` has no such position",
                    assignment.name,
                    spec.name
                )
            })?;
        q[slot] = assignment.value;
    }
    normalise_quaternions(&mechanism.quaternions, &mut q)?;
    let parameters: HashMap<String, f64> = mechanism
        .parameters
        .iter()
        .map(|p| (p.name.clone(), p.default))
        .collect();
    let options = PlanOptions {
        outputs: Some(Outputs::NONE.with(Function::BodyPoses)),
        ..PlanOptions::default()
    };
    let plan = sharnir_codegen::plan(&mut mechanism, &options)
        .map_err(|e| miette::miette!("{}: {e}", spec.source.name))?;
    let input = |symbol: &Input| match symbol {
        Input::Parameter(name) => parameters.get(name).copied(),
        Input::Position(i) => q.get(*i).copied(),
        _ => None,
    };
    let flat = plan.evaluate("body_poses", &input).ok_or_else(|| {
        miette::miette!("{}: the body poses cannot be evaluated", spec.source.name)
    })?;
    let poses: Vec<BodyPose<f64>> = flat
        .chunks_exact(12)
        .map(|p| BodyPose {
            rotation: [[p[0], p[1], p[2]], [p[3], p[4], p[5]], [p[6], p[7], p[8]]],
            position: [p[9], p[10], p[11]],
        })
        .collect();
    let scene = crate::scene::of_input(
        root,
        &args.spec,
        &spec,
        &args.urdf.options(),
        &args.package_path,
    )?;
    let mut frames = Frames::new(plan.body_names().to_vec(), mechanism.positions.clone());
    frames.push(0.0, &poses, &q, (0.0, 0.0));
    sharnir_sim::write_page(&args.html, &spec.name, &scene, &[&frames], &[], true)
        .map_err(|message| miette::miette!("{message}"))?;
    eprintln!("wrote {}", args.html.display());
    Ok(())
}
