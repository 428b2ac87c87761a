//! Where the tests that run `sharnir sim` are run: the checkout, whose
//! crates the simulation binaries are compiled against.

use std::path::PathBuf;

/// The workspace's root directory.
pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("sharnir-cli lives in crates/ of the workspace")
        .to_path_buf()
}
