//! A publication directory as one artifact: checked before any computation, built complete in
//! a staging directory beside the target, described by a manifest (what made it, from what,
//! every file's sha256, the audit's verdict), and moved into place whole. A run that fails, or
//! is killed at any point, leaves the previous publication or the new one, never a mix; what a
//! killed run leaves behind is named `.txanon-staging-<target>-…` and removed by the next run
//! into the same place.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;
use txanon_data::datasets::sha256_file;

use crate::exit::{AuditFailed, UsageError};

/// The manifest's file name.
pub const MANIFEST: &str = "manifest.json";

/// The manifest's format tag.
const MANIFEST_FORMAT: &str = "txanon-publication/1";

/// Names of the staging directories (and of a replaced publication on its way out).
const STAGING: &str = ".txanon-staging-";

/// A publication being built.
#[derive(Debug)]
pub struct Staged {
    target: PathBuf,
    staging: PathBuf,
    replace: bool,
    committed: bool,
}

/// What the manifest says of the input.
#[derive(Debug, Serialize)]
struct InputFile {
    name: String,
    bytes: u64,
    sha256: String,
}

/// The manifest.
#[derive(Debug, Serialize)]
struct Manifest<'a> {
    format: &'static str,
    txanon_version: &'static str,
    commit: &'static str,
    method: &'a str,
    parameters: serde_json::Value,
    seed: String,
    inputs: Vec<InputFile>,
    files: BTreeMap<String, String>,
    audit: serde_json::Value,
    note: Option<&'a str>,
}

/// What the caller tells the manifest.
#[derive(Debug)]
pub struct Description<'a> {
    /// The method, as the CLI names it (`anatomy`, `slicing/mondrian`, …).
    pub method: &'a str,
    /// Every parameter, as given.
    pub parameters: serde_json::Value,
    /// The seed given, or `None` when the operating system seeded the run.
    pub seed: Option<u64>,
    /// The input files.
    pub inputs: Vec<&'a Path>,
    /// The audit's report.
    pub audit: serde_json::Value,
    /// Anything a reader must know (a secret that exists outside the publication).
    pub note: Option<&'a str>,
}

/// Checks `out` before any computation and creates the staging directory beside it: `out` must
/// not be a file, must be empty or absent unless `replace`, and its parent must be writable.
/// Staging directories left by killed runs into the same target are removed first.
///
/// # Errors
/// [`UsageError`] (exit 2) for an unusable `out`.
pub fn prepare(out: &Path, replace: bool) -> Result<Staged> {
    let bad =
        |why: String| -> anyhow::Error { UsageError(format!("{}: {why}", out.display())).into() };
    if out.exists() && !out.is_dir() {
        return Err(bad("exists and is not a directory".into()));
    }
    if out.is_dir() && !replace {
        let mut entries = std::fs::read_dir(out).map_err(|e| bad(e.to_string()))?;
        if entries.next().is_some() {
            return Err(bad(
                "is not empty: choose another output directory, or --force to replace it".into(),
            ));
        }
    }
    let name = out
        .file_name()
        .ok_or_else(|| bad("names no directory".into()))?
        .to_string_lossy()
        .into_owned();
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| bad(format!("cannot create its parent: {e}")))?;
    let prefix = format!("{STAGING}{name}-");
    if let Ok(entries) = std::fs::read_dir(&parent) {
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let staging = parent.join(format!("{prefix}{}-{nanos}", std::process::id()));
    std::fs::create_dir(&staging).map_err(|e| bad(format!("cannot write beside it: {e}")))?;
    Ok(Staged { target: out.to_path_buf(), staging, replace, committed: false })
}

impl Staged {
    /// Where a file of the publication is written while it is built.
    pub fn path(&self, name: &str) -> PathBuf {
        self.staging.join(name)
    }

    /// Writes `value` as pretty JSON (with a final newline) to the file `name` of the
    /// publication, and returns the text (what the CLI also prints, for a summary).
    pub fn write_json(&self, name: &str, value: &impl Serialize) -> Result<String> {
        let text = serde_json::to_string_pretty(value)? + "\n";
        crate::anonymize::write_text(&self.path(name), &text)?;
        Ok(text)
    }

    /// The directory being built (for writers that choose the file name).
    pub fn dir(&self) -> &Path {
        &self.staging
    }

