//! Import cycles between the files of one crate, found from the source
//! text alone: a file depends on the file of every module it names through
//! a path from `crate::` or `super::` (in a `use` or in code).

mod crates;
mod graph;
mod outline;
mod tokens;

use std::path::{Path, PathBuf};

/// A set of files of one crate that depend on each other in a circle.
pub struct Cycle {
    /// Every file of the tangle (a strongly connected component), sorted,
    /// relative to the checkout.
    pub files: Vec<PathBuf>,
    /// One shortest way round: `a.rs:12 → b.rs:3 → a.rs`, each file with
    /// the line that names the next.
    pub route: String,
}

/// Every `(from, to, line)` of the crates below `checkout`: file `from`
/// names file `to` on `line` (paths relative to the checkout), for tests
/// of which layer may name which.
pub fn references(checkout: &Path) -> Vec<(PathBuf, PathBuf, usize)> {
    crates::crates(checkout)
        .iter()
        .flat_map(|krate| {
            krate.edges.iter().map(|(&(from, to), &line)| {
                (krate.files[from].clone(), krate.files[to].clone(), line)
            })
        })
        .collect()
}

/// Every import cycle of every crate below `checkout`, each once (a file
/// that two crates include gives its cycles to both).
pub fn cycles(checkout: &Path) -> Vec<Cycle> {
    let mut found: Vec<Cycle> = Vec::new();
    for krate in crates::crates(checkout) {
        for mut component in graph::tangles(krate.files.len(), &krate.edges) {
            // By path, so that the way round starts at the same file every run.
            component.sort_by(|&a, &b| krate.files[a].cmp(&krate.files[b]));
            let files: Vec<PathBuf> = component.iter().map(|&n| krate.files[n].clone()).collect();
            if found.iter().any(|cycle| cycle.files == files) {
                continue;
            }
            let way = graph::cycle_through(&component, &krate.edges);
            let route = way
                .windows(2)
                .map(|step| {
                    let line = krate
                        .edges
                        .get(&(step[0], step[1]))
                        .copied()
                        .unwrap_or_default();
                    format!("{}:{line} → ", krate.files[step[0]].display())
                })
                .chain(
                    way.last()
                        .map(|&end| krate.files[end].display().to_string()),
                )
                .collect();
            found.push(Cycle { files, route });
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// A package of `files` (path, text) in a temporary folder.
    fn package(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut all = vec![("Cargo.toml", "[package]\nname = \"p\"\n")];
        all.extend_from_slice(files);
        for (path, text) in all {
            let path = dir.path().join(path);
            fs::create_dir_all(path.parent().expect("in the folder")).expect("folder");
            fs::write(path, text).expect("file");
        }
        dir
    }

    #[test]
    fn a_cycle_is_reported_with_its_lines() {
        let dir = package(&[
            ("src/lib.rs", "mod a;\nmod b;\n"),
            ("src/a.rs", "//! A.\nuse crate::b::B;\npub struct A;\n"),
            ("src/b/mod.rs", "pub struct B;\nfn f() { super::a::A; }\n"),
        ]);
        let found = cycles(dir.path());
        let routes: Vec<&str> = found.iter().map(|c| c.route.as_str()).collect();
        assert_eq!(routes, ["src/a.rs:2 → src/b/mod.rs:2 → src/a.rs"]);
    }

    #[test]
    fn layers_and_a_module_naming_itself_are_no_cycle() {
        let dir = package(&[
            ("src/lib.rs", "mod a;\nmod b;\npub struct Root;\n"),
            (
                "src/a.rs",
                "use crate::Root;\nmod tests { use super::*; use crate::a::X; }\n",
            ),
            ("src/b.rs", "use crate::{a, Root};\n"),
        ]);
        assert!(cycles(dir.path()).is_empty());
    }
}
