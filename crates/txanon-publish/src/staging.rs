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
use std::time::{Duration, Instant};

use serde::Serialize;
use txanon_data::datasets::sha256_file;

use crate::error::{PublishError, Result};
use crate::files::write_text;

/// The manifest's file name.
pub const MANIFEST: &str = "manifest.json";

/// The manifest's format tag (2: no seed, every file of the directory listed).
const MANIFEST_FORMAT: &str = "txanon-publication/2";

/// Names of the staging directories (and of a replaced publication on its way out).
const STAGING: &str = ".txanon-staging-";

/// The sha256 of each of `names` in `dir`, in order, each file on a thread of its own (a
/// publication has a handful of files).
fn hash_all(dir: &Path, names: &[String]) -> Vec<Result<String>> {
    std::thread::scope(|scope| {
        let hashers: Vec<_> = names
            .iter()
            .map(|name| scope.spawn(move || Ok(sha256_file(&dir.join(name))?)))
            .collect();
        hashers
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

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

/// What the manifest says of one input: a file as it was read, or data handed over in memory.
#[derive(Debug, Serialize)]
struct InputEntry {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sha256: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    records: Option<usize>,
}

/// An input of a run, as the manifest names it.
#[derive(Debug, Clone)]
pub enum Source<'a> {
    /// A file (or standard input), hashed as it was read.
    File(&'a Path),
    /// Data handed over in memory (an Arrow table from Python): what it was, and its records.
    Memory {
        /// What was handed over (`pyarrow.Table`, …).
        kind: String,
        /// How many records it held.
        records: usize,
    },
}

/// The manifest.
#[derive(Debug, Serialize)]
struct Manifest<'a> {
    format: &'static str,
    txanon_version: &'static str,
    commit: &'static str,
    method: &'a str,
    parameters: &'a serde_json::Value,
    /// Where the randomness came from, never the seed itself.
    randomness: &'static str,
    inputs: Vec<InputEntry>,
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
    pub parameters: &'a serde_json::Value,
    /// Whether a seed was given (else the operating system seeded the run). Only this reaches
    /// the manifest: the seed is the data holder's secret.
    pub seeded: bool,
    /// The inputs.
    pub inputs: &'a [Source<'a>],
    /// The audit's report.
    pub audit: &'a serde_json::Value,
    /// Anything a reader must know (a secret that exists outside the publication).
    pub note: Option<&'a str>,
}

/// A publication moved into place.
#[derive(Debug, Clone)]
pub struct Committed {
    /// Where it is.
    pub path: PathBuf,
    /// How long since its directory was first checked.
    pub elapsed: Duration,
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
                    PublishError::Usage(format!(
                        "{}: cannot write beside it: {e}",
                        target.display()
                    ))
                })?;
            match flock(file.as_fd(), FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => {}
                Err(e) if e == rustix::io::Errno::WOULDBLOCK => {
                    return Err(PublishError::Usage(format!(
                        "another run is writing {}: wait for it to finish, or choose another output directory",
                        target.display()
                    )));
                }
                Err(e) => {
                    return Err(PublishError::io(format!("locking {}", path.display()), e.into()));
                }
            }
            let same = {
                use std::os::unix::fs::MetadataExt;
                let held = file
                    .metadata()
                    .map_err(|e| PublishError::io(format!("locking {}", path.display()), e))?;
                std::fs::metadata(&path)
                    .is_ok_and(|now| now.ino() == held.ino() && now.dev() == held.dev())
            };
            if same {
                return Ok(Self { path, _file: file });
            }
        }
        Err(PublishError::Usage(format!(
            "another run is writing {}: its lock keeps changing hands",
            target.display()
        )))
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
pub(crate) fn resolved(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).or_else(|_| std::path::absolute(p)).unwrap_or_else(|_| p.to_path_buf())
}

