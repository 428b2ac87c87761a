//! `cargo xtask sim` (`sharnir sim`): simulate a spec with its generated,
//! compiled dynamics.
//!
//! The module is generated in memory and written, with a short `main`,
//! into a small cargo project under `target/sharnir-sim/<name>/` of a
//! sharnir checkout, whose `sharnir-runtime` and `sharnir-sim` it depends on
//! by path (they are not published), built in release mode and run. The project's files are rewritten only when their
//! text changes, and every project shares one target directory, so the
//! first simulation compiles the runtime once (about a minute on two
//! cores), a new spec compiles only its module, and a second run of the
//! same spec starts at once.

use crate::args::SimArgs;
use crate::context::simulation_sources;
use crate::{is_urdf, load, plan_one, Context};
use sharnir_codegen::{GeneratedModule, Method};
use sharnir_mech::ParameterMode;
use sharnir_sim::{Assignment, CoordinateKind, SimOptions};
use sharnir_spec::Spec;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// `cargo xtask sim`: checks the options, generates the module, then
/// compiles and runs it.
pub(crate) fn run(args: SimArgs, context: &Context) -> miette::Result<()> {
    let built = build(&args, context, |_| Ok(()))?;
    let status = Command::new(&built.binary)
        .args(built.options.to_args())
        .status()
        .map_err(|e| miette::miette!("cannot run {}: {e}", built.binary.display()))?;
    if status.success() {
        Ok(())
    } else {
        // The binary has printed its own error with the time and state.
        Err(miette::miette!("the simulation of {} failed", built.name))
    }
}

/// A compiled simulation binary and the options to run it with.
pub(crate) struct Built {
    /// The binary.
    pub binary: PathBuf,
    /// The checked options, with what `sharnir sim` adds (units, scene).
    pub options: SimOptions,
    /// The module's name.
    pub name: String,
}

/// Checks the options (and what `check` asks of the loaded spec),
/// generates the module and compiles its simulation binary (if it changed).
pub(crate) fn build(
    args: &SimArgs,
    context: &Context,
    check: impl FnOnce(&Spec) -> miette::Result<()>,
) -> miette::Result<Built> {
    let assignments = args.options.check().map_err(|message| {
        miette::miette!(
            help = format!("see {} sim --help", context.program),
            "{message}"
        )
    })?;
    if args.urdf.any() && !is_urdf(&args.spec) {
        miette::bail!("--name, --floating and --fix-inertia apply to URDF inputs only");
    }
    let sources = simulation_sources(args.sharnir_path.as_deref(), context)?;
    let root = context.root();
    let started = Instant::now();
    let spec = load(&root, &args.spec, &args.urdf.options())?;
    check_assignments(&spec, &assignments, "--set")?;
    check_curves(&spec, &args.options)?;
    check(&spec)?;
    let mut options = args.options.clone();
    let (positions, velocities) = coordinate_units(&spec);
    options.position_units = Some(positions.join(","));
    options.velocity_units = Some(velocities.join(","));
    let module = generate_one(&spec, ParameterMode::Runtime, None)?;
    // Every structure the mechanism takes as its joints let go, which the
    // binary continues in.
    let variants = if spec.detachable_joints().next().is_some() {
        sharnir_mech::geometry::release::with_variants(spec.clone())?
            .iter()
            .skip(1)
            .map(|variant| generate_one(variant, ParameterMode::Runtime, None))
            .collect::<miette::Result<Vec<_>>>()?
    } else {
        Vec::new()
    };
    // The animation's shapes and frames, from the spec.
    let scene = match &args.options.html {
        Some(_) => Some(
            crate::scene::of_input(
                &root,
                &args.spec,
                &spec,
                &args.urdf.options(),
                &args.package_path,
            )?
            .to_string(),
        ),
        None => None,
    };
    compile(&Request {
        root: &sources,
        module: &module,
        variants: &variants,
        parameters: &runtime_parameters(&spec),
        options: &options,
        scene: scene.as_deref(),
        generation: started.elapsed().as_secs_f64(),
    })
}

