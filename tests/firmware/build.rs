//! Links the `firmware` binary with `link.x` (memory map and vector table
//! of the Cortex-M4F board QEMU emulates, `mps2-an386`) when building for a
//! bare-metal ARM target; nothing on the host.

fn main() {
    println!("cargo:rerun-if-changed=link.x");
    println!("cargo:rerun-if-changed=build.rs");
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.starts_with("thumb") && target.ends_with("-none-eabihf") {
        let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
        println!("cargo:rustc-link-arg-bins=-T{dir}/link.x");
        println!("cargo:rustc-link-arg-bins=--nmagic");
    }
}
