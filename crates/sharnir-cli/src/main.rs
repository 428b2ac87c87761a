//! `sharnir`: the command line, installed with
//! `cargo install --path crates/sharnir-cli`. It writes modules into the
//! current directory (or `--out`); see `sharnir --help`.

fn main() -> std::process::ExitCode {
    sharnir_cli::run(std::env::args_os(), &sharnir_cli::Context::user())
}
