//! Association rules from frequent itemsets.
//!
//! # Semantics
//! A rule `X → Y` is reported when `X` and `Y` are non-empty and disjoint, `Z = X ∪ Y` is
//! frequent, `min_len ≤ |Z| ≤ max_len`, and its confidence `sup(Z) / sup(X)` is at least the
//! minimum confidence. Its support is `sup(Z)` (the support of body and head together, pyfim's
//! `mode='o'`), its lift `conf · n / sup(Y)`. With
//! [`single_consequent`](generate) only rules with `|Y| = 1` are produced, as pyfim's
//! `target='r'`, Weka and most Apriori programs count them.
//!
//! Consequents of one `Z` are grown level-wise (Agrawal & Srikant's ap-genrules): if `X → Y`
//! fails, every rule of the same `Z` with a larger consequent fails too, because its body is a
//! subset of `X` and has at least `X`'s support; so a consequent is tried only when all its
//! one-smaller subsets passed. This is exact, and cheap because most itemsets give no rule.

use std::collections::HashMap;
use std::ops::ControlFlow;

use serde::{Deserialize, Serialize};
use txanon_data::ItemId;

use crate::class::FrequentItemsets;
use crate::error::MiningError;
use crate::params::ValidRuleParams;

/// One association rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    /// `X`, sorted.
    pub antecedent: Vec<ItemId>,
    /// `Y`, sorted.
    pub consequent: Vec<ItemId>,
    /// `sup(X ∪ Y)`.
    pub support: u32,
    /// `sup(X)`.
    pub antecedent_support: u32,
    /// `sup(Y)`.
    pub consequent_support: u32,
}

impl Rule {
    /// `sup(X ∪ Y) / sup(X)`.
    pub fn confidence(&self) -> f64 {
        f64::from(self.support) / f64::from(self.antecedent_support)
    }

    /// `confidence · n / sup(Y)` in a database of `transactions` transactions.
    pub fn lift(&self, transactions: usize) -> f64 {
        self.confidence() * transactions as f64 / f64::from(self.consequent_support)
    }
}

/// A borrowed rule, as [`for_each_rule`] hands it out.
#[derive(Debug, Clone, Copy)]
pub struct RuleRef<'a> {
    /// `X`, sorted.
    pub antecedent: &'a [ItemId],
    /// `Y`, sorted.
    pub consequent: &'a [ItemId],
    /// `sup(X ∪ Y)`.
    pub support: u32,
    /// `sup(X)`.
    pub antecedent_support: u32,
    /// `sup(Y)`.
    pub consequent_support: u32,
}

impl RuleRef<'_> {
    /// An owned copy.
    pub fn to_rule(&self) -> Rule {
        Rule {
            antecedent: self.antecedent.to_vec(),
            consequent: self.consequent.to_vec(),
            support: self.support,
            antecedent_support: self.antecedent_support,
            consequent_support: self.consequent_support,
        }
    }
}

/// Calls `f` with every rule of `itemsets` (which must hold *every* frequent itemset: the
/// supports of bodies and heads are looked up there); stops at the first `Break`.
///
/// # Panics
/// When a subset of a frequent itemset is missing from `itemsets`.
pub fn for_each_rule(
    itemsets: &FrequentItemsets,
    params: &ValidRuleParams,
    single_consequent: bool,
    mut f: impl FnMut(RuleRef<'_>) -> ControlFlow<()>,
) {
    let support: HashMap<&[ItemId], u32> = itemsets.iter().collect();
    let lookup = |s: &[ItemId]| *support.get(s).expect("itemsets closed under subsets");
    let min_conf = params.min_confidence();
    let passes = |z: u32, x: u32| f64::from(z) / f64::from(x) >= min_conf;
    let mut body = Vec::new();
    for (z, z_support) in itemsets.iter() {
        if z.len() < params.min_len() || z.len() > params.max_len() {
            continue;
        }
        // Level 1: single-item consequents.
        let mut heads: Vec<ItemId> = Vec::new();
        for (skip, &y) in z.iter().enumerate() {
            body.clear();
            body.extend(z.iter().enumerate().filter(|&(i, _)| i != skip).map(|(_, &x)| x));
            let body_support = lookup(&body);
            if passes(z_support, body_support) {
                heads.push(y);
                let rule = RuleRef {
                    antecedent: &body,
                    consequent: std::slice::from_ref(&z[skip]),
                    support: z_support,
                    antecedent_support: body_support,
                    consequent_support: lookup(&[y]),
                };
                if f(rule).is_break() {
                    return;
                }
            }
        }
        if single_consequent {
            continue;
        }
        let mut h = 1;
        while h + 1 < z.len() && heads.len() / h >= 2 {
            let mut next = Vec::new();
            let level: Vec<&[ItemId]> = heads.chunks_exact(h).collect();
            let mut candidate = Vec::with_capacity(h + 1);
            let mut sub = Vec::with_capacity(h);
            for a in 0..level.len() {
                for b in a + 1..level.len() {
                    if level[a][..h - 1] != level[b][..h - 1] {
                        break;
                    }
                    candidate.clear();
                    candidate.extend_from_slice(level[a]);
                    candidate.push(level[b][h - 1]);
                    let all_pass = (0..h + 1).all(|drop| {
                        sub.clear();
                        sub.extend(
                            candidate
                                .iter()
                                .enumerate()
                                .filter(|&(i, _)| i != drop)
                                .map(|(_, &x)| x),
                        );
                        level.binary_search(&sub.as_slice()).is_ok()
                    });
                    if !all_pass {
                        continue;
                    }
                    body.clear();
                    body.extend(z.iter().copied().filter(|x| candidate.binary_search(x).is_err()));
                    let body_support = lookup(&body);
                    if passes(z_support, body_support) {
                        next.extend_from_slice(&candidate);
                        let rule = RuleRef {
                            antecedent: &body,
                            consequent: &candidate,
                            support: z_support,
                            antecedent_support: body_support,
                            consequent_support: lookup(&candidate),
                        };
                        if f(rule).is_break() {
                            return;
                        }
                    }
                }
            }
            heads = next;
            h += 1;
        }
    }
}

/// Every rule of `itemsets`, failing with [`MiningError::LimitExceeded`] beyond the limit.
///
/// # Errors
/// [`MiningError::LimitExceeded`].
pub fn generate(
    itemsets: &FrequentItemsets,
    params: &ValidRuleParams,
    single_consequent: bool,
) -> Result<Vec<Rule>, MiningError> {
    let mut rules = Vec::new();
    let mut exceeded = false;
    for_each_rule(itemsets, params, single_consequent, |r| {
        if rules.len() as u64 >= params.limit() {
            exceeded = true;
            return ControlFlow::Break(());
        }
        rules.push(r.to_rule());
        ControlFlow::Continue(())
    });
    if exceeded {
        return Err(MiningError::LimitExceeded { limit: params.limit(), what: "rules" });
    }
    Ok(rules)
}

/// The number of rules of `itemsets`, without holding them.
pub fn count(
    itemsets: &FrequentItemsets,
    params: &ValidRuleParams,
    single_consequent: bool,
) -> u64 {
    let mut n = 0;
    for_each_rule(itemsets, params, single_consequent, |_| {
        n += 1;
        ControlFlow::Continue(())
    });
    n
}
