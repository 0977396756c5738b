//! A publication directory as one artifact: checked before any computation, built complete in
//! a staging directory beside the target, described by a manifest (what made it, from what,
//! every file's sha256, the audit's verdict), and moved into place whole. A run that fails, or
//! is killed at any point, leaves the previous publication or the new one, never a mix; what a
//! killed run leaves behind is named `.txanon-staging-<target>-…` and removed by the next run
//! into the same place.
//!
//! One run at a time writes a target: each run holds an exclusive lock (`flock`) on
//! `.txanon-lock-<target>` beside it from before it looks at the target until its publication
//! is in place, so a staging directory is removed only by a run that holds the lock, and never
//! while the run that owns it is alive (a lock dies with its process). A second run into the
//! same target meanwhile is refused.
//!
//! The manifest holds no secret: not the seed (which, with the input, recomputes every
//! shuffle), not a key. It is what an audit verifies first: every file of the directory listed,
//! every listed file present with its sha256.

use std::collections::BTreeMap;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use serde::Serialize;
use txanon_data::datasets::sha256_file;

use crate::exit::{AuditFailed, UsageError};

/// The manifest's file name.
pub const MANIFEST: &str = "manifest.json";

/// The manifest's format tag (2: no seed, every file of the directory listed).
const MANIFEST_FORMAT: &str = "txanon-publication/2";

/// Names of the staging directories (and of a replaced publication on its way out).
const STAGING: &str = ".txanon-staging-";

/// Names of the lock files beside a target.
const LOCK: &str = ".txanon-lock-";

/// A publication being built.
#[derive(Debug)]
pub struct Staged {
    target: PathBuf,
    staging: PathBuf,
    replace: bool,
    committed: bool,
    started: Instant,
    /// The target's lock, held until the publication is in place or dropped (a guard).
    _lock: Lock,
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
    /// Where the randomness came from, never the seed itself.
    randomness: &'static str,
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
    /// The seed given, or `None` when the operating system seeded the run. Only whether there
    /// was one reaches the manifest: the seed is the data holder's secret.
    pub seed: Option<u64>,
    /// The input files.
    pub inputs: Vec<&'a Path>,
    /// The audit's report.
    pub audit: serde_json::Value,
    /// Anything a reader must know (a secret that exists outside the publication).
    pub note: Option<&'a str>,
}

/// An exclusive lock on `.txanon-lock-<target>`, removed when released.
#[derive(Debug)]
struct Lock {
    path: PathBuf,
    /// Held open for the `flock`, which lasts as long as it does (never read: a guard).
    _file: std::fs::File,
}

impl Lock {
    /// Takes the lock of `target` (whose file name is `name`, in `parent`), or refuses: another
    /// run is writing the target.
    fn take(parent: &Path, name: &str, target: &Path) -> Result<Self> {
        use rustix::fs::{FlockOperation, flock};
        let path = parent.join(format!("{LOCK}{name}"));
        // The file may be unlinked by the run releasing it between our open and our lock: the
        // lock taken must be on the file the path still names, else take it again.
        for _ in 0..16 {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .map_err(|e| {
                    UsageError(format!("{}: cannot write beside it: {e}", target.display()))
                })?;
            match flock(file.as_fd(), FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => {}
                Err(e) if e == rustix::io::Errno::WOULDBLOCK => {
                    return Err(UsageError(format!(
                        "another run is writing {}: wait for it to finish, or choose another output directory",
                        target.display()
                    ))
                    .into());
                }
                Err(e) => return Err(std::io::Error::from(e).into()),
            }
            let same = {
                use std::os::unix::fs::MetadataExt;
                let held = file.metadata()?;
                std::fs::metadata(&path)
                    .is_ok_and(|now| now.ino() == held.ino() && now.dev() == held.dev())
            };
            if same {
                return Ok(Self { path, _file: file });
            }
        }
        Err(UsageError(format!(
            "another run is writing {}: its lock keeps changing hands",
            target.display()
        ))
        .into())
    }
}

