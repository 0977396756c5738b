//! Slicing of relational microdata with ℓ-diversity (Li, Li, Zhang, Molloy, "Slicing: A New
//! Approach for Privacy Preserving Data Publishing", IEEE TKDE 24(3), 2012), and the two
//! techniques it is compared with: generalization by Mondrian (LeFevre, DeWitt,
//! Ramakrishnan, ICDE 2006) and bucketization by Anatomy (Xiao, Tao, VLDB 2006).
//!
//! Slicing groups correlated attributes into columns (mean-square contingency coefficient,
//! PAM k-medoids), partitions tuples into buckets, and publishes each bucket with every
//! column's values permuted independently, so that the link between columns is broken inside
//! a bucket while the correlations within a column survive. A tuple's sensitive value is
//! then guessed from all the buckets its column values could have come from; the tuple
//! partition keeps that guess at most `1/ℓ`.
//!
//! - [`Microdata`]: a [`Table`](txanon_data::Table) coded for the methods.
//! - [`anonymize`]: the whole method, audited before it is returned; [`audit`] is the
//!   independent checker of a [`SlicingClaim`] from the publication and the original tuples.
//! - [`mondrian()`] and [`anatomize`]: the baselines, each audited before it is returned;
//!   [`audit_generalized`] and [`audit_anatomy`] are their checkers.
//! - [`membership`]: matching buckets of original and fake tuples.
//!
//! ```
//! use std::path::Path;
//! use txanon_data::{Schema, Table};
//! use txanon_slicing::{ColumnSpec, Microdata, SlicingParams, anonymize};
//!
//! let schema: Schema = serde_json::from_str(r#"{"name": "t", "attributes": [
//!     {"name": "age", "type": "numeric", "role": "quasi_identifier"},
//!     {"name": "disease", "type": "categorical", "role": "sensitive"}]}"#)?;
//! let csv = "20,flu\n21,cold\n22,flu\n23,cold\n";
//! let table = Table::read_from(csv.as_bytes(), Path::new("<memory>"), &schema, false)?;
//! let data = Microdata::from_table(&table)?;
//! let params = SlicingParams::new(ColumnSpec::SensitiveAlone(2), 2).seed(Some(1)).check()?;
//! let sliced = anonymize(&data, &params)?;
//! assert!(sliced.audit.worst <= 0.5);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod algorithm;
mod anatomy;
mod attributes;
mod audit;
mod bucketized;
mod cell;
mod csv;
mod diversity;
mod encode;
mod error;
mod family;
mod generalized;
pub mod membership;
mod microdata;
mod mondrian;
mod params;
mod sliced;
mod split;

pub use algorithm::{SlicingPublication, SlicingStats, anonymize};
pub use anatomy::{AnatomyBaselinePublication, anatomize};
pub use attributes::{attribute_distances, partition_attributes};
pub use audit::{
    AnatomyBaselineAuditReport, MondrianAuditReport, SlicingAuditReport, SlicingClaim,
    SlicingViolation, SlicingViolations, audit, audit_anatomy, audit_generalized,
};
pub use bucketized::{ANATOMY_FORMAT, AnatomyMeta, AnatomyTables};
pub use cell::Cell;
pub use error::SlicingError;
pub use family::Slicing;
pub use generalized::{GENERALIZED_FORMAT, GeneralizedMeta, GeneralizedTable};
pub use microdata::Microdata;
pub use mondrian::{MondrianPublication, mondrian};
pub use params::{
    BaselineParams, ColumnSpec, CutPolicy, SlicingParams, ValidBaselineParams, ValidSlicingParams,
};
pub use sliced::{SLICED_FORMAT, SlicedMeta, SlicedRow, SlicedTable};

#[cfg(test)]
mod autotraits {
    fn send_sync<T: Send + Sync>() {}

    #[test]
    fn public_types_are_send_and_sync() {
        send_sync::<super::SlicingPublication>();
        send_sync::<super::SlicingError>();
        send_sync::<super::GeneralizedTable>();
        send_sync::<super::AnatomyTables>();
    }
}
