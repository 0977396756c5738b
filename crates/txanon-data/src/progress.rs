//! How far a long computation has come: counters the work advances and a front end reads (a
//! progress bar with a rate and an estimate), shared without locks on the hot path; and the way
//! a front end stops the work (Ctrl-C in Python): [`Progress::cancel`].
//!
//! A cancelled computation unwinds from the next [`Progress::begin`] or [`Progress::advance`]
//! with the payload [`Cancelled`] (by `resume_unwind`, which runs no panic hook), through rayon's
//! workers as any unwind does; the front end that cancelled catches it and reports the
//! interruption. Nothing is left behind: a family's work holds only memory until it publishes,
//! and publishing is the front end's, after the work has returned. The work is stopped at its
//! next checkpoint, as often as it advances (a block of records, a buffer).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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
    cancelled: AtomicBool,
}

/// The unwind payload of a cancelled computation (see [`Progress::cancel`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

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
        self.checkpoint();
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
        self.checkpoint();
        self.inner.done.fetch_add(n, Ordering::Relaxed);
    }

    /// Asks the computation to stop: it unwinds with [`Cancelled`] from its next checkpoint.
    pub fn cancel(&self) {
        self.inner.cancelled.store(true, Ordering::Relaxed);
    }

    /// Whether [`Progress::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::Relaxed)
    }

    /// Unwinds with [`Cancelled`] when the computation was cancelled: what [`Progress::begin`]
    /// and [`Progress::advance`] do first, and what a long stretch of work that counts nothing
    /// calls now and then (a search of a few thousand vertices).
    pub fn checkpoint(&self) {
        if self.is_cancelled() {
            std::panic::resume_unwind(Box::new(Cancelled));
        }
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

    /// A cancelled computation unwinds from its next checkpoint with the payload the front end
    /// looks for, from rayon's workers too; one never cancelled runs to its end.
    #[test]
    fn a_cancelled_computation_unwinds_with_cancelled() {
        use rayon::prelude::*;
        let progress = Progress::new();
        let work = |p: &Progress| {
            (0..64u64).into_par_iter().for_each(|i| {
                if i == 40 {
                    p.cancel();
                }
                p.advance(1);
            })
        };
        let unwound = std::panic::catch_unwind(|| work(&progress)).unwrap_err();
        assert!(unwound.is::<Cancelled>());
        assert!(progress.is_cancelled());
        let untouched = Progress::new();
        untouched.begin("all of it", Unit::Items, 64);
        (0..64u64).into_par_iter().for_each(|_| untouched.advance(1));
        assert_eq!(untouched.done(), 64);
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
