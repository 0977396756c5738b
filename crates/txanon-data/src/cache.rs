//! A binary cache of parsed databases, so that large text files are parsed once.
//!
//! Layout: the 8-byte magic `TXANONDB`, the format version (u32 LE), the payload length (u64 LE),
//! the CRC-32 of the payload (u32 LE), then the payload: bincode (standard config) of the source's
//! fingerprint, the read report and the database. A cache is used only when magic, version, length,
//! checksum and fingerprint all match; otherwise the source is read again and the cache rewritten.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::db::TransactionDb;
use crate::error::{DataError, Result};
use crate::read::{ReadOptions, ReadReport, detect_format, read_path};
use crate::write::write_atomic;

const MAGIC: &[u8; 8] = b"TXANONDB";
/// Bump whenever the serialized layout of [`TransactionDb`] or of the fingerprint changes.
pub const CACHE_FORMAT_VERSION: u32 = 3;
const HEADER_LEN: usize = 8 + 4 + 8 + 4;

/// What identifies the source a cache was built from: if any of it changes, the cache is stale.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceFingerprint {
    /// Canonical path of the source.
    pub path: PathBuf,
    /// Size in bytes.
    pub len: u64,
    /// A 64-bit hash of the content: a file rewritten with the same size and modification time
    /// is still recognized as changed (a size and a time were not enough), and a file merely
    /// touched still hits. Not sha256: that costs about as much as parsing the file (measured
    /// in docs/PERFORMANCE.md), which would defeat the cache; a cache key needs no
    /// cryptographic strength, only to miss no accidental change.
    pub content: u64,
    /// The read options the database was built with.
    pub options: ReadOptions,
}

impl SourceFingerprint {
    /// Fingerprints `source` as it is on disk now.
    pub fn of(source: &Path, options: &ReadOptions) -> Result<Self> {
        let meta = fs::metadata(source).map_err(|e| DataError::io(source, e))?;
        let content = content_hash(source)?;
        let path = fs::canonicalize(source).map_err(|e| DataError::io(source, e))?;
        let options = match detect_format(source, options) {
            Some(f) => options.clone().format(f),
            None => options.clone(),
        };
        Ok(Self { path, len: meta.len(), content, options })
    }
}

