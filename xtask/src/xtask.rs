//! `cargo xtask`: the repository's entry point, the `sharnir` command line
//! ([`sharnir_cli::run`]) with this checkout's defaults: `gen` writes into
//! `generated/src` (and rewrites its `lib.rs`), `gen --all` regenerates
//! `specs/`, and `sim` compiles against this checkout's crates.

use std::path::PathBuf;

fn main() -> std::process::ExitCode {
    // xtask lives one level below the checkout's root.
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let root = manifest.parent().map(PathBuf::from).unwrap_or(manifest);
    sharnir_cli::run(std::env::args_os(), &sharnir_cli::Context::repository(root))
}
