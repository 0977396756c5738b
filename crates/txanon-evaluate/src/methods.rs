//! Each family at a privacy level, and its publication as the adversary's view.
//!
//! The conversions read each publication the way its paper's adversary does (see
//! [`txanon_attack::View`]); the links between people and published records (anatomy's
//! buckets, swap's key) are the data holder's secrets, used here to know whose record is
//! whose and never written.

use std::collections::HashMap;

use serde::Serialize;
use txanon_attack::{Own, Target, Value, View, ViewBuilder};
use txanon_data::{FamilyName, ItemCategories, ItemId, TransactionDb};
use txanon_swap::Tendency;

use crate::error::EvaluateError;

/// A method the evaluation runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Multi-dimension anatomy: l = level.
    Anatomy,
    /// CAHD: privacy degree p = level.
    Cahd,
    /// (h,k,p)-coherence: h = 1/level, k = level.
    Coherence,
    /// kᵐ-anonymity by generalization (AA over the balanced hierarchy of fanout 5): k = level.
    Km,
    /// Partial swapping of the tendency (PartSwap, every tied category): one setting, no level.
    Swap,
}

impl Method {
    /// Every method, in report order.
    pub const ALL: [Method; 5] =
        [Method::Anatomy, Method::Cahd, Method::Coherence, Method::Km, Method::Swap];

    /// The family the method runs.
    pub fn family(self) -> FamilyName {
        match self {
            Method::Anatomy => FamilyName::Anatomy,
            Method::Cahd => FamilyName::Cahd,
            Method::Coherence => FamilyName::Coherence,
            Method::Km => FamilyName::Km,
            Method::Swap => FamilyName::Swap,
        }
    }

    /// The method that runs `family`: every family of the registry that publishes
    /// transactions (the one adversary attacks transactions). Matching the registry
    /// exhaustively makes a new family a compile error here until the evaluation runs it or
    /// says why not.
    pub fn of(family: FamilyName) -> Option<Method> {
        match family {
            FamilyName::Anatomy => Some(Method::Anatomy),
            FamilyName::Cahd => Some(Method::Cahd),
            FamilyName::Coherence => Some(Method::Coherence),
            FamilyName::Km => Some(Method::Km),
            FamilyName::Swap => Some(Method::Swap),
            // Relational microdata: not a transaction publication.
            FamilyName::Slicing => None,
        }
    }

    /// The name the CLI and the report use: the family's.
    pub fn name(self) -> &'static str {
        self.family().as_str()
    }

    /// The method named `name`.
    pub fn parse(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.name() == name)
    }

    /// What the method's guarantee means, in one sentence.
    pub fn guarantee(self) -> &'static str {
        match self {
            Method::Anatomy => {
                "In every bucket and item column no value (the record's items in that column, \
                 the empty set included) is held by more than 1/l of the bucket's records, so \
                 which values of different columns belong together is hidden."
            }
            Method::Cahd => {
                "Each group publishes its transactions' public items and only the counts of its \
                 sensitive items, so an adversary links a sensitive item to a transaction of the \
                 group with probability at most 1/p."
            }
            Method::Coherence => {
                "Public items are suppressed until every combination of at most p public items \
                 occurs in at least k transactions and implies no private item with confidence \
                 above h."
            }
            Method::Km => {
                "Every item is generalized to its ancestor on one cut of a hierarchy, the same \
                 for every record, until every combination of at most m published items occurs \
                 in at least k records: an adversary who knows m items finds k candidates."
            }
            Method::Swap => {
                "Every record showing a dominant category (its tendency) exchanges those items \
                 with a record that shows a different one, so no published record shows its \
                 owner's tendency; nothing else changes."
            }
        }
    }

    /// Whether the method takes a privacy level (swap has none).
    pub fn has_level(self) -> bool {
        !matches!(self, Method::Swap)
    }
}

/// The input every method shares.
#[derive(Debug)]
pub(crate) struct Input<'a> {
    pub db: &'a TransactionDb,
    pub sensitive: &'a [ItemId],
    pub categories: Option<&'a ItemCategories>,
    pub seed: Option<u64>,
    pub anatomy_columns: usize,
    pub coherence_p: usize,
    pub km_m: usize,
}

