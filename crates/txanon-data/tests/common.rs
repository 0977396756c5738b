//! Helpers shared by the integration tests.

use std::path::PathBuf;

use txanon_data::datasets;

/// The path of a real dataset, or `None` after printing why it is skipped (see
/// [`datasets::for_test`]).
pub fn real_dataset(name: &str) -> Option<PathBuf> {
    datasets::for_test(name)
}

/// The workspace root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}
