//! What an audit establishes about a publication's files before it checks the guarantee: the
//! manifest present, every file of the directory listed, every listed file present with its
//! sha256.

use std::path::Path;

use serde::Serialize;
use txanon_data::datasets::sha256_file;

use crate::error::{PublishError, Result};
use crate::staging::MANIFEST;

/// What an audit established about the publication's files before it checked the guarantee.
#[derive(Debug, Clone, Serialize)]
pub struct ManifestCheck {
    /// `verified`, or `not checked` (with `--no-manifest`).
    pub status: &'static str,
    /// The directory whose manifest was verified.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub directory: Option<String>,
    /// How many files it lists (the manifest itself aside), each verified.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<usize>,
}

impl ManifestCheck {
    /// Loose files audited without their manifest: the report says so.
    pub fn not_checked() -> Self {
        Self { status: "not checked (--no-manifest)", directory: None, files: None }
    }
}

/// Verifies the manifest of the publication directory `dir`: present and readable, every file
/// of the directory listed (the manifest aside), every listed file present with its sha256.
/// Returns how many files it lists.
///
/// # Errors
/// [`PublishError::Tampered`] naming the first problem: no manifest, a broken one, a file
/// missing, changed, or not listed; I/O errors reading them.
pub fn verify_manifest(dir: &Path) -> Result<usize> {
    let fail = |why: String| PublishError::Tampered(format!("{}: {why}", dir.display()));
    let path = dir.join(MANIFEST);
    if !path.is_file() {
        return Err(fail(format!(
            "no {MANIFEST}: a publication is complete and verified by its manifest, or absent \
             (--no-manifest audits loose files, and the report says so)"
        )));
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|e| fail(format!("{MANIFEST} cannot be read as text: {e}")))?;
    let manifest: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| fail(format!("{MANIFEST} is not a manifest (JSON: {e})")))?;
    let Some(files) = manifest.get("files").and_then(|f| f.as_object()) else {
        return Err(fail(format!("{MANIFEST} has no list of files")));
    };
    for (name, expected) in files {
        let file = dir.join(name);
        if name.is_empty()
            || name.contains('/')
            || name == ".."
            || name == "."
            || name == MANIFEST
            || !std::fs::symlink_metadata(&file).is_ok_and(|m| m.is_file())
        {
            return Err(fail(format!("{name} is listed in the manifest but missing")));
        }
        let Some(expected) = expected.as_str() else {
            return Err(fail(format!("{MANIFEST} lists {name} with no sha256")));
        };
        let actual = sha256_file(&file)?;
        if actual != expected {
            return Err(fail(format!(
                "{name} is not the file the manifest lists (sha256 differs): changed since it was published"
            )));
        }
    }
    let listing = |e| PublishError::io(format!("listing {}", dir.display()), e);
    let mut extra: Vec<String> = std::fs::read_dir(dir)
        .map_err(listing)?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<std::io::Result<_>>()
        .map_err(listing)?;
    extra.retain(|name| name != MANIFEST && !files.contains_key(name));
    extra.sort();
    if !extra.is_empty() {
        return Err(fail(format!(
            "{} not listed in the manifest: {} (a publication holds only what its manifest lists)",
            if extra.len() == 1 { "a file is" } else { "files are" },
            extra.join(", ")
        )));
    }
    Ok(files.len())
}

/// Checks the publication directory `dir` before its audit: its manifest (see
/// [`verify_manifest`]).
///
/// # Errors
/// As [`verify_manifest`].
pub fn check_directory(dir: &Path) -> Result<ManifestCheck> {
    let files = verify_manifest(dir)?;
    Ok(ManifestCheck {
        status: "verified",
        directory: Some(dir.display().to_string()),
        files: Some(files),
    })
}
