//! How far a long computation has come: counters the work advances and a front end reads (a
//! progress bar with a rate and an estimate), shared without locks on the hot path.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// What a phase counts, for a front end to print the rate in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unit {
    /// Bytes (of a file being read).
    #[default]
    Bytes,
    /// Anything else counted: records, transactions, vertices.
    Items,
}

/// A phase's name, unit, work done and total, shared between the work and whoever watches it.
/// Cheap to clone (one `Arc`); advancing is one relaxed atomic addition, so the work advances it
/// in chunks (a buffer, a block of records), not per item.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    done: AtomicU64,
    total: AtomicU64,
    phase: Mutex<(String, Unit)>,
}

/// Two handles are equal when they share their counters: a params struct that carries one
/// compares equal to its clone.
impl PartialEq for Progress {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Eq for Progress {}

impl Progress {
    /// A progress with no phase yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts `phase`: `total` units of `unit` to do (0 when unknown), none done.
    pub fn begin(&self, phase: impl Into<String>, unit: Unit, total: u64) {
        // The counts first: a watcher that sees the new phase never sees the old counts.
        self.inner.done.store(0, Ordering::SeqCst);
        self.inner.total.store(total, Ordering::SeqCst);
        *self.inner.phase.lock().expect("not poisoned") = (phase.into(), unit);
    }

    /// The current phase's total, once it is known.
    pub fn set_total(&self, total: u64) {
        self.inner.total.store(total, Ordering::Relaxed);
    }

    /// `n` more units done.
    pub fn advance(&self, n: u64) {
        self.inner.done.fetch_add(n, Ordering::Relaxed);
    }

    /// Units done in the current phase.
    pub fn done(&self) -> u64 {
        self.inner.done.load(Ordering::Relaxed)
    }

    /// The current phase's total (0 when unknown).
    pub fn total(&self) -> u64 {
        self.inner.total.load(Ordering::Relaxed)
    }

    /// The current phase's name and unit.
    pub fn phase(&self) -> (String, Unit) {
        self.inner.phase.lock().expect("not poisoned").clone()
    }
}

/// A reader that advances `progress` by the bytes it reads.
pub(crate) struct Counting<R> {
    pub inner: R,
    pub progress: Progress,
}

impl<R: std::io::Read> std::io::Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.advance(n as u64);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_restart_the_count_and_clones_share_it() {
        let p = Progress::new();
        let watcher = p.clone();
        p.begin("reading", Unit::Bytes, 100);
        p.advance(40);
        p.advance(2);
        assert_eq!((watcher.done(), watcher.total()), (42, 100));
        p.begin("grouping", Unit::Items, 7);
        assert_eq!((watcher.done(), watcher.total()), (0, 7));
        assert_eq!(watcher.phase(), ("grouping".to_string(), Unit::Items));
    }

    #[test]
    fn reading_a_file_counts_every_byte_of_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.dat");
        let text = "1 2 3\n2 3\n".repeat(50_000);
        std::fs::write(&path, &text).unwrap();
        let progress = Progress::new();
        let (db, _) =
            crate::read_path_with_progress(&path, &crate::ReadOptions::new(), &progress).unwrap();
        assert_eq!(db.len(), 100_000);
        assert_eq!(progress.total(), text.len() as u64);
        assert_eq!(progress.done(), text.len() as u64);
        assert!(progress.phase().0.starts_with("reading "));
    }
}
