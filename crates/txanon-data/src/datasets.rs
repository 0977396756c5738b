//! The real public datasets the experiments use: where to find them, what they should contain.
//!
//! A dataset is looked up, in order, in `$TXANON_DATA`, in `datasets/`, and in
//! `../shared/datasets/`, each of the last two relative to the current directory and to the
//! workspace root. Its sha256 is checked against the manifest the first time a process uses it.

use std::collections::HashSet;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::error::{DataError, Result};

/// One dataset of the manifest, with the statistics measured on the published file.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DatasetInfo {
    /// Short name used on the command line and in results (`connect`, `bms1`, …).
    pub name: &'static str,
    /// File name.
    pub file: &'static str,
    /// What it is and where it comes from.
    pub origin: &'static str,
    /// Expected sha256 of the file.
    pub sha256: &'static str,
    /// Number of transactions (data rows for CSV).
    pub transactions: usize,
    /// Distinct items (0 for CSV).
    pub items: usize,
    /// Mean transaction length (0 for CSV).
    pub avg_len: f64,
    /// Longest transaction (0 for CSV).
    pub max_len: usize,
}

/// The manifest, as in `../shared/datasets/MANIFEST.md` and `datasets/README.md`.
pub const DATASETS: &[DatasetInfo] = &[
    DatasetInfo {
        name: "connect",
        file: "connect.dat",
        origin: "FIMI connect (UCI Connect-4)",
        sha256: "4af29e7a6e3dc9da6698ddd6440d619a76450623ee2166c011e317c58291fd8a",
        transactions: 67_557,
        items: 129,
        avg_len: 43.0,
        max_len: 43,
    },
    DatasetInfo {
        name: "bms1",
        file: "BMS1.dat",
        origin: "BMS-WebView-1 (KDD Cup 2000)",
        sha256: "ea5189346c5f719204508c0ba3cd53a34d01181f2aebbcf65ff4ef57acaadea2",
        transactions: 59_602,
        items: 497,
        avg_len: 2.511,
        max_len: 267,
    },
    DatasetInfo {
        name: "bms2",
        file: "BMS2.dat",
        origin: "BMS-WebView-2 (KDD Cup 2000)",
        sha256: "4cd78d2d07a0ae3ee4b471b19260c1a2d5252301657d7e9dd33335e4c10f39df",
        transactions: 77_512,
        items: 3_340,
        avg_len: 4.622,
        max_len: 161,
    },
    DatasetInfo {
        name: "retail",
        file: "retail.dat",
        origin: "FIMI retail (Belgian supermarket), ids shifted by +1",
        sha256: "f30e68e88a111512a69181bedbb8012a42672af754fd2c5ca689e9d68f5c1b65",
        transactions: 88_162,
        items: 16_470,
        avg_len: 10.306,
        max_len: 76,
    },
    DatasetInfo {
        name: "chess",
        file: "chess.dat",
        origin: "FIMI chess (UCI kr-vs-kp)",
        sha256: "a12ea887df58a396709430af5bf0a9a32d1f6eba8e7c13dd41f28b98572c5db2",
        transactions: 3_196,
        items: 75,
        avg_len: 37.0,
        max_len: 37,
    },
    DatasetInfo {
        name: "mushroom",
        file: "mushroom.dat",
        origin: "FIMI mushroom (UCI Mushroom)",
        sha256: "6cf94bc482712c3936f0b40c921381ab2b776c3d9941880fecac4d83ca5cbeb5",
        transactions: 8_124,
        items: 119,
        avg_len: 23.0,
        max_len: 23,
    },
    DatasetInfo {
        name: "t40-sample",
        file: "T40I10D100K-sample.dat",
        origin: "FIMI T40I10D100K, first 10,000 of 100,000 transactions only, ids shifted by +1",
        sha256: "8ebb4151cbb52bd0f8a69df5373e8ee4425a48a46920475f469b621924587b2f",
        transactions: 10_000,
        items: 940,
        avg_len: 39.567,
        max_len: 72,
    },
    DatasetInfo {
        name: "kosarak-sample",
        file: "kosarak-sample.dat",
        origin: "FIMI kosarak, first 36,682 of 990,002 transactions only",
        sha256: "6307352eb059e11daae3e69e70d9abbee566ea07dd60dee65e8219d6c55da523",
        transactions: 36_682,
        items: 17_034,
        avg_len: 8.015,
        max_len: 699,
    },
    DatasetInfo {
        name: "adult",
        file: "adult.csv",
        origin: "UCI Adult, adult.data, byte-identical",
        sha256: "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
        transactions: 32_561,
        items: 0,
        avg_len: 0.0,
        max_len: 0,
    },
    DatasetInfo {
        name: "adult-test",
        file: "adult-test.csv",
        origin: "UCI Adult, adult.test, byte-identical",
        sha256: "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
        transactions: 16_281,
        items: 0,
        avg_len: 0.0,
        max_len: 0,
    },
];

