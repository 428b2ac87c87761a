//! Where the command line runs ([`Context`]): the sharnir checkout, if
//! any, and where modules go; and the checkout a simulation is compiled
//! against.

use std::path::{Path, PathBuf};

/// Where the command line runs: what it calls itself, where `gen` writes,
/// and the sharnir checkout, if any, whose `specs/`, `generated/` and
/// crates `gen --all` and `sim` use.
#[derive(Clone, Debug)]
pub struct Context {
    /// The command as help and hints name it: `sharnir` or `cargo xtask`.
    pub program: &'static str,
    /// The root of the sharnir checkout the command works in: `gen --all`
    /// regenerates its `specs/` into its `generated/src`, a `gen` into that
    /// directory rewrites its `lib.rs`, input files are named relative to
    /// it, and `sim` compiles against its crates.
    pub checkout: Option<PathBuf>,
    /// Where `gen` writes without `--out` (and without `--all`).
    pub default_out: PathBuf,
}

impl Context {
    /// `cargo xtask` in the checkout at `root`: modules go to its
    /// `generated/src`.
    pub fn repository(root: PathBuf) -> Context {
        Context {
            program: "cargo xtask",
            default_out: root.join("generated").join("src"),
            checkout: Some(root),
        }
    }

    /// The installed `sharnir`: modules go to the current directory, and the
    /// checkout is the one the current directory is in, if any.
    pub fn user() -> Context {
        let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        Context {
            program: "sharnir",
            checkout: find_checkout(&here),
            default_out: PathBuf::from("."),
        }
    }

    /// The directory input files are named relative to, in messages and in
    /// the headers of the modules: the checkout, else the current directory.
    pub(crate) fn root(&self) -> PathBuf {
        self.checkout
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("."))
    }
}

/// The sharnir checkout `start` is in: the nearest directory at or above it
/// with `specs/`, `generated/src/lib.rs` and the runtime's and simulation's
/// crates.
pub fn find_checkout(start: &Path) -> Option<PathBuf> {
    let start = start.canonicalize().ok()?;
    start
        .ancestors()
        .find(|dir| {
            dir.join("specs").is_dir()
                && dir.join("generated").join("src").join("lib.rs").is_file()
                && has_simulation_crates(dir)
        })
        .map(Path::to_path_buf)
}

/// Whether `dir` has the crates a simulation binary is compiled against.
fn has_simulation_crates(dir: &Path) -> bool {
    ["sharnir-runtime", "sharnir-sim"]
        .iter()
        .all(|name| dir.join("crates").join(name).join("Cargo.toml").is_file())
}

/// The sharnir checkout whose `sharnir-runtime` and `sharnir-sim` a
/// simulation binary depends on by path: `--sharnir-path`, else
/// `$SHARNIR_PATH`, else the checkout the command runs in, else the one this
/// binary was built from (`cargo install --path` leaves it where it was).
/// The crates are not published, so without one there is no simulation.
pub(crate) fn simulation_sources(
    given: Option<&Path>,
    context: &Context,
) -> miette::Result<PathBuf> {
    let given = given
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os("SHARNIR_PATH").map(PathBuf::from));
    if let Some(path) = given {
        if has_simulation_crates(&path) {
            // Absolute: the project's manifest, elsewhere, names its crates.
            return path
                .canonicalize()
                .map_err(|e| miette::miette!("cannot resolve {}: {e}", path.display()));
        }
        miette::bail!(
            help = "give the root of a sharnir checkout, the directory with crates/ and specs/",
            "{} is not a sharnir checkout: it has no crates/sharnir-runtime and crates/sharnir-sim",
            path.display()
        );
    }
    if let Some(checkout) = &context.checkout {
        return Ok(checkout.clone());
    }
    let built_from = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2);
    match built_from.filter(|dir| has_simulation_crates(dir)) {
        Some(dir) => Ok(dir.to_path_buf()),
        None => miette::bail!(
            help = "pass --sharnir-path DIR (or set SHARNIR_PATH) to a clone of the sharnir \
                    repository; `sharnir gen` needs none",
            "{program} sim compiles the mechanism against the sharnir-runtime and sharnir-sim \
             crates, which are not published on crates.io, and no sharnir checkout is known",
            program = context.program
        ),
    }
}

/// Whether `a` and `b` are one existing directory.
pub(crate) fn same_directory(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