/// A publication as the adversary reads it, with where each person's record went.
#[derive(Debug)]
pub(crate) struct Attackable {
    pub view: View,
    /// The view a data user's yardstick reads, when it is not the adversary's (km: the
    /// adversary matches a generalized item to every item below it, a miner reads one).
    pub utility_view: Option<View>,
    /// Per input record, its own published record (if published).
    pub own: Vec<Option<Own>>,
    /// What the publication passed, in words.
    pub audit: String,
    /// The setting used, in words.
    pub setting: String,
}

/// Why a method produced nothing at a level.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// The data cannot reach the level with this method: the family's reason.
    Infeasible(String),
    /// A real failure.
    Error(EvaluateError),
}

impl<E: Into<EvaluateError>> From<E> for Refusal {
    fn from(e: E) -> Self {
        Refusal::Error(e.into())
    }
}

/// Refuses with the family's own message when its error is about the input or parameters
/// (a level out of reach, a bad setting); any other error of a family's `anonymize` (a
/// publication that failed its audit, an internal failure) fails the evaluation.
fn infeasible(method: Method, e: impl txanon_data::Classify + std::fmt::Display) -> Refusal {
    use txanon_data::ErrorKind;
    match e.kind() {
        ErrorKind::BadInput | ErrorKind::Infeasible => Refusal::Infeasible(e.to_string()),
        ErrorKind::AuditFailed | ErrorKind::Internal => {
            Refusal::Error(EvaluateError::Audit { method: method.name(), reason: e.to_string() })
        }
    }
}

/// The original's records with `keep` items each, as published records (with the tendency a
/// reader names in each, when there are categories).
pub(crate) fn records_of(
    db: &TransactionDb,
    categories: Option<&ItemCategories>,
    keep: impl Fn(ItemId) -> bool,
) -> Attackable {
    let mut view = ViewBuilder::new(db.num_items());
    let mut own = Vec::with_capacity(db.len());
    let (mut row, mut scratch) = (Vec::new(), Vec::new());
    for t in db.iter() {
        row.clear();
        row.extend(t.iter().copied().filter(|&i| keep(i)));
        let labels = categories
            .map_or_else(Vec::new, |c| tendency_labels(&row, c.categories(), &mut scratch));
        let g = view.record(&row, labels).expect("items of the database");
        own.push(Some(Own { group: g, values: vec![Some(0)] }));
    }
    Attackable {
        view: view.finish(),
        utility_view: None,
        own,
        audit: String::new(),
        setting: String::new(),
    }
}

/// The tendency a reader names for record `t`: every category tied for its heaviest, when
/// that weighs more than the mean (or the one category of a single-category record).
pub(crate) fn tendency_labels(
    t: &[ItemId],
    category_of: &[u32],
    scratch: &mut Vec<u32>,
) -> Vec<u32> {
    let tied = txanon_swap::tied_categories(t, category_of, scratch);
    if !tied.is_empty() {
        return tied;
    }
    match txanon_swap::tendency_of(t, category_of, scratch) {
        Tendency::Category(c) | Tendency::Single(c) => vec![c],
        Tendency::None => Vec::new(),
    }
}

/// The people of `db` as targets: their public and sensitive items, their tendency.
pub(crate) fn targets(input: &Input<'_>, own: Vec<Option<Own>>) -> Vec<Target> {
    let mut scratch = Vec::new();
    input
        .db
        .iter()
        .zip(own)
        .map(|(t, own)| {
            let (sensitive, public): (Vec<ItemId>, Vec<ItemId>) =
                t.iter().partition(|i| input.sensitive.binary_search(i).is_ok());
            let labels = input
                .categories
                .map_or_else(Vec::new, |c| tendency_labels(t, c.categories(), &mut scratch));
            Target { public, sensitive, own, labels }
        })
        .collect()
}

/// Runs `method` at `level` and converts its publication.
pub(crate) fn run(method: Method, level: usize, input: &Input<'_>) -> Result<Attackable, Refusal> {
    match method {
        Method::Anatomy => anatomy(level, input),
        Method::Cahd => cahd(level, input),
        Method::Coherence => coherence(level, input),
        Method::Km => km(level, input),
        Method::Swap => swap(input),
    }
}

