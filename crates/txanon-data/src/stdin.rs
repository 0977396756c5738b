//! `-` names standard input wherever one input file is read.
//!
//! Standard input can be read once per process: a second input named `-` is refused rather
//! than read as empty. Its bytes are hashed as they stream past, so that a publication's
//! manifest can name the input's size and sha256 as it does a file's.

use std::io::Read;
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use sha2::{Digest, Sha256};

use crate::error::{DataError, Result};

/// The name that stands for standard input.
pub const STDIN: &str = "-";

/// Whether `path` names standard input.
pub fn is_stdin(path: &Path) -> bool {
    path == Path::new(STDIN)
}

static TAKEN: AtomicBool = AtomicBool::new(false);
static DIGEST: OnceLock<StdinDigest> = OnceLock::new();

/// What was read from standard input, once it was read to its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdinDigest {
    /// Bytes read (as they came, compressed or not).
    pub bytes: u64,
    /// Their sha256, in lower-case hex.
    pub sha256: String,
}

/// The size and sha256 of standard input, when it was read to its end.
pub fn stdin_digest() -> Option<&'static StdinDigest> {
    DIGEST.get()
}

/// Standard input, hashing what passes; the digest is kept when the end is reached.
struct HashingStdin {
    inner: std::io::Stdin,
    hasher: Option<Sha256>,
    bytes: u64,
}

impl Read for HashingStdin {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 {
            if let Some(hasher) = self.hasher.take() {
                let sha256 = crate::datasets::hex_digest(hasher);
                let _ = DIGEST.set(StdinDigest { bytes: self.bytes, sha256 });
            }
        } else if let Some(hasher) = &mut self.hasher {
            hasher.update(&buf[..n]);
            self.bytes += n as u64;
        }
        Ok(n)
    }
}

/// Opens `path` for reading as it is (no decompression): the file, or standard input for `-`.
///
/// # Errors
/// [`DataError::Io`] when the file cannot be opened; [`DataError::Invalid`] when `-` is named a
/// second time in one run.
pub fn open_raw(path: &Path) -> Result<Box<dyn Read + Send>> {
    if is_stdin(path) {
        if TAKEN.swap(true, Ordering::SeqCst) {
            return Err(DataError::invalid(
                path,
                "standard input is already read by another input of this run: only one input can be -",
            ));
        }
        return Ok(Box::new(HashingStdin {
            inner: std::io::stdin(),
            hasher: Some(Sha256::new()),
            bytes: 0,
        }));
    }
    let file = std::fs::File::open(path).map_err(|e| DataError::io(path, e))?;
    Ok(Box::new(file))
}