    /// Writes the manifest and moves the publication into place: renamed onto an absent or
    /// empty target, or exchanged atomically with the publication it replaces, which is then
    /// removed.
    ///
    /// # Errors
    /// I/O errors (exit 1).
    pub fn commit(mut self, description: Description<'_>) -> Result<()> {
        let mut files = BTreeMap::new();
        let mut names: Vec<String> = std::fs::read_dir(&self.staging)?
            .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect::<std::io::Result<_>>()?;
        names.sort();
        for name in names {
            files.insert(name.clone(), sha256_file(&self.staging.join(&name))?);
        }
        let inputs = description
            .inputs
            .iter()
            .map(|p| -> Result<InputFile> {
                if txanon_data::stdin::is_stdin(p) {
                    let read = txanon_data::stdin::stdin_digest()
                        .context("standard input was not read to its end")?;
                    return Ok(InputFile {
                        name: "(standard input)".to_string(),
                        bytes: read.bytes,
                        sha256: read.sha256.clone(),
                    });
                }
                Ok(InputFile {
                    name: p.display().to_string(),
                    bytes: std::fs::metadata(p)?.len(),
                    sha256: sha256_file(p)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let manifest = Manifest {
            format: MANIFEST_FORMAT,
            txanon_version: env!("CARGO_PKG_VERSION"),
            commit: option_env!("TXANON_COMMIT").unwrap_or("unknown"),
            method: description.method,
            parameters: description.parameters,
            seed: description.seed.map_or_else(|| "os".to_string(), |s| s.to_string()),
            inputs,
            files,
            audit: serde_json::json!({ "passed": true, "report": description.audit }),
            note: description.note,
        };
        crate::anonymize::write_text(
            &self.staging.join(MANIFEST),
            &(serde_json::to_string_pretty(&manifest)? + "\n"),
        )?;
        sync_dir(&self.staging)?;
        let replacing = self.replace && self.target.is_dir() && non_empty(&self.target)?;
        if replacing {
            exchange(&self.staging, &self.target)
                .with_context(|| format!("replacing {}", self.target.display()))?;
            // The staging path now holds the replaced publication.
            std::fs::remove_dir_all(&self.staging)
                .with_context(|| format!("removing the replaced {}", self.target.display()))?;
        } else {
            std::fs::rename(&self.staging, &self.target)
                .with_context(|| format!("moving the publication to {}", self.target.display()))?;
        }
        if let Some(parent) = self.target.parent().filter(|p| !p.as_os_str().is_empty()) {
            sync_dir(parent)?;
        }
        self.committed = true;
        Ok(())
    }
}

impl Drop for Staged {
    /// A publication not committed (a failed run) leaves nothing behind.
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
}

fn non_empty(dir: &Path) -> Result<bool> {
    Ok(std::fs::read_dir(dir)?.next().is_some())
}

fn sync_dir(dir: &Path) -> Result<()> {
    std::fs::File::open(dir)?.sync_all()?;
    Ok(())
}

/// Swaps two directories atomically (`renameat2` with `RENAME_EXCHANGE`), so that a kill
/// leaves either the old publication or the new one at the target.
fn exchange(a: &Path, b: &Path) -> Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
        Ok(()) => Ok(()),
        Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {
            // A file system without the exchange: the old publication is renamed aside first
            // (a kill between the renames leaves both under recognizable names, no target).
            let aside = a.with_extension("replaced");
            std::fs::rename(b, &aside)?;
            std::fs::rename(a, b)?;
            std::fs::rename(&aside, a)?;
            Ok(())
        }
        Err(e) => Err(std::io::Error::from(e).into()),
    }
}

/// Verifies the manifest of the publication directory `dir`, if it has one: every file it
/// lists present with its sha256. Returns whether a manifest was found.
///
/// # Errors
/// [`AuditFailed`] (exit 3) naming the first file missing or changed; an unreadable manifest.
pub fn verify_manifest(dir: &Path) -> Result<bool> {
    let path = dir.join(MANIFEST);
    if !path.exists() {
        return Ok(false);
    }
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let manifest: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| UsageError(format!("{}: {e}", path.display())))?;
    let Some(files) = manifest["files"].as_object() else {
        return Err(UsageError(format!("{}: no list of files", path.display())).into());
    };
    for (name, expected) in files {
        let file = dir.join(name);
        if name.contains('/') || name.contains("..") || !file.exists() {
            return Err(AuditFailed(format!(
                "{}: {name} is listed in the manifest but missing",
                dir.display()
            ))
            .into());
        }
        if sha256_file(&file)? != expected.as_str().unwrap_or_default() {
            return Err(AuditFailed(format!(
                "{}: {name} is not the file the manifest lists (sha256 differs): changed since it was published",
                dir.display()
            ))
            .into());
        }
    }
    Ok(true)
}

/// [`verify_manifest`] on the directory holding `file`, with a note on stderr when there is no
/// manifest to verify.
///
/// # Errors
/// As [`verify_manifest`].
pub fn verify_beside(file: &Path) -> Result<()> {
    if txanon_data::stdin::is_stdin(file) {
        eprintln!("note: read from standard input: no manifest to check its integrity against");
        return Ok(());
    }
    let dir = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !verify_manifest(dir)? {
        eprintln!(
            "note: {} has no {MANIFEST}: the files' integrity is not checked, only the guarantee",
            dir.display()
        );
    }
    Ok(())
}