/// The manifest entry named `name` (or whose file is called `name`).
pub fn dataset(name: &str) -> Option<&'static DatasetInfo> {
    DATASETS.iter().find(|d| d.name == name || d.file == name)
}

/// The workspace root as it was when this crate was compiled.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The directories searched for datasets, in order.
pub fn search_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = std::env::var_os("TXANON_DATA") {
        dirs.push(PathBuf::from(d));
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    for base in [cwd, workspace_root()] {
        dirs.push(base.join("datasets"));
        dirs.push(base.join("../shared/datasets"));
    }
    let mut seen = HashSet::new();
    dirs.retain(|d| seen.insert(d.canonicalize().unwrap_or_else(|_| d.clone())));
    dirs
}

/// Finds the file of a dataset (`connect`) or a file name (`connect.dat`) in the search path.
pub fn locate(name: &str) -> Option<PathBuf> {
    let file = dataset(name).map_or(name, |d| d.file);
    search_dirs().into_iter().map(|d| d.join(file)).find(|p| p.is_file())
}

/// The sha256 of a file, in lower-case hex (an input's as it was read is
/// [`input_digest`](crate::source::input_digest)).
pub fn sha256_file(path: &Path) -> Result<String> {
    let mut file = File::open(path).map_err(|e| DataError::io(path, e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf).map_err(|e| DataError::io(path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex_digest(hasher))
}

/// A finished sha256 in lower-case hex, as the manifests write it.
pub(crate) fn hex_digest(hasher: Sha256) -> String {
    hasher.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Finds a manifest dataset and checks its sha256 (once per process and path).
///
/// Returns `Ok(None)` when the dataset is in none of the search directories.
///
/// # Errors
/// [`DataError::Checksum`] when the file's bytes are not the manifest's; an I/O error when it
/// cannot be read. Names outside the manifest are only located, not checked.
pub fn locate_verified(name: &str) -> Result<Option<PathBuf>> {
    static VERIFIED: OnceLock<Mutex<HashSet<PathBuf>>> = OnceLock::new();
    let Some(path) = locate(name) else { return Ok(None) };
    let Some(info) = dataset(name) else { return Ok(Some(path)) };
    let verified = VERIFIED.get_or_init(Default::default);
    if verified.lock().expect("not poisoned").contains(&path) {
        return Ok(Some(path));
    }
    let actual = sha256_file(&path)?;
    if actual != info.sha256 {
        return Err(DataError::Checksum { path, expected: info.sha256.into(), actual });
    }
    verified.lock().expect("not poisoned").insert(path.clone());
    Ok(Some(path))
}

/// Whether tests must fail rather than skip when real data is missing (`CI=true`).
pub fn data_required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// For tests on real data: the verified path of dataset `name`, or `None` after printing why the
/// test is skipped.
///
/// # Panics
/// When the dataset is missing and [`data_required`] (under CI missing data must fail, never
/// pass silently), or when its checksum does not match.
pub fn for_test(name: &str) -> Option<PathBuf> {
    match locate_verified(name) {
        Ok(Some(p)) => Some(p),
        Ok(None) if data_required() => {
            panic!("dataset {name} is missing and CI=true; searched {:?}", search_dirs())
        }
        Ok(None) => {
            eprintln!("SKIPPED: dataset {name} not found in {:?} (set TXANON_DATA)", search_dirs());
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// For benchmarks on real data: the datasets of `names` that are found, read whole (a missing
/// one is named on stderr), or `stand_in`'s generated data when none is, so that a benchmark
/// runs on any machine and says what it measured.
///
/// # Panics
/// When a found dataset's checksum does not match or it cannot be read.
pub fn for_bench(
    names: &[&str],
    stand_in: impl FnOnce() -> (String, crate::TransactionDb),
) -> Vec<(String, crate::TransactionDb)> {
    let mut inputs = Vec::new();
    for &name in names {
        match locate_verified(name) {
            Ok(Some(path)) => {
                let (db, _) = crate::read_path(&path, &crate::ReadOptions::new())
                    .unwrap_or_else(|e| panic!("{e}"));
                inputs.push((name.to_string(), db));
            }
            Ok(None) => eprintln!("{name} not found: not benchmarked"),
            Err(e) => panic!("{e}"),
        }
    }
    if inputs.is_empty() {
        inputs.push(stand_in());
    }
    inputs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_names_are_unique() {
        let names: HashSet<_> = DATASETS.iter().map(|d| d.name).collect();
        assert_eq!(names.len(), DATASETS.len());
        assert!(DATASETS.iter().all(|d| d.sha256.len() == 64));
    }

    #[test]
    fn sha256_of_known_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("abc");
        std::fs::write(&p, "abc").unwrap();
        assert_eq!(
            sha256_file(&p).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
