//! Multi-dimension anatomy with l-diversity for transaction data ("Privacy Preservation in
//! Transaction Databases based on Anatomy technique", CSE 2010).
//!
//! 1. **Item partition**: items are clustered into `p` columns by k-medoids on `d = 1 − φ²`
//!    (`txanon-correlate`), so that correlated items share a column.
//! 2. **Record partition** (the paper's Figure 2): one scan, in a random order, forms buckets in
//!    which, for every column, no value (the itemset `t ∩ C_j`, **the empty set included as a
//!    value**) is held by more than `1/l` of the bucket. Leftovers go to a bucket that stays
//!    l-diverse; those that fit nowhere form one more bucket if they are l-diverse together,
//!    and are suppressed (and counted) otherwise.
//! 3. **Publication**: the anatomized table (per bucket and column, the multiset of values) and
//!    its flattened form (each bucket's columns permuted independently by ChaCha20 and
//!    re-joined into records), which the paper mines.
//! 4. **Audit**: [`audit`] re-derives l-diversity from the published table alone.

mod algorithm;
mod audit;
mod error;
mod params;
mod table;

pub use algorithm::{Anatomized, ItemPartition, anatomize, item_partition, ln_faked_records};
pub use audit::{AuditReport, Diversity, audit};
pub use error::AnatomyError;
pub use params::{AnatomyParams, ValidAnatomyParams};
pub use table::AnatomizedTable;