fn anatomy(l: usize, input: &Input<'_>) -> Result<Attackable, Refusal> {
    use txanon_anatomy::{AnatomyParams, anonymize};
    let db = input.db;
    let params = AnatomyParams::new(input.anatomy_columns, l)
        .seed(input.seed)
        .check()
        .map_err(|e| Refusal::Infeasible(e.to_string()))?;
    let published = anonymize(db, &params).map_err(|e| infeasible(Method::Anatomy, e))?;
    let (view, own) = anatomy_view(db, &published.table, &published.bucket_of)?;
    Ok(Attackable {
        view,
        utility_view: None,
        own,
        audit: format!(
            "{} buckets re-derived {}-diverse (largest value share {:.3})",
            published.audit.buckets, published.audit.l, published.audit.worst_share
        ),
        setting: format!("l = {l}, {} item columns (repaired)", published.columns.len()),
    })
}

/// Anatomy's table as its adversary reads it (every combination of one value per column of a
/// bucket), and each input record's own record (through `bucket_of`, the secret of which
/// bucket holds it; `u32::MAX`: suppressed).
pub(crate) fn anatomy_view(
    db: &TransactionDb,
    table: &txanon_anatomy::AnatomizedTable,
    bucket_of: &[u32],
) -> Result<(View, Vec<Option<Own>>), EvaluateError> {
    // The columns' item ids, once.
    let ids: Vec<Vec<ItemId>> = table
        .columns
        .iter()
        .map(|column| column.iter().map(|label| item(db, label)).collect::<Result<_, _>>())
        .collect::<Result<_, _>>()?;
    let mut view = ViewBuilder::new(db.num_items());
    for bucket in &table.buckets {
        let factors = bucket
            .columns
            .iter()
            .zip(&ids)
            .map(|(values, column)| {
                values
                    .iter()
                    .map(|v| {
                        let items = v.1.iter().map(|&k| column[k as usize]).collect();
                        Value::new(items, v.0 as u32)
                    })
                    .collect()
            })
            .collect();
        view.group(bucket.size as u32, factors)?;
    }
    let view = view.finish();
    let own = db
        .iter()
        .zip(bucket_of)
        .map(|(t, &b)| if b == u32::MAX { None } else { view.locate(b, t) })
        .collect();
    Ok((view, own))
}

fn cahd(p: usize, input: &Input<'_>) -> Result<Attackable, Refusal> {
    use txanon_cahd::{CahdParams, anonymize};
    let db = input.db;
    if input.sensitive.is_empty() {
        return Err(Refusal::Infeasible("CAHD protects sensitive items: none given".into()));
    }
    let params = CahdParams::new(p)
        .seed(input.seed)
        .check()
        .map_err(|e| Refusal::Infeasible(e.to_string()))?;
    let published =
        anonymize(db, input.sensitive, &params).map_err(|e| infeasible(Method::Cahd, e))?;
    let (view, own) = cahd_view(db, input.sensitive, &published.published)?;
    Ok(Attackable {
        view,
        utility_view: None,
        own,
        audit: format!(
            "{} groups re-derived of privacy degree {} (worst link {:.3})",
            published.audit.groups, published.audit.p, published.audit.achieved
        ),
        setting: format!("p = {p}, RCM band order"),
    })
}

/// CAHD's groups as their adversary reads them (a group's QID rows, its sensitive counts
/// spread uniformly), and each input record's own row: the first row of its QID itemset (every
/// copy weighs the same).
pub(crate) fn cahd_view(
    db: &TransactionDb,
    sensitive: &[ItemId],
    groups: &txanon_cahd::PublishedGroups,
) -> Result<(View, Vec<Option<Own>>), EvaluateError> {
    let mut view = ViewBuilder::new(db.num_items());
    // A person's own record is their QID transaction; every copy of it weighs the same (one
    // record of a group, whichever), so the first is theirs.
    let mut first: HashMap<Vec<ItemId>, (u32, u32)> = HashMap::new();
    let at = groups.ids_in(db).map_err(EvaluateError::UnknownLabel)?;
    let item = |k: u32| -> Result<ItemId, EvaluateError> {
        at.get(k as usize).copied().ok_or_else(|| EvaluateError::UnknownLabel(format!("#{k}")))
    };
    for group in &groups.groups {
        let mut rows = Vec::with_capacity(group.qid.len());
        for t in &group.qid {
            let mut items = t.iter().map(|&k| item(k)).collect::<Result<Vec<_>, _>>()?;
            items.sort_unstable();
            rows.push(items);
        }
        let counts = group
            .sensitive
            .iter()
            .map(|&(k, count)| Ok((item(k)?, count as u32)))
            .collect::<Result<Vec<_>, EvaluateError>>()?;
        let values: Vec<Value> = rows.iter().map(|r| Value::new(r.clone(), 1)).collect();
        let g = view.group_with_counts(rows.len() as u32, vec![values], &counts)?;
        for (k, r) in rows.into_iter().enumerate() {
            first.entry(r).or_insert((g, k as u32));
        }
    }
    let view = view.finish();
    let own = db
        .iter()
        .map(|t| {
            let qid: Vec<ItemId> =
                t.iter().copied().filter(|i| sensitive.binary_search(i).is_err()).collect();
            first.get(&qid).map(|&(group, row)| {
                // Linked in the QID rows only: the counts are no part of the record.
                let mut values = vec![None; view.factors(group)];
                values[0] = Some(row);
                Own { group, values }
            })
        })
        .collect();
    Ok((view, own))
}

