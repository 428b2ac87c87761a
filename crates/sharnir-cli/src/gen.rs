//! `cargo xtask gen` (`sharnir gen`): the modules of specs (or URDFs),
//! every one generated in memory before any file is written, each written
//! atomically, with the generated crate's `lib.rs` where there is one, and
//! their operation counts on stdout.

use crate::args::GenArgs;
use crate::context::same_directory;
use crate::{is_urdf, load, plan_one, Context};
use sharnir_codegen::plan::outputs::AUTOMATIC_LIMIT;
use sharnir_codegen::{GeneratedModule, Method};
use sharnir_mech::ParameterMode;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// `cargo xtask gen`: plans and renders every requested module in memory,
/// then writes them all (and the crate's `lib.rs` where one is kept).
pub(crate) fn run(args: GenArgs, context: &Context) -> miette::Result<()> {
    let root = context.root();
    let urdfs = args.specs.iter().filter(|p| is_urdf(p)).count();
    if args.urdf.any() && urdfs == 0 {
        miette::bail!(
            help = "drop --name, --floating, --fix-inertia, --stops and --keep-angles, or give a .urdf file",
            "--name, --floating and --fix-inertia apply to URDF inputs only"
        );
    }
    if args.urdf.name.is_some() && args.specs.len() > 1 {
        miette::bail!(
            help = "generate the URDF on its own to name its module",
            "--name names one module, but {} inputs were given",
            args.specs.len()
        );
    }
    // The checkout's generated crate, whose lib.rs a generation into it rewrites.
    let generated = context
        .checkout
        .as_ref()
        .map(|checkout| checkout.join("generated").join("src"));
    let default_out = match (&generated, args.all) {
        (Some(generated), true) => generated.clone(),
        (None, true) => miette::bail!(
            help = "run it inside a sharnir checkout, or give the specs to generate",
            "--all regenerates the specs/ of a sharnir checkout into its generated/, but {} is in no checkout",
            root.display()
        ),
        (_, false) => context.default_out.clone(),
    };
    let out = args.out.clone().unwrap_or_else(|| default_out.clone());
    let inputs: Vec<PathBuf> = if args.all {
        spec_files(&root.join("specs"))?
    } else {
        args.specs.clone()
    };
    let options = args.urdf.options();
    let method = args.method.map(Method::from);
    let mut modules = Vec::with_capacity(inputs.len());
    // The input each module came from, to name both when two clash.
    let mut sources: Vec<PathBuf> = Vec::with_capacity(inputs.len());
    // What `gen` says of every mechanism with loops, once per plan.
    let mut summaries = String::new();
    // Every input's modules: the runtime one (or with --fold the folded
    // one alone), and the folded twin where the spec asks for it.
    let mut specs = Vec::with_capacity(inputs.len());
    for path in &inputs {
        let variants =
            sharnir_mech::geometry::release::with_variants(load(&root, path, &options)?)?;
        let twin = !args.fold && variants.first().is_some_and(|s| s.folded_twin);
        let first = if args.fold {
            ParameterMode::Folded
        } else {
            ParameterMode::Runtime
        };
        specs.push((path, first, variants.clone()));
        if twin {
            specs.push((path, ParameterMode::Folded, variants));
        }
    }
    for (path, mode, spec) in specs
        .iter()
        .flat_map(|(path, mode, specs)| specs.iter().map(move |spec| (*path, *mode, spec)))
    {
        let options = sharnir_codegen::PlanOptions {
            method,
            fused_multiply_add: args.fma,
            single_precision: args.single_precision,
            outputs: args.outputs,
            body_poses: false,
        };
        let plan = plan_one(spec, mode, &options)?;
        if let Some(skipped) = plan.skipped_automatically() {
            eprintln!(
                "note: {}: more than {AUTOMATIC_LIMIT} velocity coordinates, so {} {} not \
                 generated; ask for them with --outputs all",
                plan.name,
                skipped.join(", "),
                if skipped.len() == 1 { "is" } else { "are" }
            );
        }
        let rendered = plan
            .render_all()
            .map_err(|e| miette::miette!("{}: {e}", spec.source.name))?;
        sources.extend(rendered.iter().map(|_| path.to_path_buf()));
        if let Some(loops) = plan.loops() {
            summaries.push_str(&loop_summary(&plan.name, loops));
        }
        modules.extend(rendered);
    }
    refuse_name_clashes(&modules, &sources)?;
    std::fs::create_dir_all(&out)
        .map_err(|e| miette::miette!("cannot create {}: {e}", out.display()))?;
    for module in &modules {
        write_atomically(&out.join(format!("{}.rs", module.name)), &module.source)?;
    }
    if modules.len() <= 4 {
        for module in &modules {
            eprintln!(
                "wrote {}",
                out.join(format!("{}.rs", module.name)).display()
            );
        }
    } else {
        eprintln!("wrote {} modules into {}", modules.len(), out.display());
    }
    let into_checkout = generated
        .as_deref()
        .is_some_and(|generated| same_directory(generated, &out));
    if into_checkout || args.lib_rs {
        if args.all && into_checkout {
            remove_stale_modules(&out, &modules)?;
        }
        write_atomically(&out.join("lib.rs"), &crate_root(&out, into_checkout)?)?;
    }
    print!("{summaries}");
    print!("{}", op_count_table(&modules));
    Ok(())
}