/// The names of the spec's runtime parameters: the fields of its module's
/// `Params` (derived parameters are computed from them).
fn runtime_parameters(spec: &Spec) -> Vec<String> {
    spec.parameters
        .iter()
        .filter(|p| matches!(p.value, sharnir_spec::ParameterValue::Number(_)))
        .map(|p| p.name.clone())
        .collect()
}

/// The module itself (no twin) of `spec`, with the dynamics by `method`, or
/// by the cheapest formalism per output when it is `None`.
fn generate_one(
    spec: &Spec,
    mode: ParameterMode,
    method: Option<Method>,
) -> miette::Result<GeneratedModule> {
    let options = sharnir_codegen::PlanOptions {
        method,
        body_poses: true,
        ..Default::default()
    };
    plan_one(spec, mode, &options)?
        .render(sharnir_codegen::Variant::PLAIN)
        .map_err(|e| miette::miette!("{}: {e}", spec.source.name))
}

/// Everything the simulation binary is built from.
struct Request<'a> {
    /// The sharnir checkout whose crates the binary depends on, and under
    /// whose `target/` it is built.
    pub root: &'a Path,
    /// The runtime-parameter module of the spec.
    pub module: &'a GeneratedModule,
    /// The modules the mechanism continues in as its detachable joints
    /// let go, in any order (none without detachable joints).
    pub variants: &'a [GeneratedModule],
    /// The module's runtime parameters, which the binary sets by name.
    pub parameters: &'a [String],
    /// The checked simulation options.
    pub options: &'a SimOptions,
    /// What `--html` draws (`crate::scene`), as JSON.
    pub scene: Option<&'a str>,
    /// Seconds spent generating the module.
    pub generation: f64,
}