/// kᵐ-anonymity at k = `level`, the adversary's `m` as given, over the paper's balanced
/// hierarchy of fanout 5. The view is the adversary model: a known item is consistent
/// with a published item that generalizes it, so each published record is read as holding
/// every original item below its generalized items. A data user reads it otherwise: the
/// yardstick's view is one world the publication is consistent with, each generalized item
/// replaced by one of the items below it drawn uniformly (ChaCha8 from the seed and the
/// record), the reading of a publication that says no more. (Read as the adversary reads
/// it, every record would hold every item below its generalized ones: at BMS-WebView's
/// shape over a million itemsets at 1%, none of them true.)
fn km(level: usize, input: &Input<'_>) -> Result<Attackable, Refusal> {
    use rand::SeedableRng;
    use rand::seq::IndexedRandom;
    use txanon_km::{Hierarchy, KmParams, anonymize};
    let db = input.db;
    let k = u32::try_from(level)
        .map_err(|_| Refusal::Infeasible(format!("k = {level} is too large")))?;
    let hierarchy = Hierarchy::balanced(db, KM_FANOUT).map_err(|e| infeasible(Method::Km, e))?;
    let params = KmParams::new(k, input.km_m)
        .seed(input.seed)
        .check()
        .map_err(|e| Refusal::Infeasible(e.to_string()))?;
    let published = anonymize(db, &hierarchy, &params).map_err(|e| infeasible(Method::Km, e))?;
    let p = &published.published;
    let (view, own) = km_view(db, &hierarchy, p)?;
    // The data user's world: each generalized item read as one of the items below it.
    let (below, _) = km_below(db, &hierarchy, p);
    let mut world = ViewBuilder::new(db.num_items());
    let mut drawn = Vec::new();
    let seed = input.seed.unwrap_or(0);
    for (r, t) in p.iter().enumerate() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(txanon_data::mix64(seed ^ r as u64));
        drawn.clear();
        drawn.extend(t.iter().filter_map(|&g| below[g as usize].choose(&mut rng).copied()));
        drawn.sort_unstable();
        drawn.dedup();
        world.record(&drawn, Vec::new())?;
    }
    Ok(Attackable {
        view,
        utility_view: Some(world.finish()),
        own,
        audit: format!(
            "kᵐ-anonymity re-derived over {} transactions ({} itemsets checked, smallest support {}) and against the input",
            published.audit.transactions,
            published.audit.itemsets_checked,
            published.audit.smallest_support.map_or("none".into(), |s| s.to_string())
        ),
        setting: format!(
            "k = {k}, m = {}, AA over a balanced hierarchy of fanout {KM_FANOUT}: {} generalized items, NCP {:.3}",
            input.km_m, published.generalized_items, published.loss.ncp
        ),
    })
}

