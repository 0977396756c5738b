//! A publication as one artifact, for every front end (the `txanon` CLI, the Python package):
//!
//! - each family's **release** ([`anatomy`], [`cahd`], [`coherence`], [`km`], [`swap`],
//!   [`slicing`] with its baselines): the family run on validated parameters, its files, its summary, the parameters
//!   and audit report its manifest records, and what the run did ([`Outcome`]);
//! - the **staging** of a publication directory ([`prepare`], [`Release::commit`]): checked
//!   before any computation, built beside its target, moved into place whole with its
//!   manifest, under a lock;
//! - an **evaluation** as a directory ([`EvaluationReport`]), as `txanon evaluate` writes it;
//! - the **manifest's check** an audit makes first ([`verify_manifest`]), and the audit of a
//!   publication directory as a whole ([`audit`]), its violations as objects.
//!
//! Both front ends write through this crate, so that the same data, parameters and seed give
//! the same bytes whichever one ran. Errors are typed ([`PublishError`]) and classified like
//! every error of the workspace.

pub mod anatomy;
pub mod audit;
pub mod cahd;
pub mod coherence;
mod error;
mod evaluation;
mod files;
pub mod km;
mod outcome;
mod release;
pub mod slicing;
mod staging;
pub mod swap;
mod verify;

pub use error::{PublishError, Result};
pub use evaluation::{EvaluationParameters, EvaluationReport, FrontierRow, RESULTS};
pub use files::{
    TRANSACTION_FILES, transaction_file, write_compact_json, write_text, write_transactions,
    write_with,
};
pub use outcome::Outcome;
pub use release::{Content, Release, SUMMARY};
pub use staging::{Committed, Description, MANIFEST, Source, Staged, prepare};
pub use verify::{ManifestCheck, check_directory, verify_manifest};

/// The name of the drawn sensitive items' list in a publication.
pub const SENSITIVE_FILE: &str = "sensitive.txt";
