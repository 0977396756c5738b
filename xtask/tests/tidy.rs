//! Tidy checks that run as ordinary tests: conventions a reviewer would otherwise have to catch.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy();
        if path.is_dir() && name != "target" && !name.starts_with('.') {
            rust_files(&path, out);
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_rust_file_starts_with_a_module_doc() {
    let mut files = Vec::new();
    for dir in ["crates", "xtask", "fuzz"] {
        if root().join(dir).is_dir() {
            rust_files(&root().join(dir), &mut files);
        }
    }
    assert!(files.len() > 10, "found the sources");
    let offenders: Vec<_> = files
        .iter()
        .filter(|p| !std::fs::read_to_string(p).unwrap().starts_with("//!"))
        .map(|p| p.strip_prefix(root()).unwrap().display().to_string())
        .collect();
    assert!(offenders.is_empty(), "files without a leading //! doc: {offenders:?}");
}

#[test]
fn toolchain_pin_and_rust_version_agree() {
    let toolchain = std::fs::read_to_string(root().join("rust-toolchain.toml")).unwrap();
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let value = |text: &str, key: &str| {
        text.lines()
            .find_map(|l| {
                l.trim()
                    .strip_prefix(key)
                    .map(|r| r.trim().trim_start_matches('=').trim().trim_matches('"').to_string())
            })
            .unwrap_or_else(|| panic!("{key} not found"))
    };
    let channel = value(&toolchain, "channel");
    let rust_version = value(&manifest, "rust-version");
    assert_eq!(channel, "1.95.0", "the only toolchain installed here");
    assert!(channel.starts_with(&rust_version), "channel {channel} vs rust-version {rust_version}");
}

#[test]
fn crates_are_named_as_their_directories_and_inherit_lints() {
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        let dir = entry.unwrap().path();
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("txanon-"), "{name}");
        assert!(
            manifest.contains(&format!("name = \"{name}\"")),
            "{name}: package named as its directory"
        );
        assert!(manifest.contains("[lints]\nworkspace = true"), "{name}: inherits workspace lints");
        assert!(manifest.contains("version.workspace = true"), "{name}: inherits the version");
    }
}

#[test]
fn dataset_readme_checksums_match_the_manifest_in_code() {
    let readme = std::fs::read_to_string(root().join("datasets/README.md")).unwrap();
    for d in txanon_data::datasets::DATASETS {
        let line = readme
            .lines()
            .find(|l| l.contains(&format!("`{}`", d.file)))
            .unwrap_or_else(|| panic!("{} not listed in datasets/README.md", d.file));
        assert!(
            line.contains(d.sha256),
            "{}: checksum in README differs from the code's manifest",
            d.file
        );
    }
}

#[test]
fn architecture_map_names_every_crate() {
    let map = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(map.contains(&format!("`{name}`")), "docs/ARCHITECTURE.md does not mention {name}");
    }
}

/// The modules each family's audit may use: its publication format, its parameters (where the
/// claim's vocabulary lives), its errors and, for slicing, the original microdata and the cell
/// syntax. Never an algorithm module, and of the workspace's other crates only `txanon-data`:
/// an audit that shared code with the algorithm it checks would share its bugs.
const AUDIT_MAY_USE: &[(&str, &[&str])] = &[
    ("txanon-anatomy/src/audit.rs", &["error", "params", "table"]),
    ("txanon-cahd/src/audit.rs", &["error", "params", "publish"]),
    ("txanon-coherence/src/audit.rs", &["error", "params"]),
    ("txanon-swap/src/audit.rs", &["error", "params"]),
    // The hierarchy is the auditor's own input (its file), as a publication format is.
    ("txanon-km/src/audit", &["error", "params", "hierarchy"]),
    (
        "txanon-slicing/src/audit",
        &["error", "params", "cell", "csv", "microdata", "sliced", "generalized", "bucketized"],
    ),
];