/// A fast 64-bit hash of a file's bytes: 8-byte words mixed by multiply and rotate, the tail
/// and the length folded in, then a final avalanche (splitmix64's).
fn content_hash(path: &Path) -> Result<u64> {
    use std::io::Read;
    // Opened as every input is, so that a run that loads the cache still has the file's
    // digest for its manifest (this is the one pass that reads it then).
    let mut file = crate::source::open_raw(path)?;
    let mut buf = vec![0u8; 1 << 16];
    let (mut h, mut total, mut carry) = (0x9e37_79b9_7f4a_7c15u64, 0u64, Vec::with_capacity(8));
    let mix = |h: &mut u64, word: u64| {
        *h = (*h ^ word).wrapping_mul(0xff51_afd7_ed55_8ccd).rotate_left(31);
    };
    loop {
        let n = file.read(&mut buf).map_err(|e| DataError::io(path, e))?;
        if n == 0 {
            break;
        }
        total += n as u64;
        let mut bytes = &buf[..n];
        if !carry.is_empty() {
            let take = (8 - carry.len()).min(bytes.len());
            carry.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if carry.len() == 8 {
                mix(&mut h, u64::from_le_bytes(carry[..].try_into().expect("8 bytes")));
                carry.clear();
            }
        }
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            mix(&mut h, u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        carry.extend_from_slice(words.remainder());
    }
    let mut tail = [0u8; 8];
    tail[..carry.len()].copy_from_slice(&carry);
    mix(&mut h, u64::from_le_bytes(tail));
    mix(&mut h, total);
    Ok(crate::mix64(h))
}

/// Saves `db`, built from the source `fingerprint` describes, to `cache` atomically.
pub fn save(
    db: &TransactionDb,
    report: &ReadReport,
    fingerprint: &SourceFingerprint,
    cache: &Path,
) -> Result<()> {
    let config = bincode::config::standard();
    let payload =
        bincode::serde::encode_to_vec((fingerprint, report, db), config).map_err(|e| {
            DataError::Cache { path: cache.to_path_buf(), reason: format!("cannot encode: {e}") }
        })?;
    let mut bytes = Vec::with_capacity(HEADER_LEN + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&CACHE_FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
    write_atomic(cache, |f| {
        use std::io::Write;
        f.write_all(&bytes).map_err(|e| DataError::io(cache, e))
    })
}

/// Loads a cache, checking it against the fingerprint of the source as it is now.
///
/// # Errors
/// [`DataError::Cache`] saying why a cache is rejected: wrong magic, another format version,
/// truncated, checksum mismatch, undecodable, or stale (built from another version of the source).
pub fn load(cache: &Path, expected: &SourceFingerprint) -> Result<(TransactionDb, ReadReport)> {
    let reject = |reason: String| DataError::Cache { path: cache.to_path_buf(), reason };
    let bytes = fs::read(cache).map_err(|e| DataError::io(cache, e))?;
    if bytes.len() < HEADER_LEN || &bytes[..8] != MAGIC {
        return Err(reject("not a txanon cache (bad magic number)".into()));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != CACHE_FORMAT_VERSION {
        return Err(reject(format!(
            "format version {version}, this build reads {CACHE_FORMAT_VERSION}"
        )));
    }
    let len = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes"));
    let crc = u32::from_le_bytes(bytes[20..24].try_into().expect("4 bytes"));
    let payload = &bytes[HEADER_LEN..];
    if payload.len() as u64 != len {
        return Err(reject(format!(
            "truncated: payload of {} bytes, header says {len}",
            payload.len()
        )));
    }
    let actual = crc32fast::hash(payload);
    if actual != crc {
        return Err(reject(format!(
            "checksum mismatch (stored {crc:08x}, computed {actual:08x}): corrupt"
        )));
    }
    let config = bincode::config::standard();
    type Payload = (SourceFingerprint, ReadReport, TransactionDb);
    let ((fingerprint, report, db), _): (Payload, usize) =
        bincode::serde::decode_from_slice(payload, config)
            .map_err(|e| reject(format!("cannot decode: {e}")))?;
    if &fingerprint != expected {
        return Err(reject(
            "stale: the source file or the read options changed since it was written".into(),
        ));
    }
    Ok((db, report))
}

/// How [`read_cached`] obtained the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheOutcome {
    /// Loaded from a valid cache.
    Hit,
    /// No cache existed; the source was read and a cache written.
    Miss,
    /// A cache existed but was rejected (the reason); the source was read and the cache rewritten.
    Rejected(String),
}

/// Reads `source` through a cache in `cache_dir`: a valid cache is loaded, anything else means the
/// source is read and a fresh cache written. Failing to write the cache is not an error: the
/// fourth value says why it was not written, for the caller to tell the user.
pub fn read_cached(
    source: &Path,
    options: &ReadOptions,
    cache_dir: &Path,
) -> Result<(TransactionDb, ReadReport, CacheOutcome, Option<String>)> {
    let fingerprint = SourceFingerprint::of(source, options)?;
    let cache = cache_path(&fingerprint, cache_dir);
    let outcome = if cache.exists() {
        match load(&cache, &fingerprint) {
            Ok((db, report)) => return Ok((db, report, CacheOutcome::Hit, None)),
            Err(e @ DataError::Cache { .. }) => CacheOutcome::Rejected(e.to_string()),
            Err(e) => return Err(e),
        }
    } else {
        CacheOutcome::Miss
    };
    let (db, report) = read_path(source, &fingerprint.options)?;
    // A read-only or full cache directory only costs the next run a re-parse.
    let not_written = match fs::create_dir_all(cache_dir) {
        Err(e) => Some(format!("{}: {e}", cache_dir.display())),
        Ok(()) => save(&db, &report, &fingerprint, &cache).err().map(|e| e.to_string()),
    };
    Ok((db, report, outcome, not_written))
}

/// The cache file for a source: its file name plus a hash of its canonical path and options, so
/// two sources with one name do not share a cache.
pub fn cache_path(fingerprint: &SourceFingerprint, cache_dir: &Path) -> PathBuf {
    let key = format!("{}|{:?}", fingerprint.path.display(), fingerprint.options);
    let name = fingerprint
        .path
        .file_name()
        .map_or_else(|| "source".into(), |n| n.to_string_lossy().into_owned());
    cache_dir.join(format!("{name}.{:08x}.txcache", crc32fast::hash(key.as_bytes())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("db.dat");
        fs::write(&src, "1 2 3\n2 3\n\n").unwrap();
        (dir, src)
    }

    #[test]
    fn miss_then_hit_then_stale() {
        let (dir, src) = setup();
        let cache_dir = dir.path().join("cache");
        let opts = ReadOptions::new();
        let (db1, _, o1, _) = read_cached(&src, &opts, &cache_dir).unwrap();
        assert_eq!(o1, CacheOutcome::Miss);
        let (db2, _, o2, _) = read_cached(&src, &opts, &cache_dir).unwrap();
        assert_eq!(o2, CacheOutcome::Hit);
        assert_eq!(db1, db2);
        fs::write(&src, "1 2 3\n2 3\n\n9\n").unwrap();
        let (db3, _, o3, _) = read_cached(&src, &opts, &cache_dir).unwrap();
        assert!(matches!(o3, CacheOutcome::Rejected(ref r) if r.contains("stale")), "{o3:?}");
        assert_eq!(db3.len(), 4);
    }

    /// A file rewritten with the same size and the same modification time is recognized as
    /// changed; a file touched without change still hits; a cache that cannot be written is
    /// said so.
    #[test]
    fn content_not_size_and_time_decides() {
        let (dir, src) = setup();
        let cache_dir = dir.path().join("cache");
        let opts = ReadOptions::new();
        read_cached(&src, &opts, &cache_dir).unwrap();
        let mtime = fs::metadata(&src).unwrap().modified().unwrap();
        fs::write(&src, "1 2 4\n2 3\n\n").unwrap();
        fs::File::options().write(true).open(&src).unwrap().set_modified(mtime).unwrap();
        let (db, _, outcome, _) = read_cached(&src, &opts, &cache_dir).unwrap();
        assert!(matches!(outcome, CacheOutcome::Rejected(_)), "{outcome:?}");
        assert!(db.labels().find("4").is_some());
        fs::File::options()
            .write(true)
            .open(&src)
            .unwrap()
            .set_modified(std::time::SystemTime::now())
            .unwrap();
        assert_eq!(read_cached(&src, &opts, &cache_dir).unwrap().2, CacheOutcome::Hit);
        // Chunk boundaries do not change the hash.
        let big: String = (0..50_000).map(|i| format!("{} {}\n", i % 97, i % 89 + 100)).collect();
        fs::write(&src, &big).unwrap();
        assert_eq!(content_hash(&src).unwrap(), content_hash(&src).unwrap());
        let file_in_the_way = dir.path().join("not-a-dir");
        fs::write(&file_in_the_way, "x").unwrap();
        let (_, _, _, not_written) = read_cached(&src, &opts, &file_in_the_way).unwrap();
        assert!(not_written.is_some());
    }

    #[test]
    fn corrupt_and_foreign_caches_are_rejected() {
        let (dir, src) = setup();
        let cache_dir = dir.path().join("cache");
        let opts = ReadOptions::new();
        read_cached(&src, &opts, &cache_dir).unwrap();
        let fp = SourceFingerprint::of(&src, &opts).unwrap();
        let cache = cache_path(&fp, &cache_dir);
        let valid = fs::read(&cache).unwrap();
        let mut bytes = valid.clone();
        let last = bytes.len() - 1;
        bytes[last] ^= 0x55;
        fs::write(&cache, &bytes).unwrap();
        let err = load(&cache, &fp).unwrap_err().to_string();
        assert!(err.contains("checksum mismatch"), "{err}");
        let (_, _, outcome, _) = read_cached(&src, &opts, &cache_dir).unwrap();
        assert!(matches!(outcome, CacheOutcome::Rejected(_)));
        fs::write(&cache, b"NOTACACHE-at-all-xxxxxxxxxxxx").unwrap();
        assert!(load(&cache, &fp).unwrap_err().to_string().contains("bad magic"));
        bytes = valid;
        bytes[8] = 99;
        fs::write(&cache, &bytes).unwrap();
        assert!(load(&cache, &fp).unwrap_err().to_string().contains("format version 99"));
    }
}
