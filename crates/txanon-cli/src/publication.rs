//! The CLI's side of a publication: the output directory checked before any computation and
//! the publication committed through `txanon-publish` (which also writes Python's, byte for
//! byte the same), and what every audit shares: the manifest's check, the verdict printed.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;
pub use txanon_publish::{ManifestCheck, Source, Staged};

use crate::exit::{AuditFailed, UsageError};

/// Checks `out` before any computation and starts the publication beside it (see
/// [`txanon_publish::prepare`]).
///
/// # Errors
/// An unusable `out` (exit 2).
pub fn prepare(out: &Path, replace: bool, inputs: &[&Path]) -> Result<Staged> {
    Ok(txanon_publish::prepare(out, replace, inputs)?)
}

/// Writes `release` into `staged` (transaction files in the format `to`) with its manifest
/// naming the input files `inputs`, moves it into place and says so on standard error.
///
/// # Errors
/// I/O.
pub fn commit(
    release: &txanon_publish::Release,
    staged: Staged,
    to: Option<txanon_data::Format>,
    inputs: &[Option<&Path>],
) -> Result<()> {
    let sources: Vec<Source<'_>> = inputs.iter().flatten().map(|p| Source::File(p)).collect();
    let committed = release.commit(staged, to, &sources)?;
    said_published(&committed);
    Ok(())
}

/// The line a run ends its publication with, on standard error.
pub fn said_published(committed: &txanon_publish::Committed) {
    eprintln!("published {} in {:.1} s", committed.path.display(), committed.elapsed.as_secs_f64());
}

/// The absolute, resolved form of `p` where it exists (else made absolute as written).
fn resolved(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).or_else(|_| std::path::absolute(p)).unwrap_or_else(|_| p.to_path_buf())
}

/// Checks the publication the file `file` belongs to before its audit: the manifest of the
/// directory holding it (see [`txanon_publish::verify_manifest`]), unless `no_manifest`, when only the file's
/// existence is checked and the report says the files' integrity was not.
///
/// # Errors
/// [`UsageError`] (exit 2) for a file that does not exist, or standard input without
/// `--no-manifest`; [`AuditFailed`] (exit 3) as [`txanon_publish::verify_manifest`].
pub fn check_publication(file: &Path, no_manifest: bool) -> Result<ManifestCheck> {
    let stream = txanon_data::source::is_stream(file);
    if !stream && !file.is_file() {
        return Err(UsageError(format!("{}: no such file", file.display())).into());
    }
    if stream && !no_manifest {
        return Err(UsageError(format!(
            "{}: a stream has no manifest to verify: audit the publication directory's file, or pass --no-manifest",
            file.display()
        ))
        .into());
    }
    let dir = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    check_directory(dir, no_manifest)
}

/// Checks the publication directory `dir` before its audit: its manifest (see
/// [`txanon_publish::verify_manifest`]), unless `no_manifest`, when the report says the files'
/// integrity was not checked.
///
/// # Errors
/// A failed check (exit 3).
pub fn check_directory(dir: &Path, no_manifest: bool) -> Result<ManifestCheck> {
    if no_manifest {
        eprintln!("note: --no-manifest: the files' integrity is not checked, only the guarantee");
        return Ok(ManifestCheck::not_checked());
    }
    Ok(txanon_publish::check_directory(dir)?)
}

/// The options every audit shares.
#[derive(Debug, clap::Args)]
pub struct ManifestArgs {
    /// Audit loose files: skip the publication's manifest (by default every file of the
    /// directory must be listed in its manifest.json, and every listed file present and
    /// unchanged, or the audit fails); the report says the files were not checked.
    #[arg(long)]
    pub no_manifest: bool,
    /// The verdict as one JSON object (`verdict`, `claim`, the report or the violations)
    /// instead of `PASS: …`/`FAIL: …` and lines for people.
    #[arg(long)]
    pub json: bool,
}

/// A publication file that does not parse: a failed audit (exit 3) naming it, since an auditor
/// handed a broken publication has not been shown a safe one.
pub fn unreadable(file: &Path, why: impl std::fmt::Display) -> anyhow::Error {
    AuditFailed(format!("{}: not a readable publication file: {why}", file.display())).into()
}

/// Reads a transaction file of the publication: a missing file is the auditor's mistake
/// (exit 2), one that does not parse a broken publication (exit 3).
///
/// # Errors
/// As said.
pub fn read_published(path: &Path) -> Result<txanon_data::TransactionDb> {
    if !txanon_data::source::is_stream(path) && !path.is_file() {
        return Err(UsageError(format!("{}: no such file", path.display())).into());
    }
    txanon_data::read_path(path, &txanon_data::ReadOptions::new())
        .map(|(db, _)| db)
        .map_err(|e| unreadable(path, e))
}

/// The first of `names` present beside `file` in its directory (a sibling file of the
/// publication the audit reads too), when the manifest was verified.
pub fn sibling(
    file: &Path,
    manifest: &ManifestCheck,
    names: &[impl AsRef<Path>],
) -> Option<PathBuf> {
    manifest.files?;
    let dir = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    names.iter().map(|n| dir.join(n)).find(|p| p.is_file())
}

