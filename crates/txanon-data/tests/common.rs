//! Helpers shared by the integration tests.

use std::path::PathBuf;

use txanon_data::datasets;

/// The path of a real dataset, or `None` after printing why it is skipped; panics under `CI=true`,
/// where missing data must fail rather than pass silently.
pub fn real_dataset(name: &str) -> Option<PathBuf> {
    match datasets::locate_verified(name) {
        Ok(Some(p)) => Some(p),
        Ok(None) if datasets::data_required() => {
            panic!("dataset {name} is missing and CI=true; searched {:?}", datasets::search_dirs())
        }
        Ok(None) => {
            eprintln!(
                "SKIPPED: dataset {name} not found in {:?} (set TXANON_DATA)",
                datasets::search_dirs()
            );
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// The workspace root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}
