//! k-medoids clustering over a [`CondensedMatrix`](crate::CondensedMatrix): PAM and FastPAM1.

mod algorithm;
mod params;

pub use algorithm::{Clustering, KMedoids};
pub use params::{Init, KMedoidsParams, MedoidSearch, ValidKMedoidsParams};