/// Checks `out` before any computation and creates the staging directory beside it: `out` must
/// be a directory or absent, empty unless `replace`, hold none of `inputs` when it is replaced,
/// and its parent must be writable. Staging directories left by killed runs into the same
/// target are removed first, under the target's lock. From here on, inputs are hashed as they
/// are read, for the manifest.
///
/// # Errors
/// [`PublishError::Usage`] for an unusable `out`, an input inside a target to replace, or
/// another run writing the same target.
pub fn prepare(out: &Path, replace: bool, inputs: &[&Path]) -> Result<Staged> {
    let started = Instant::now();
    let bad = |why: String| PublishError::Usage(format!("{}: {why}", out.display()));
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
            if is_staging_of(&entry.file_name().to_string_lossy(), &prefix) {
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

/// Whether `file` is a staging directory (or a replaced publication on its way out) of the
/// target whose staging names start with `prefix`: the prefix, then `<pid>-<nanos>`, then
/// nothing or `.replaced`. Another target whose name extends this one's (`out` and
/// `out-2`) has staging names that start with the same prefix, and must not be touched.
fn is_staging_of(file: &str, prefix: &str) -> bool {
    let Some(rest) = file.strip_prefix(prefix) else { return false };
    let rest = rest.strip_suffix(".replaced").unwrap_or(rest);
    let mut parts = rest.split('-');
    let number =
        |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    number(parts.next()) && number(parts.next()) && parts.next().is_none()
}

impl Staged {
    /// Where a file of the publication is written while it is built.
    pub fn path(&self, name: &str) -> PathBuf {
        self.staging.join(name)
    }

    /// Writes `value` as pretty JSON (with a final newline) to the file `name` of the
    /// publication, and returns the text.
    ///
    /// # Errors
    /// Serialization or I/O.
    pub fn write_json(&self, name: &str, value: &impl Serialize) -> Result<String> {
        let text =
            serde_json::to_string_pretty(value).map_err(|e| PublishError::json(name, e))? + "\n";
        write_text(&self.path(name), &text)?;
        Ok(text)
    }

    /// The directory being built (for writers that choose the file name).
    pub fn dir(&self) -> &Path {
        &self.staging
    }

    /// Where the publication goes.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Writes the manifest and moves the publication into place: renamed onto an absent or
    /// empty target, or exchanged atomically with the publication it replaces, which is then
    /// removed.
    ///
    /// # Errors
    /// I/O errors; an input file that was not read to its end.
    pub fn commit(mut self, description: Description<'_>) -> Result<Committed> {
        let listing = |e| PublishError::io(format!("listing {}", self.staging.display()), e);
        let mut files = BTreeMap::new();
        let mut names: Vec<String> = std::fs::read_dir(&self.staging)
            .map_err(listing)?
            .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect::<std::io::Result<_>>()
            .map_err(listing)?;
        names.sort();
        // The files read back and hashed side by side: at 10⁷ records a publication is a
        // gigabyte in two or three files (docs/PERFORMANCE.md, anatomy).
        let digests = hash_all(&self.staging, &names);
        for (name, sha) in names.into_iter().zip(digests) {
            files.insert(name, sha?);
        }
        let inputs = description.inputs.iter().map(input_entry).collect::<Result<Vec<_>>>()?;
        let manifest = Manifest {
            format: MANIFEST_FORMAT,
            txanon_version: env!("CARGO_PKG_VERSION"),
            commit: option_env!("TXANON_COMMIT").unwrap_or("unknown"),
            method: description.method,
            parameters: description.parameters,
            randomness: if description.seeded {
                "seeded: the seed is the data holder's secret, keyed with the data"
            } else {
                "the operating system's (256 bits)"
            },
            inputs,
            files,
            audit: serde_json::json!({ "passed": true, "report": description.audit }),
            note: description.note,
        };
        let text = serde_json::to_string_pretty(&manifest)
            .map_err(|e| PublishError::json(MANIFEST, e))?
            + "\n";
        write_text(&self.staging.join(MANIFEST), &text)?;
        sync_dir(&self.staging)?;
        let replacing = self.replace && self.target.is_dir() && non_empty(&self.target)?;
        let target = self.target.display().to_string();
        if replacing {
            exchange(&self.staging, &self.target)
                .map_err(|e| PublishError::io(format!("replacing {target}"), e))?;
            // The staging path now holds the replaced publication.
            std::fs::remove_dir_all(&self.staging)
                .map_err(|e| PublishError::io(format!("removing the replaced {target}"), e))?;
        } else {
            std::fs::rename(&self.staging, &self.target)
                .map_err(|e| PublishError::io(format!("moving the publication to {target}"), e))?;
        }
        if let Some(parent) = self.target.parent().filter(|p| !p.as_os_str().is_empty()) {
            sync_dir(parent)?;
        }
        self.committed = true;
        Ok(Committed { path: self.target.clone(), elapsed: self.started.elapsed() })
    }
}

fn input_entry(source: &Source<'_>) -> Result<InputEntry> {
    match source {
        Source::File(p) => {
            let name = if txanon_data::source::is_stdin(p) {
                "(standard input)".to_string()
            } else {
                p.display().to_string()
            };
            // As it was read, in the one pass that read it: a stream cannot be read again, and a
            // file read again may have changed.
            let read = txanon_data::source::input_digest(p).ok_or_else(|| {
                PublishError::io(
                    format!("{} was not read to its end: its digest is unknown", p.display()),
                    std::io::Error::other("input not read whole"),
                )
            })?;
            Ok(InputEntry {
                name,
                bytes: Some(read.bytes),
                sha256: Some(read.sha256),
                records: None,
            })
        }
        Source::Memory { kind, records } => Ok(InputEntry {
            name: format!("({kind} in memory)"),
            bytes: None,
            sha256: None,
            records: Some(*records),
        }),
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
    let mut entries = std::fs::read_dir(dir)
        .map_err(|e| PublishError::io(format!("listing {}", dir.display()), e))?;
    Ok(entries.next().is_some())
}

fn sync_dir(dir: &Path) -> Result<()> {
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| PublishError::io(format!("syncing {}", dir.display()), e))
}

/// Swaps two directories atomically (`renameat2` with `RENAME_EXCHANGE`), so that a kill
/// leaves either the old publication or the new one at the target.
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
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
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::is_staging_of;

    /// A run into `out` clears what killed runs into `out` left, and nothing of `out-2`'s or
    /// `out-eval`'s, whose staging names start the same way.
    #[test]
    fn staging_names_are_told_apart_from_longer_targets() {
        let prefix = ".txanon-staging-out-";
        assert!(is_staging_of(".txanon-staging-out-123-456", prefix));
        assert!(is_staging_of(".txanon-staging-out-123-456.replaced", prefix));
        assert!(!is_staging_of(".txanon-staging-out-2-123-456", prefix));
        assert!(!is_staging_of(".txanon-staging-out-eval-123-456", prefix));
        assert!(!is_staging_of(".txanon-staging-out-123", prefix));
        assert!(!is_staging_of(".txanon-staging-other-123-456", prefix));
    }
}