/// Whether `path` lies in the publication directory whose manifest was verified: a file that
/// then does not parse is a broken publication (exit 3), not the auditor's mistake.
pub fn in_publication(path: &Path, manifest: &ManifestCheck) -> bool {
    let Some(dir) = &manifest.directory else { return false };
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    resolved(parent) == resolved(Path::new(dir))
}

/// `result`'s error as a broken publication (exit 3) when `path` lies in the verified
/// publication, else as it is.
pub fn published_or<T, E: Into<anyhow::Error> + std::fmt::Display>(
    path: &Path,
    manifest: &ManifestCheck,
    result: std::result::Result<T, E>,
) -> Result<T> {
    match result {
        Ok(v) => Ok(v),
        Err(e) if in_publication(path, manifest) => Err(unreadable(path, e)),
        Err(e) => Err(e.into()),
    }
}

/// Entries of an auditor's list (`option`, read from `path`) that name no item of the
/// publication or the original: each reported on stderr, since a typo would silently shrink
/// the claim; with `strict`, a usage error (exit 2) instead.
///
/// # Errors
/// As said.
pub fn unknown_entries(
    option: &str,
    path: &Path,
    entries: &[String],
    known: impl Fn(&str) -> bool,
    strict: bool,
) -> Result<()> {
    let unknown: Vec<&str> = entries.iter().map(String::as_str).filter(|e| !known(e)).collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let message = format!(
        "{option} {}: {} entr{} name{} no item of the publication or the original, so the claim does not cover {}: {}",
        path.display(),
        unknown.len(),
        if unknown.len() == 1 { "y" } else { "ies" },
        if unknown.len() == 1 { "s" } else { "" },
        if unknown.len() == 1 { "it" } else { "them" },
        unknown.iter().map(|e| format!("{e:?}")).collect::<Vec<_>>().join(" ")
    );
    if strict {
        return Err(UsageError(format!("{message} (--strict)")).into());
    }
    eprintln!("warning: {message}");
    Ok(())
}

/// An audit's report with what was established of the files: the report's JSON object with a
/// `manifest` member.
///
/// # Errors
/// Serialization.
pub fn report_value(
    report: &impl Serialize,
    manifest: &ManifestCheck,
) -> Result<serde_json::Value> {
    let mut value = serde_json::to_value(report)?;
    if let Some(object) = value.as_object_mut() {
        object.insert("manifest".into(), serde_json::to_value(manifest)?);
    }
    Ok(value)
}

/// Prints an audit's verdict on standard output: `PASS: <claim>` or `FAIL: <claim>` as the
/// first line, then the report's figures or the violations; with `json`, one JSON object with
/// `verdict`, `claim` and the report (or `violations`). A failed audit is then returned as the
/// error it is (exit 3); any other error is returned untouched, nothing printed.
///
/// # Errors
/// `outcome`'s error; writing to standard output.
pub fn conclude(claim: &str, json: bool, outcome: Result<serde_json::Value>) -> Result<()> {
    let (verdict, body, error) = match outcome {
        Ok(report) => ("PASS", report, None),
        Err(e) if crate::exit::audit_failed(&e) => {
            // The violations as the audit listed them, one a line after its summary line.
            let text = e.root_cause().to_string();
            let mut lines = text.lines().map(|l| l.trim_start().trim_start_matches("- "));
            let summary = lines.next().unwrap_or_default().to_string();
            let mut violations: Vec<String> = lines.map(str::to_string).collect();
            if violations.is_empty() {
                violations.push(summary.clone());
            }
            ("FAIL", serde_json::json!({ "summary": summary, "violations": violations }), Some(e))
        }
        Err(e) => return Err(e),
    };
    let text = if json {
        let mut object = serde_json::Map::new();
        object.insert("verdict".into(), verdict.into());
        object.insert("claim".into(), claim.into());
        if let serde_json::Value::Object(fields) = body {
            object.extend(fields);
        }
        serde_json::to_string_pretty(&object)? + "\n"
    } else {
        let mut text = format!("{verdict}: {claim}\n");
        match &body {
            serde_json::Value::Object(fields) if verdict == "PASS" => {
                for (key, value) in fields {
                    let shown = match value {
                        serde_json::Value::String(s) => s.clone(),
                        serde_json::Value::Object(o) => o
                            .iter()
                            .map(|(k, v)| {
                                format!(
                                    "{k} {}",
                                    v.as_str().map_or_else(|| v.to_string(), str::to_owned)
                                )
                            })
                            .collect::<Vec<_>>()
                            .join(", "),
                        other => other.to_string(),
                    };
                    text.push_str(&format!("  {key}: {shown}\n"));
                }
            }
            _ => {
                if body["violations"].as_array().is_some_and(|v| v.len() > 1) {
                    text.push_str(&format!("  {}\n", body["summary"].as_str().unwrap_or_default()));
                }
                for line in body["violations"].as_array().into_iter().flatten() {
                    text.push_str(&format!("  {}\n", line.as_str().unwrap_or_default()));
                }
            }
        }
        text
    };
    crate::input::emit(&text)?;
    match error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
