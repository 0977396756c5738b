//! Opening inputs as they are, hashed as they are read.
//!
//! `-` names standard input wherever one input file is read. Standard input can be read once
//! per process: a second input named `-` is refused rather than read as empty.
//!
//! Every input's bytes are hashed as they stream past, once [`record_input_digests`] asked for
//! it, so that a publication's manifest names each input's true size and sha256 from the one
//! pass that read it: a FIFO or `<(…)` can be read only once, and a file hashed again after the
//! run may no longer be the file that was read.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use sha2::{Digest, Sha256};

use crate::error::{DataError, Result};

/// The name that stands for standard input.
pub const STDIN: &str = "-";

/// Whether `path` names standard input.
pub fn is_stdin(path: &Path) -> bool {
    path == Path::new(STDIN)
}

/// Whether `path` must be read as a stream, once: standard input, a FIFO, a character device,
/// a socket (`<(…)` names a pipe). Such an input is never opened twice (to peek at a header,
/// say) and its size is unknown until it is read.
pub fn is_stream(path: &Path) -> bool {
    is_stdin(path) || std::fs::metadata(path).is_ok_and(|m| !m.is_file())
}

static TAKEN: AtomicBool = AtomicBool::new(false);
static RECORDING: AtomicBool = AtomicBool::new(false);
static DIGESTS: OnceLock<Mutex<HashMap<PathBuf, InputDigest>>> = OnceLock::new();

/// What was read from an input, once it was read to its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputDigest {
    /// Bytes read (as they came, compressed or not).
    pub bytes: u64,
    /// Their sha256, in lower-case hex.
    pub sha256: String,
}

/// From now on, every input opened by this crate's readers is hashed as it is read, and its
/// digest kept for [`input_digest`] (a front end that writes manifests calls this first).
pub fn record_input_digests() {
    RECORDING.store(true, Ordering::SeqCst);
}

/// The size and sha256 of `path` (`-` for standard input) as it was last read to its end, if
/// it was, since [`record_input_digests`].
pub fn input_digest(path: &Path) -> Option<InputDigest> {
    DIGESTS.get()?.lock().ok()?.get(path).cloned()
}

/// An input, hashing what passes; the digest is kept when the end is reached.
struct Hashing {
    inner: Box<dyn Read + Send>,
    path: PathBuf,
    hasher: Option<Sha256>,
    bytes: u64,
}

impl Read for Hashing {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 {
            if let Some(hasher) = self.hasher.take() {
                let digest =
                    InputDigest { bytes: self.bytes, sha256: crate::datasets::hex_digest(hasher) };
                if let Ok(mut map) = DIGESTS.get_or_init(Default::default).lock() {
                    map.insert(self.path.clone(), digest);
                }
            }
        } else if let Some(hasher) = &mut self.hasher {
            hasher.update(&buf[..n]);
            self.bytes += n as u64;
        }
        Ok(n)
    }
}

/// Opens `path` for reading as it is (no decompression): the file, or standard input for `-`;
/// hashed as it is read when [`record_input_digests`] was called.
///
/// # Errors
/// [`DataError::Io`] when the file cannot be opened; [`DataError::Invalid`] when `-` is named a
/// second time in one run, or `path` is a directory.
pub fn open_raw(path: &Path) -> Result<Box<dyn Read + Send>> {
    let inner: Box<dyn Read + Send> = if is_stdin(path) {
        if TAKEN.swap(true, Ordering::SeqCst) {
            return Err(DataError::invalid(
                path,
                "standard input is already read by another input of this run: only one input can be -",
            ));
        }
        Box::new(std::io::stdin())
    } else {
        if path.is_dir() {
            return Err(DataError::invalid(path, "is a directory, not a file"));
        }
        Box::new(std::fs::File::open(path).map_err(|e| DataError::io(path, e))?)
    };
    if !RECORDING.load(Ordering::SeqCst) {
        return Ok(inner);
    }
    Ok(Box::new(Hashing { inner, path: path.to_path_buf(), hasher: Some(Sha256::new()), bytes: 0 }))
}
