//! Utility metrics: how much of the original data's value an anonymized version keeps.
//!
//! Every family is judged by the same yardsticks: mine the original `D` and the published `D̃`
//! (with `txanon-mining`) and compare what was found, or compare the item frequencies and records
//! directly. Each metric is one function with its formula in its documentation.
//!
//! The two databases usually number their items differently (dense ids are ranks of the labels
//! present), so everything is compared through labels: [`ItemAlignment`] maps `D̃`'s ids to `D`'s,
//! and [`ItemAlignment::itemsets`] / [`ItemAlignment::rules`] restate `D̃`'s results in `D`'s ids.

mod alignment;
mod error;
mod frequency;
mod patterns;
mod risk;

pub use alignment::ItemAlignment;
pub use error::MetricError;
pub use frequency::{
    ItemLoss, KL_FLOOR, dissimilarity, dissimilarity_of, item_loss, item_loss_of, kl_divergence,
    record_distortion,
};
pub use patterns::{
    Ratio, itemset_accuracy, itemset_f1, jaccard_itemsets, mean_relative_error,
    relative_support_error, rule_accuracy,
};
pub use risk::{Reidentification, reidentification};