/// What `gen` says of a mechanism with loops: every loop with its joints in
/// order (the cut joint first), the constraint count and the degrees of
/// freedom at the initial configuration.
fn loop_summary(name: &str, loops: &sharnir_codegen::LoopFacts) -> String {
    let mut text = format!("{name}: {} closed loop(s)\n", loops.loops.len());
    for joints in &loops.loops {
        let (cut, rest) = joints
            .split_first()
            .map_or(("", &[][..]), |(c, r)| (c.as_str(), r));
        text.push_str(&format!("  loop: {cut} (cut) → {}\n", rest.join(" → ")));
    }
    let m = &loops.mobility;
    text.push_str(&format!(
        "  {} constraints ({} redundant), {} tree coordinates: {} degree(s) of freedom\n",
        m.constraints,
        m.redundant(),
        m.coordinates,
        m.degrees_of_freedom()
    ));
    if m.residual > 1e-9 {
        text.push_str(&format!(
            "  note: [initial] does not close the loops (largest |Ψ| = {:.3e}); \
             a simulation assembles it first\n",
            m.residual
        ));
    }
    text
}

/// Every `*.spec` under `dir`, sorted so generation order is deterministic.
fn spec_files(dir: &Path) -> miette::Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| miette::miette!("cannot list {}: {e}", dir.display()))?;
    let mut specs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "spec"))
        .collect();
    specs.sort();
    Ok(specs)
}

/// Two inputs whose modules have the same name would write one file, the
/// second silently replacing the first: refuse before writing anything.
fn refuse_name_clashes(modules: &[GeneratedModule], sources: &[PathBuf]) -> miette::Result<()> {
    for (i, module) in modules.iter().enumerate() {
        if let Some(j) = modules[..i].iter().position(|m| m.name == module.name) {
            let first = sources.get(j).map(|p| p.display().to_string());
            let second = sources.get(i).map(|p| p.display().to_string());
            miette::bail!(
                help = "give one of them another `name` under [mechanism] (or --name for a URDF)",
                "{} and {} both define the mechanism `{}`: both would be written to {}.rs",
                first.unwrap_or_default(),
                second.unwrap_or_default(),
                module.name,
                module.name
            );
        }
    }
    Ok(())
}

/// Writes through a temporary file in the same directory and renames it into
/// place, so readers never see a partial file. The file gets the usual mode
/// of a source file (`rw-r--r--`), not the temporary file's private one. A
/// file that already holds `contents` is left alone, modification time and
/// all, so that regenerating unchanged modules does not make cargo compile
/// the crate that holds them again.
pub(crate) fn write_atomically(path: &Path, contents: &str) -> miette::Result<()> {
    if std::fs::read(path).is_ok_and(|old| old == contents.as_bytes()) {
        return Ok(());
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let failure = |e: std::io::Error| miette::miette!("cannot write {}: {e}", path.display());
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(failure)?;
    file.write_all(contents.as_bytes()).map_err(failure)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))
            .map_err(failure)?;
    }
    file.persist(path).map_err(|e| failure(e.error))?;
    Ok(())
}

/// Marker that identifies files this tool wrote.
const GENERATED_MARKER: &str = "equations of motion generated by sharnir";

/// Deletes generated modules whose spec no longer exists.
fn remove_stale_modules(dir: &Path, kept: &[GeneratedModule]) -> miette::Result<()> {
    for path in module_files(dir)? {
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_owned();
        let generated = std::fs::read_to_string(&path).is_ok_and(|t| t.contains(GENERATED_MARKER));
        if generated && !kept.iter().any(|m| m.name == stem) {
            std::fs::remove_file(&path)
                .map_err(|e| miette::miette!("cannot remove {}: {e}", path.display()))?;
        }
    }
    Ok(())
}

fn module_files(dir: &Path) -> miette::Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| miette::miette!("cannot list {}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "rs") && p.file_name().is_some_and(|n| n != "lib.rs")
        })
        .collect();
    files.sort();
    Ok(files)
}

/// `lib.rs` of the generated crate: every module file in the directory. The
/// checkout's `generated/src` (`checkout`) says it comes from `specs/`.
fn crate_root(dir: &Path, checkout: bool) -> miette::Result<String> {
    let origin = if checkout {
        "//! Every module generated from `specs/`, compiled together as one `no_std` crate.\n\
         //! Do not edit: `cargo xtask gen --all` rewrites this file.\n"
    } else {
        "//! Every module `sharnir gen` wrote here, compiled together as one `no_std` crate.\n\
         //! Do not edit: `sharnir gen --lib-rs` rewrites this file.\n"
    };
    let mut text = format!(
        "{origin}//! The modules are laid out by prettyplease and exempt from rustfmt, so that\n\
         //! `cargo fmt` never makes them differ from a fresh generation.\n\n#![no_std]\n\n",
    );
    for path in module_files(dir)? {
        if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
            let _ = writeln!(text, "#[rustfmt::skip]\npub mod {stem};");
        }
    }
    Ok(text)
}

/// The per-function operation counts as a plain-text table.
fn op_count_table(modules: &[GeneratedModule]) -> String {
    let mut table = String::new();
    let _ = writeln!(
        table,
        "{:<28} {:<20} {:>6} {:>6} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5}",
        "module", "function", "mul", "add", "div", "sqrt", "sin", "cos", "exp", "fma"
    );
    for module in modules {
        for (function, o) in &module.op_counts {
            let _ = writeln!(
                table,
                "{:<28} {:<20} {:>6} {:>6} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5}",
                module.name, function, o.mul, o.add, o.div, o.sqrt, o.sin, o.cos, o.exp, o.fma
            );
        }
    }
    table
}
