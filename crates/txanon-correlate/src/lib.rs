//! Correlation and clustering: how strongly items (or attributes) go together, and how to group
//! them into columns.
//!
//! - [`PairCounts`]: item and item-pair supports, `O(Σ|t|²)` on the rayon pool, never an
//!   `n × m` matrix: a dense triangle (per-thread triangles up to 4,096 items; blocks of rows
//!   of equal work, one streaming pass each, up to 32,768 items when the data has at least as
//!   many pair occurrences as the triangle has cells), else each item's partners counted from
//!   its transactions.
//! - [`phi2_transaction`] (the anatomy paper's eq. 4, one cell of the 2 × 2 table) and
//!   [`phi2_contingency`] (its eq. 3, the full mean-square contingency coefficient of two
//!   categorical attributes, which the slicing family uses).
//! - [`CondensedMatrix`]: a symmetric distance matrix stored as its upper triangle, such as
//!   `d = 1 − φ²` between all items ([`item_distances`]).
//! - [`KMedoids`]: PAM (BUILD then SWAP) and FastPAM1 (Schubert & Rousseeuw, 2019), which finds
//!   the same medoids faster.
//! - [`jaccard`]: similarity of two sorted item sets (its numerator is
//!   `txanon_data::sets::intersection_len`).

mod distance;
mod error;
mod jaccard;
pub mod kmedoids;
mod pairs;
mod phi;

pub use distance::{CondensedMatrix, MAX_ITEMS, item_distances};
pub use error::CorrelateError;
pub use jaccard::{jaccard, jaccard_distance};
pub use kmedoids::{Clustering, Init, KMedoids, KMedoidsParams, MedoidSearch, ValidKMedoidsParams};
pub use pairs::PairCounts;
pub use phi::{phi2_contingency, phi2_transaction};