/// Builds the simulation binary of the module (if it changed).
fn compile(request: &Request<'_>) -> miette::Result<Built> {
    let root = request.root;
    let name = &request.module.name;
    let project = root.join("target").join("sharnir-sim").join(name);
    let target = root.join("target").join("sharnir-sim").join("target");
    write_project(
        root,
        &project,
        request.module,
        request.variants,
        request.parameters,
    )?;
    eprintln!("generated {name} in {:.2} s", request.generation);
    let first = !target.join("release").exists();
    if first {
        eprintln!(
            "compiling the simulation of {name} in release mode; the first simulation \
             also compiles the runtime and its plots (about a minute on two cores), later \
             ones only the module"
        );
    } else {
        eprintln!("compiling the simulation of {name}");
    }

    let started = Instant::now();
    let status = Command::new(cargo())
        .arg("build")
        .arg("--release")
        .arg("--quiet")
        .arg("--manifest-path")
        .arg(project.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .status()
        .map_err(|e| miette::miette!("cannot run cargo to compile the simulation: {e}"))?;
    if !status.success() {
        let help = format!(
            "the generated project is in {}; build it there to see the whole error",
            project.display()
        );
        miette::bail!(help = help, "compiling the simulation of {name} failed");
    }
    eprintln!("compiled in {:.2} s", started.elapsed().as_secs_f64());

    let binary = target.join("release").join(format!(
        "{}{}",
        package_name(name),
        std::env::consts::EXE_SUFFIX
    ));
    let mut options = request.options.clone();
    if let Some(scene) = request.scene {
        let path = project.join("scene.json");
        std::fs::write(&path, scene)
            .map_err(|e| miette::miette!("cannot write {}: {e}", path.display()))?;
        options.scene = Some(path);
    }
    Ok(Built {
        binary,
        options,
        name: name.clone(),
    })
}

/// The units of every position and velocity coordinate of `spec`, in the
/// order of `q` and `q̇`: `rad`, `m`, `1` (a quaternion's components),
/// `rad/s`, `m/s`.
fn coordinate_units(spec: &Spec) -> (Vec<&'static str>, Vec<&'static str>) {
    use sharnir_spec::JointKind as K;
    let (mut positions, mut velocities) = (Vec::new(), Vec::new());
    for joint in &spec.joints {
        if joint.position_names().is_empty() {
            continue;
        }
        let (q, v): (&[&str], &[&str]) = match joint.kind {
            K::Revolute => (&["rad"], &["rad/s"]),
            K::Prismatic => (&["m"], &["m/s"]),
            K::Cylindrical => (&["m", "rad"], &["m/s", "rad/s"]),
            K::Universal => (&["rad", "rad"], &["rad/s", "rad/s"]),
            K::Planar => (&["m", "m", "rad"], &["m/s", "m/s", "rad/s"]),
            K::Spherical => (&["1"; 4], &["rad/s"; 3]),
            K::Free => (
                &["m", "m", "m", "1", "1", "1", "1"],
                &["m/s", "m/s", "m/s", "rad/s", "rad/s", "rad/s"],
            ),
            K::Fixed => (&[], &[]),
        };
        positions.extend(q);
        velocities.extend(v);
    }
    (positions, velocities)
}

/// Refuses a `--plot-select` naming no coordinate of the spec before
/// anything is generated or compiled.
fn check_curves(spec: &Spec, options: &SimOptions) -> miette::Result<()> {
    let Some(list) = &options.plot_select else {
        return Ok(());
    };
    let (positions, velocities) = spec.coordinate_names();
    let known: Vec<String> = positions
        .iter()
        .map(|n| format!("q.{n}"))
        .chain(velocities.iter().map(|n| format!("v.{n}")))
        .chain(
            spec.motion
                .iter()
                .map(|m| format!("drive.{}", m.coordinate)),
        )
        .collect();
    for name in list.split(',').map(str::trim) {
        if !known.iter().any(|k| k == name) {
            miette::bail!(
                help = format!("the curves are {}", known.join(", ")),
                "--plot-select: `{name}` is no curve of `{}`",
                spec.name
            );
        }
    }
    Ok(())
}

/// Refuses a `--set` (or whatever `flag` is) naming no coordinate or
/// runtime parameter of the spec before anything is generated or compiled.
pub(crate) fn check_assignments(
    spec: &Spec,
    assignments: &[Assignment],
    flag: &str,
) -> miette::Result<()> {
    for a in assignments {
        if a.kind == CoordinateKind::Parameter {
            check_parameter(spec, &a.name, flag)?;
            continue;
        }
        let (prefix, names): (&str, Vec<String>) = match a.kind {
            CoordinateKind::Position => (
                "q",
                spec.joints
                    .iter()
                    .flat_map(|j| j.position_names())
                    .collect(),
            ),
            CoordinateKind::Velocity => (
                "v",
                spec.joints
                    .iter()
                    .flat_map(|j| j.velocity_names())
                    .collect(),
            ),
            CoordinateKind::Parameter => continue,
        };
        if !names.contains(&a.name) {
            let known: Vec<String> = names.iter().map(|n| format!("{prefix}.{n}")).collect();
            miette::bail!(
                help = format!("its coordinates are {}", known.join(", ")),
                "{flag} {prefix}.{}: `{}` has no such coordinate",
                a.name,
                spec.name
            );
        }
        if spec.motion.iter().any(|m| m.coordinate == a.name) {
            miette::bail!(
                help = "a prescribed coordinate follows its law from t = 0: change the law in [motion]",
                "{flag} {prefix}.{}: `{}` is prescribed by [motion]",
                a.name,
                a.name
            );
        }
    }
    Ok(())
}

/// Refuses `p.<name>` unless it names a runtime parameter of the spec (a
/// derived one is computed from others, which are what to set).
fn check_parameter(spec: &Spec, name: &str, flag: &str) -> miette::Result<()> {
    let runtime = runtime_parameters(spec);
    if runtime.iter().any(|p| p == name) {
        return Ok(());
    }
    let known: Vec<String> = runtime.iter().map(|n| format!("p.{n}")).collect();
    let listed = if known.is_empty() {
        "none".to_owned()
    } else {
        known.join(", ")
    };
    if spec.parameters.iter().any(|p| p.name == name) {
        miette::bail!(
            help = format!("set the parameters it is computed from: {listed}"),
            "{flag} p.{name}: `{name}` is derived from other parameters of `{}`",
            spec.name
        );
    }
    miette::bail!(
        help = format!("its parameters are {listed}"),
        "{flag} p.{name}: `{}` has no such parameter",
        spec.name
    )
}

/// The cargo that runs xtask, so the simulation uses the same toolchain
/// (`cargo` on the `PATH` for an installed `sharnir`).
fn cargo() -> PathBuf {
    std::env::var_os("CARGO").map_or_else(|| PathBuf::from("cargo"), PathBuf::from)
}

fn package_name(module: &str) -> String {
    format!("sim-{}", module.replace('_', "-"))
}

/// Writes the project's manifest, lock file, `main.rs` and module, each only
/// when its text differs from what is there (so cargo sees no change on a
/// second run).
fn write_project(
    root: &Path,
    project: &Path,
    module: &GeneratedModule,
    variants: &[GeneratedModule],
    parameters: &[String],
) -> miette::Result<()> {
    let src = project.join("src");
    std::fs::create_dir_all(&src)
        .map_err(|e| miette::miette!("cannot create {}: {e}", src.display()))?;
    let crates = root.join("crates");
    let manifest = format!(
        "# Written by `sharnir sim`; rewritten on every run.\n\
         [package]\nname = \"{package}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\nlibm = \"0.2\"\n\
         sharnir-runtime = {{ path = {runtime:?} }}\n\
         sharnir-sim = {{ path = {sim:?} }}\n\n\
         [workspace]\n",
        package = package_name(&module.name),
        runtime = crates.join("sharnir-runtime").display().to_string(),
        sim = crates.join("sharnir-sim").display().to_string(),
    );
    let main = if variants.is_empty() {
        let (model, simulation) = model_of("Mechanism", module);
        format!(
            "{header}{model}\n{setter}\n\
             fn main() -> std::process::ExitCode {{\n    \
             sharnir_sim::{entry}(Mechanism::default(), Some(set_parameter))\n}}\n",
            header = main_header(&module.name, &[module]),
            setter = parameter_setter(&module.name, parameters),
            entry = if simulation.ends_with(".closed()") {
                "main_closed_with_parameters"
            } else {
                "main_with_parameters"
            },
        )
    } else {
        releasing_main(module, variants, parameters)
    };
    write_if_changed(&project.join("Cargo.toml"), &manifest)?;
    write_if_changed(&src.join("main.rs"), &main)?;
    for module in std::iter::once(module).chain(variants) {
        write_if_changed(&src.join(format!("{}.rs", module.name)), &module.source)?;
    }
    // The workspace's lock file pins the same dependency versions the
    // workspace was tested with, and lets the build run offline.
    let lock = project.join("Cargo.lock");
    if !lock.exists() {
        if let Ok(text) = std::fs::read_to_string(root.join("Cargo.lock")) {
            write_if_changed(&lock, &text)?;
        }
    }
    Ok(())
}

/// The `main.rs` of a mechanism whose joints let go: one type per
/// structure (`Structure0` the mechanism, then its variants), a function
/// per structure that makes it with the `--set p.` values (every variant
/// has the spec's runtime `parameters`), and `main_releasing` over them.
fn releasing_main(
    module: &GeneratedModule,
    variants: &[GeneratedModule],
    parameters: &[String],
) -> String {
    let all: Vec<&GeneratedModule> = std::iter::once(module).chain(variants).collect();
    let mut types = String::new();
    let mut makers = String::new();
    let mut structures = String::new();
    for (k, structure) in all.iter().enumerate() {
        let ty = format!("Structure{k}");
        let (model, _) = model_of(&ty, structure);
        types.push_str(&model);
        // A module with detachable joints has their reactions.
        let releasing = structure
            .op_counts
            .iter()
            .any(|(f, _)| f == "joint_reactions");
        let loops = structure.loops().is_some();
        if releasing {
            types.push_str(&format!(
                "sharnir_runtime::detachments!({ty} = {}{});\n",
                structure.name,
                if loops { ", loops" } else { "" }
            ));
        }
        let constructor = match (loops, releasing) {
            (false, false) => "open",
            (true, false) => "closed",
            (false, true) => "open_releasing",
            (true, true) => "closed_releasing",
        };
        makers.push_str(&format!(
            "\n/// `{ty}` with the runtime parameters `parameters` set by name.\n\
             fn structure{k}(parameters: &[(String, f64)]) -> Result<{ty}, String> {{\n    \
             #[allow(unused_mut)]\n    \
             let mut params = {module}::Params::default();\n    \
             for (name, value) in parameters {{\n        \
             #[allow(unreachable_code, clippy::match_single_binding)]\n        \
             match name.as_str() {{\n{arms}            \
             _ => return Err(format!(\"--set p.{{name}}: {module} has no runtime parameter `{{name}}`\")),\n        \
             }}\n    }}\n    Ok({ty}::new(params))\n}}\n",
            module = structure.name,
            arms = parameter_arms(parameters, "params", "*value", "            "),
        ));
        structures.push_str(&format!(
            "        sharnir_sim::Structure::{constructor}(structure{k}(parameters)?),\n"
        ));
    }
    format!(
        "{header}{types}{makers}\n\
         /// Every structure with the `--set p.` values.\n\
         fn structures(parameters: &[(String, f64)]) -> Result<Vec<sharnir_sim::Structure>, String> {{\n    \
         Ok(vec![\n{structures}    ])\n}}\n\n\
         fn main() -> std::process::ExitCode {{\n    \
         sharnir_sim::main_releasing(structures)\n}}\n",
        header = main_header(&module.name, &all),
    )
}

/// The `match` arms that set `target.NAME = value` for every runtime
/// parameter, each line indented by `indent`.
fn parameter_arms(parameters: &[String], target: &str, value: &str, indent: &str) -> String {
    parameters
        .iter()
        .map(|name| format!("{indent}{name:?} => {target}.{name} = {value},\n"))
        .collect()
}

/// The binary's `set_parameter` (`sharnir_sim::SetParameter`): a `match`
/// from the names of the runtime parameters to the fields of `Params`.
fn parameter_setter(module: &str, parameters: &[String]) -> String {
    let arms = parameter_arms(parameters, "params", "value", "        ");
    format!(
        "/// The mechanism with parameter `name` set to `value` (`--set p.NAME=…`).\n\
         fn set_parameter(model: &Mechanism, name: &str, value: f64) -> Option<Mechanism> {{\n    \
         #[allow(unused_mut)]\n    \
         let mut params: {module}::Params = *sharnir_runtime::Model::params(model);\n    \
         #[allow(unreachable_code, clippy::match_single_binding)]\n    \
         match name {{\n{arms}        _ => return None,\n    }}\n    \
         Some(Mechanism::new(params))\n}}\n"
    )
}

/// The first lines of the binary's `main.rs`: its doc and the modules.
fn main_header(name: &str, modules: &[&GeneratedModule]) -> String {
    let mut text = format!("//! Written by `sharnir sim`: the simulation binary of `{name}`.\n\n");
    for module in modules {
        text.push_str(&format!(
            "// The binary uses only the dynamics, rates and energy of the module.\n\
             #[allow(dead_code)]\n#[rustfmt::skip]\nmod {};\n\n",
            module.name
        ));
    }
    text
}

/// The `model!` line that makes `module` the type `ty`, and the expression
/// of its simulation: the constrained one for a mechanism with loops
/// (`, linear` for a module without `mass_matrix`, `coriolis_matrix` or
/// `forward_dynamics_derivatives`).
fn model_of(ty: &str, module: &GeneratedModule) -> (String, String) {
    // A module without the quadratic outputs (a big mechanism) computes
    // its mass matrix from its inverse dynamics instead.
    let has = |name: &str| module.op_counts.iter().any(|(f, _)| f == name);
    let full = [
        "mass_matrix",
        "coriolis_matrix",
        "forward_dynamics_derivatives",
    ];
    let linear = if full.into_iter().all(has) {
        ""
    } else {
        ", linear"
    };
    let (loops, simulation) = if module.loops().is_some() {
        (
            ", loops",
            format!("sharnir_runtime::Simulation::new({ty}::default()).closed()"),
        )
    } else {
        (
            "",
            format!("sharnir_runtime::Simulation::new({ty}::default())"),
        )
    };
    (
        format!(
            "sharnir_runtime::model!({ty} = {name}{linear}{loops});\n\
             sharnir_runtime::body_poses!({ty} = {name});\n",
            name = module.name
        ),
        simulation,
    )
}

fn write_if_changed(path: &Path, text: &str) -> miette::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::write(path, text).map_err(|e| miette::miette!("cannot write {}: {e}", path.display()))
}