/// Each published item's original items, and each original item's published item.
fn km_below(
    db: &TransactionDb,
    hierarchy: &txanon_km::Hierarchy,
    p: &TransactionDb,
) -> (Vec<Vec<ItemId>>, Vec<ItemId>) {
    let mut below: Vec<Vec<ItemId>> = Vec::with_capacity(p.num_items());
    let mut published_of = vec![ItemId::MAX; db.num_items()];
    for g in 0..p.num_items() as ItemId {
        let mut items: Vec<ItemId> = match hierarchy.find(&p.label(g).to_string()) {
            Some(node) => hierarchy
                .leaf_range(node)
                .filter_map(|pos| db.labels().find(hierarchy.label(hierarchy.leaves()[pos])))
                .collect(),
            // A label the hierarchy does not name covers nothing of the original.
            None => Vec::new(),
        };
        items.sort_unstable();
        for &i in &items {
            published_of[i as usize] = g;
        }
        below.push(items);
    }
    (below, published_of)
}

/// kᵐ-anonymity's publication as its adversary reads it (a known item matches every record
/// whose generalized item covers it), and each input record's own record: the first equal to
/// its generalization.
pub(crate) fn km_view(
    db: &TransactionDb,
    hierarchy: &txanon_km::Hierarchy,
    p: &TransactionDb,
) -> Result<(View, Vec<Option<Own>>), EvaluateError> {
    let (_, published_of) = km_below(db, hierarchy, p);
    // The published records as they are, each original item read as the generalized item
    // covering it: the same posteriors as records expanded to every item below their
    // generalized items, at the publication's size (the expansion held thousands of items a
    // record on retail).
    let mut view = ViewBuilder::new(p.num_items());
    let mut first: HashMap<&[ItemId], u32> = HashMap::new();
    for t in p.iter() {
        let g = view.record(t, Vec::new())?;
        first.entry(t).or_insert(g);
    }
    let reading = published_of.iter().map(|&g| (g != ItemId::MAX).then_some(g)).collect();
    let own = db
        .iter()
        .map(|t| {
            let mut row: Vec<ItemId> = t.iter().map(|&i| published_of[i as usize]).collect();
            row.sort_unstable();
            row.dedup();
            first.get(row.as_slice()).map(|&g| Own { group: g, values: vec![Some(0)] })
        })
        .collect();
    Ok((view.finish().read_through(reading)?, own))
}

/// The fanout of km's hierarchy in the evaluation (the paper's balanced hierarchies).
pub const KM_FANOUT: usize = 5;

/// Coherence's nugget support k′ in the evaluation at level `level` on `transactions`
/// transactions: 0.1% of them, as the coherence experiment runs the paper's data, never below
/// k = `level`.
pub fn coherence_nugget_support(transactions: usize, level: usize) -> u32 {
    let k = u32::try_from(level).unwrap_or(u32::MAX);
    u32::try_from(transactions.div_ceil(1000)).unwrap_or(u32::MAX).max(k)
}

fn coherence(level: usize, input: &Input<'_>) -> Result<Attackable, Refusal> {
    use txanon_coherence::{CoherenceParams, anonymize};
    let db = input.db;
    let h = 1.0 / level as f64;
    let k = u32::try_from(level)
        .map_err(|_| Refusal::Infeasible(format!("k = {level} is too large")))?;
    // k′ (nuggets: the paper's utility, itemsets the greedy loop spares) at 0.1% of the
    // transactions, as the coherence experiment runs the paper's data; never below k.
    let nugget_support = coherence_nugget_support(db.len(), level);
    let params = CoherenceParams::new(h, k, input.coherence_p, nugget_support)
        .seed(input.seed)
        .check()
        .map_err(|e| Refusal::Infeasible(e.to_string()))?;
    let published =
        anonymize(db, input.sensitive, &params).map_err(|e| infeasible(Method::Coherence, e))?;
    let mut gone = vec![false; db.num_items()];
    for s in &published.suppressed {
        gone[s.item as usize] = true;
    }
    let (view, own) = records_view(db, &published.published, &gone)?;
    let setting = format!("h = {h:.4}, k = {k}, p = {}, k′ = {nugget_support}", input.coherence_p);
    let audit = format!(
        "(h,k,p)-coherence re-derived over {} transactions (worst breach {:.3}); {} public items suppressed",
        published.audit.transactions,
        published.audit.worst_breach,
        published.suppressed.len()
    );
    Ok(Attackable { view, utility_view: None, own, audit, setting })
}

