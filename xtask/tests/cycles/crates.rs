//! The crates of a checkout as graphs of files: every package's crate
//! roots (its library, binaries, tests, benches and examples), the files
//! its `mod` items reach from each, and which file names which through a
//! path from `crate::` or `super::`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use super::outline::{outline, Outline};
use super::tokens::tokenize;

/// One crate: its files and the files each names.
pub struct Crate {
    /// Its files, the root first, relative to the checkout.
    pub files: Vec<PathBuf>,
    /// `(from, to)` → the first line of `from` that names `to`.
    pub edges: BTreeMap<(usize, usize), usize>,
}

/// Every crate of every package below `checkout`, `target/` and hidden
/// folders left out.
pub fn crates(checkout: &Path) -> Vec<Crate> {
    let mut manifests = Vec::new();
    find_manifests(checkout, &mut manifests);
    manifests.sort();
    manifests
        .iter()
        .flat_map(|manifest| crate_roots(manifest))
        .map(|root| read_crate(checkout, &root))
        .collect()
}

fn find_manifests(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() && !name.starts_with('.') && name != "target" {
            find_manifests(&path, found);
        } else if name == "Cargo.toml"
            && fs::read_to_string(&path)
                .is_ok_and(|text| text.lines().any(|l| l.trim() == "[package]"))
        {
            found.push(path);
        }
    }
}

/// A package's crate roots: the files its targets name (`path = …` under
/// `[lib]`, `[[bin]]`, `[[test]]`, `[[bench]]`, `[[example]]`) and the
/// ones Cargo finds by itself where they exist.
fn crate_roots(manifest: &Path) -> Vec<PathBuf> {
    let package = manifest.parent().unwrap_or(Path::new("."));
    let mut roots = BTreeSet::new();
    let mut in_target = false;
    for line in fs::read_to_string(manifest).unwrap_or_default().lines() {
        let line = line.trim();
        if line.starts_with('[') {
            let section = line.trim_matches(|c| c == '[' || c == ']');
            in_target = ["lib", "bin", "test", "bench", "example"].contains(&section);
        } else if let (true, Some(value)) = (in_target, line.strip_prefix("path")) {
            if let Some(file) = value.trim_start().strip_prefix('=') {
                roots.insert(package.join(file.trim().trim_matches('"')));
            }
        }
    }
    for file in ["src/lib.rs", "src/main.rs"] {
        roots.insert(package.join(file));
    }
    for dir in ["src/bin", "tests", "benches", "examples"] {
        for entry in fs::read_dir(package.join(dir))
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                roots.insert(path.join("main.rs"));
            } else {
                roots.insert(path);
            }
        }
    }
    roots
        .into_iter()
        .filter(|root| root.extension().is_some_and(|e| e == "rs") && root.is_file())
        .collect()
}

/// The crate whose root is `root`: its files, found through their `mod`
/// items, and the edges of the paths they name.
fn read_crate(checkout: &Path, root: &Path) -> Crate {
    let mut files: Vec<PathBuf> = Vec::new();
    let mut outlines: Vec<Outline> = Vec::new();
    let mut file_modules: Vec<Vec<String>> = Vec::new();
    // Every module (a file's or an inline one) → the file it is in.
    let mut modules: BTreeMap<Vec<String>, usize> = BTreeMap::new();
    // (file, its module, whether its children sit beside it as a mod.rs's do)
    let mut queue = vec![(root.to_path_buf(), Vec::new(), true)];
    while let Some((file, module, owns_directory)) = queue.pop() {
        if modules.contains_key(&module) {
            continue;
        }
        let Ok(text) = fs::read_to_string(&file) else {
            continue;
        };
        let index = files.len();
        let found = outline(&tokenize(&text));
        modules.insert(module.clone(), index);
        for inline in &found.inline {
            modules.insert([module.clone(), inline.clone()].concat(), index);
        }
        let here = file.parent().unwrap_or(Path::new(".")).to_path_buf();
        let children = if owns_directory {
            here.clone()
        } else {
            here.join(file.file_stem().unwrap_or_default())
        };
        for declaration in &found.declarations {
            let child = [
                module.clone(),
                declaration.inside.clone(),
                vec![declaration.name.clone()],
            ]
            .concat();
            let within = declaration
                .inside
                .iter()
                .fold(children.clone(), |dir, m| dir.join(m));
            match &declaration.path {
                Some(path) if declaration.inside.is_empty() => {
                    queue.push((here.join(path), child, true))
                }
                Some(path) => queue.push((within.join(path), child, true)),
                None => {
                    let beside = within.join(format!("{}.rs", declaration.name));
                    if beside.is_file() {
                        queue.push((beside, child, false));
                    } else {
                        queue.push((within.join(&declaration.name).join("mod.rs"), child, true));
                    }
                }
            }
        }
        files.push(file.strip_prefix(checkout).unwrap_or(&file).to_path_buf());
        outlines.push(found);
        file_modules.push(module);
    }
    let mut edges = BTreeMap::new();
    for (from, found) in outlines.iter().enumerate() {
        for reference in &found.references {
            let here = [file_modules[from].clone(), reference.inside.clone()].concat();
            if let Some(to) = resolve(&here, &reference.segments, &modules).filter(|&to| to != from)
            {
                edges.entry((from, to)).or_insert(reference.line);
            }
        }
    }
    Crate { files, edges }
}

/// The file of the module that a path names from the module `here`: the
/// longest of its prefixes that is a module (a path to an item names the
/// module the item is in).
fn resolve(
    here: &[String],
    segments: &[String],
    modules: &BTreeMap<Vec<String>, usize>,
) -> Option<usize> {
    let mut path = here.to_vec();
    let mut rest = segments;
    while let Some((anchor, after)) = rest.split_first() {
        match anchor.as_str() {
            "crate" => path.clear(),
            "super" => {
                path.pop()?;
            }
            "self" => {}
            _ => break,
        }
        rest = after;
    }
    path.extend(rest.iter().cloned());
    (0..=path.len())
        .rev()
        .find_map(|n| modules.get(&path[..n]).copied())
}