impl Drop for Lock {
    /// Unlinked while still held, so that no run can lock the same file afterwards and think it
    /// alone (a run that opened it meanwhile finds the path names another file, and retries).
    fn drop(&mut self) {
        // The file (and with it the lock) is closed after this, when the fields drop.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The absolute, resolved form of `p` where it exists (else made absolute as written).
fn resolved(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).or_else(|_| std::path::absolute(p)).unwrap_or_else(|_| p.to_path_buf())
}

/// Checks `out` before any computation and creates the staging directory beside it: `out` must
/// be a directory or absent, empty unless `replace`, hold none of `inputs` when it is replaced,
/// and its parent must be writable. Staging directories left by killed runs into the same
/// target are removed first, under the target's lock. From here on, inputs are hashed as they
/// are read, for the manifest.
///
/// # Errors
/// [`UsageError`] (exit 2) for an unusable `out`, an input inside a target to replace, or
/// another run writing the same target.
pub fn prepare(out: &Path, replace: bool, inputs: &[&Path]) -> Result<Staged> {
    let started = Instant::now();
    let bad =
        |why: String| -> anyhow::Error { UsageError(format!("{}: {why}", out.display())).into() };
    if std::fs::symlink_metadata(out).is_ok() && !out.is_dir() {
        return Err(bad("exists and is not a directory: a publication is a directory".into()));
    }
    if out.is_dir() && !replace {
        let mut entries = std::fs::read_dir(out).map_err(|e| bad(e.to_string()))?;
        if entries.next().is_some() {
            return Err(bad(
                "is not empty: choose another output directory, or --force to replace it".into(),
            ));
        }
    }
    if out.is_dir() {
        let target = resolved(out);
        for input in inputs.iter().filter(|p| !txanon_data::source::is_stdin(p)) {
            if resolved(input).starts_with(&target) {
                return Err(bad(format!(
                    "holds the input {}: replacing the directory would delete it; move the input out or choose another output directory",
                    input.display()
                )));
            }
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
    let lock = Lock::take(&parent, &name, out)?;
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
    txanon_data::source::record_input_digests();
    Ok(Staged {
        target: out.to_path_buf(),
        staging,
        replace,
        committed: false,
        started,
        _lock: lock,
    })
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
                let name = if txanon_data::source::is_stdin(p) {
                    "(standard input)".to_string()
                } else {
                    p.display().to_string()
                };
                // As it was read, in the one pass that read it: a stream cannot be read again,
                // and a file read again may have changed.
                let read = txanon_data::source::input_digest(p).with_context(|| {
                    format!("{} was not read to its end: its digest is unknown", p.display())
                })?;
                Ok(InputFile { name, bytes: read.bytes, sha256: read.sha256 })
            })
            .collect::<Result<Vec<_>>>()?;
        let manifest = Manifest {
            format: MANIFEST_FORMAT,
            txanon_version: env!("CARGO_PKG_VERSION"),
            commit: option_env!("TXANON_COMMIT").unwrap_or("unknown"),
            method: description.method,
            parameters: description.parameters,
            randomness: if description.seed.is_some() {
                "seeded: the seed is the data holder's secret, keyed with the data"
            } else {
                "the operating system's (256 bits)"
            },
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
        eprintln!(
            "published {} in {:.1} s",
            self.target.display(),
            self.started.elapsed().as_secs_f64()
        );
        Ok(())
    }
}

impl Drop for Staged {
    /// A publication not committed (a failed run) leaves nothing behind; the lock, a field, is
    /// released after this, once the staging directory is gone.
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

/// Verifies the manifest of the publication directory `dir`: present and readable, every file
/// of the directory listed (the manifest aside), every listed file present with its sha256.
/// Returns how many files it lists.
///
/// # Errors
/// [`AuditFailed`] (exit 3) naming the first problem: no manifest, a broken one, a file missing,
/// changed, or not listed.
pub fn verify_manifest(dir: &Path) -> Result<usize> {
    let fail =
        |why: String| -> anyhow::Error { AuditFailed(format!("{}: {why}", dir.display())).into() };
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
        if sha256_file(&file)? != expected {
            return Err(fail(format!(
                "{name} is not the file the manifest lists (sha256 differs): changed since it was published"
            )));
        }
    }
    let mut extra: Vec<String> = std::fs::read_dir(dir)
        .with_context(|| format!("listing {}", dir.display()))?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<std::io::Result<_>>()?;
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

/// Checks the publication the file `file` belongs to before its audit: the manifest of the
/// directory holding it (see [`verify_manifest`]), unless `no_manifest`, when only the file's
/// existence is checked and the report says the files' integrity was not.
///
/// # Errors
/// [`UsageError`] (exit 2) for a file that does not exist, or standard input without
/// `--no-manifest`; [`AuditFailed`] (exit 3) as [`verify_manifest`].
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
/// [`verify_manifest`]), unless `no_manifest`, when the report says the files' integrity was
/// not checked.
///
/// # Errors
/// [`AuditFailed`] (exit 3) as [`verify_manifest`].
pub fn check_directory(dir: &Path, no_manifest: bool) -> Result<ManifestCheck> {
    if no_manifest {
        eprintln!("note: --no-manifest: the files' integrity is not checked, only the guarantee");
        return Ok(ManifestCheck {
            status: "not checked (--no-manifest)",
            directory: None,
            files: None,
        });
    }
    let files = verify_manifest(dir)?;
    Ok(ManifestCheck {
        status: "verified",
        directory: Some(dir.display().to_string()),
        files: Some(files),
    })
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