#[test]
fn audits_import_nothing_from_the_algorithms_they_check() {
    let mut offenders = Vec::new();
    let mut checked = 0;
    for (place, allowed) in AUDIT_MAY_USE {
        let path = root().join("crates").join(place);
        let mut files = Vec::new();
        if path.is_dir() {
            rust_files(&path, &mut files);
        } else {
            files.push(path);
        }
        for file in files {
            checked += 1;
            let text = std::fs::read_to_string(&file).unwrap();
            let code: String = text
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            for (at, _) in code.match_indices("crate::") {
                let module: String = code[at + "crate::".len()..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let preceded = code[..at].chars().last();
                // `txanon_data::…` contains no `crate::`; `super::` is the audit module itself.
                if preceded.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                if !allowed.contains(&module.as_str()) {
                    offenders.push(format!("{}: crate::{module}", file.display()));
                }
            }
            for (at, _) in code.match_indices("txanon_") {
                let krate: String =
                    code[at..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                // The test kit is a dev-dependency: only an audit's tests can use it.
                if krate != "txanon_data" && krate != "txanon_testkit" {
                    offenders.push(format!("{}: {krate}", file.display()));
                }
            }
        }
    }
    assert!(checked >= 7, "found the audits ({checked} files)");
    assert!(offenders.is_empty(), "audits importing algorithm code: {offenders:?}");
}

/// "The one binomial" and "the one intersection" (docs/ARCHITECTURE.md) stay true: a function
/// of that name outside `txanon_data::sets` delegates to it (a wrapper for its caller's
/// types), or is the one float approximation kept for a budget check.
#[test]
fn the_one_binomial_and_the_one_intersection() {
    let mut files = Vec::new();
    rust_files(&root().join("crates"), &mut files);
    let shared = root().join("crates/txanon-data/src/sets.rs");
    let mut offenders = Vec::new();
    for file in files.iter().filter(|f| **f != shared) {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            let t = line.trim_start();
            let named = ["binomial(", "intersection(", "intersection_len("].iter().any(|name| {
                ["fn ", "pub fn ", "pub(crate) fn "]
                    .iter()
                    .any(|p| t.starts_with(&format!("{p}{name}")))
            });
            if !named || t.contains("&self") {
                continue;
            }
            let body = lines[n..lines.len().min(n + 8)].join("\n");
            let delegates = body.contains("sets::binomial")
                || body.contains("txanon_border::binomial")
                || body.contains("sets::intersection");
            let float = body.contains("-> f64");
            if !delegates && !float {
                offenders.push(format!(
                    "{}:{}",
                    file.strip_prefix(root()).unwrap().display(),
                    n + 1
                ));
            }
        }
    }
    assert!(offenders.is_empty(), "a second binomial or intersection: {offenders:?}");
}

/// Every family in the registry keeps the same layout, so that a newcomer finds any family's
/// parameters, core loop, audit, contract, tests, benchmark, CLI module, experiment and fuzz
/// target by the same path; and its contract names its own registry entry.
#[test]
fn every_family_in_the_registry_keeps_the_same_layout() {
    use txanon_data::FamilyName;
    let mut missing = Vec::new();
    for family in FamilyName::ALL {
        let n = family.as_str();
        let krate = format!("crates/txanon-{n}");
        let expected = [
            format!("{krate}/src/lib.rs"),
            format!("{krate}/src/params.rs"),
            format!("{krate}/src/algorithm.rs"),
            format!("{krate}/src/error.rs"),
            format!("{krate}/src/family.rs"),
            format!("{krate}/tests/tests.rs"),
            format!("{krate}/tests/tamper.rs"),
            format!("{krate}/benches/{n}.rs"),
            format!("crates/txanon-cli/src/{n}.rs"),
            format!("fuzz/fuzz_targets/audit_{n}.rs"),
        ];
        for path in &expected {
            if !root().join(path).is_file() {
                missing.push(path.clone());
            }
        }
        let experiment = root().join("xtask/src/reproduce");
        if !experiment.join(format!("{n}.rs")).is_file()
            && !experiment.join(n).join("mod.rs").is_file()
        {
            missing.push(format!("xtask/src/reproduce/{n}.rs (or {n}/mod.rs)"));
        }
        let audit = root().join(&krate).join("src");
        if !audit.join("audit.rs").is_file() && !audit.join("audit/mod.rs").is_file() {
            missing.push(format!("{krate}/src/audit.rs (or audit/mod.rs)"));
        }
        let contract =
            std::fs::read_to_string(root().join(&krate).join("src/family.rs")).unwrap_or_default();
        let variant = format!("{family:?}");
        if !contract.contains(&format!("const NAME: FamilyName = FamilyName::{variant};")) {
            missing.push(format!("{krate}/src/family.rs: impl Family with NAME {variant}"));
        }
        let fuzz = std::fs::read_to_string(root().join("fuzz/Cargo.toml")).unwrap();
        if !fuzz.contains(&format!("name = \"audit_{n}\"")) {
            missing.push(format!("fuzz/Cargo.toml: [[bin]] audit_{n}"));
        }
    }
    assert!(missing.is_empty(), "families missing their layout: {missing:#?}");
}