/// A publication of whole records (coherence's: `published` over the input's dictionary, the
/// items `gone` suppressed everywhere), and each input record's own record: the first equal to
/// what is left of it.
pub(crate) fn records_view(
    db: &TransactionDb,
    published: &TransactionDb,
    gone: &[bool],
) -> Result<(View, Vec<Option<Own>>), EvaluateError> {
    let mut view = ViewBuilder::new(db.num_items());
    let mut first: HashMap<Vec<ItemId>, u32> = HashMap::new();
    // The published records in the input's ids (a publication read from outside has its own
    // dictionary), each published item looked up once.
    let at: Vec<Option<ItemId>> = (0..published.num_items() as ItemId)
        .map(|g| db.labels().find(&published.label(g).to_string()))
        .collect();
    let mut row = Vec::new();
    for t in published.iter() {
        row.clear();
        for &g in t {
            row.push(
                at[g as usize]
                    .ok_or_else(|| EvaluateError::UnknownLabel(published.label(g).to_string()))?,
            );
        }
        row.sort_unstable();
        let g = view.record(&row, Vec::new())?;
        first.entry(row.clone()).or_insert(g);
    }
    let own = db
        .iter()
        .map(|t| {
            let kept: Vec<ItemId> = t.iter().copied().filter(|&i| !gone[i as usize]).collect();
            first.get(&kept).map(|&g| Own { group: g, values: vec![Some(0)] })
        })
        .collect();
    Ok((view.finish(), own))
}

/// A swap publication as its adversary reads it (the published records, each with the
/// tendency a reader names in it), and each input record's own record through the `key` (for
/// each published record, its input record: the data holder's secret).
pub(crate) fn swap_view(
    db: &TransactionDb,
    categories: &ItemCategories,
    published: &TransactionDb,
    key: &[u32],
) -> Result<(View, Vec<Option<Own>>), EvaluateError> {
    let mut view = ViewBuilder::new(db.num_items());
    let mut own = vec![None; db.len()];
    let mut scratch = Vec::new();
    for (t, &source) in published.iter().zip(key) {
        let labels = tendency_labels(t, categories.categories(), &mut scratch);
        let g = view.record(t, labels)?;
        if let Some(slot) = own.get_mut(source as usize) {
            *slot = Some(Own { group: g, values: vec![Some(0)] });
        }
    }
    Ok((view.finish(), own))
}

fn swap(input: &Input<'_>) -> Result<Attackable, Refusal> {
    use txanon_swap::{Method as SwapMethod, SwapParams, Ties, anonymize};
    let db = input.db;
    let Some(categories) = input.categories else {
        return Err(Refusal::Infeasible(
            "swapping hides the tendency over item categories: none given (--categories)".into(),
        ));
    };
    let params = SwapParams::new(SwapMethod::PartSwap)
        .ties(Ties::All)
        .max_exposed(db.len())
        .seed(input.seed)
        .check()
        .map_err(|e| Refusal::Infeasible(e.to_string()))?;
    let data = txanon_data::Categorized::new(db, categories)
        .map_err(|e| Refusal::Infeasible(e.to_string()))?;
    let published = anonymize(data, &params).map_err(|e| infeasible(Method::Swap, e))?;
    let (view, own) = swap_view(db, categories, &published.published, published.key())?;
    let audit = &published.audit;
    Ok(Attackable {
        view,
        utility_view: None,
        own,
        audit: format!(
            "{} of {} records checked; {} still show their tendency ({} by design, {} for want of a partner)",
            audit.records,
            audit.records,
            audit.exposed,
            audit.exposed_by_design,
            audit.exposed_unmatched
        ),
        setting: "PartSwap, every tied category".into(),
    })
}

fn item(db: &TransactionDb, label: &str) -> Result<ItemId, EvaluateError> {
    db.labels().find(label).ok_or_else(|| EvaluateError::UnknownLabel(label.to_string()))
}

#[cfg(test)]
mod tests {
    use txanon_data::FamilyName;

    use super::Method;

    #[test]
    fn every_transaction_family_of_the_registry_is_a_method_in_registry_order() {
        let from_registry: Vec<Method> =
            FamilyName::ALL.into_iter().filter_map(Method::of).collect();
        assert_eq!(from_registry, Method::ALL);
        for family in FamilyName::ALL {
            assert_eq!(Method::of(family).is_some(), family.publishes_transactions(), "{family}");
        }
        for method in Method::ALL {
            assert_eq!(Method::of(method.family()), Some(method));
        }
    }
}
