//! The greedy suppression of the paper's Figure 2.

use crate::Coherence;
use std::cmp::Ordering;
use txanon_data::{Family, MarkedDb};

use rand::seq::SliceRandom;
use serde::Serialize;
use txanon_data::progress::{Progress, Unit};
use txanon_data::{ItemId, TransactionDb};
use txanon_mining::{MinSupport, MiningParams, count_itemsets};

use crate::audit::{CoherenceAuditReport, audit_with_progress};
use crate::engines::{
    CountedMoles, Counter, EdgeMoles, ListedMoles, ListedNuggets, MinedNuggets, PARALLEL_STEP,
    both, occurring,
};
use crate::error::CoherenceError;
use crate::nonmoles::NonMoles;
use crate::params::{Engine, ValidCoherenceParams};
use crate::working::{Role, Working, breaches};

/// Why an item was suppressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "step")]
pub enum Reason {
    /// The pre-step (Observation 2): a public item in fewer than `max(k, k′)` transactions is
    /// a mole by itself or in no nugget, so every cohesion loses it or loses nothing by it.
    Infrequent {
        /// Its support.
        support: u32,
    },
    /// Chosen by the greedy algorithm with the largest `Score = |M(v)| / |N(v)|`.
    Greedy {
        /// `|M(v)|`: moles holding it when it was chosen.
        moles: u128,
        /// `|N(v)|`: nuggets holding it when it was chosen.
        nuggets: u128,
    },
}

/// A suppressed public item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Suppressed {
    /// The item (an id of the input database).
    pub item: ItemId,
    /// Why.
    pub reason: Reason,
}

impl Suppressed {
    /// `moles / nuggets` at suppression (infinite without nuggets), for greedy steps.
    pub fn score(&self) -> Option<f64> {
        match self.reason {
            Reason::Greedy { moles, nuggets } => {
                Some(if nuggets == 0 { f64::INFINITY } else { moles as f64 / nuggets as f64 })
            }
            Reason::Infrequent { .. } => None,
        }
    }
}

/// The outcome of [`anonymize`].
#[derive(Debug)]
pub struct CoherencePublication {
    /// The input without the suppressed items (private items untouched), over the input's
    /// dictionary, its transactions in a ChaCha20-shuffled order so that the publication does
    /// not reveal the input's order.
    pub published: TransactionDb,
    /// The suppressed items: the pre-step's (by item id), then the greedy algorithm's in order.
    pub suppressed: Vec<Suppressed>,
    /// Moles of length at most `p` after the pre-step, before the greedy algorithm.
    pub moles: u128,
    /// `|U|`: minimal moles (the mole border's minimal side).
    pub minimal_moles: usize,
    /// `|L|`: maximal public itemsets that occur (the mole border's maximal side), when the
    /// engine built it (the border-edge engine). The counting and enumeration engines never
    /// need it, and finding which of the transactions' public parts no other contains costs
    /// more than their whole set-up at scale (`Σ` over the parts of their rarest item's
    /// support: 55% of a p = 2 run at a million Quest transactions, quadratic beyond).
    pub maximal_public: Option<usize>,
    /// Nuggets of the input: itemsets (public and private items) in at least `k′`
    /// transactions, what the publication's utility is measured by ([`nuggets`]).
    pub nuggets_before: u128,
    /// Nuggets of the publication: those of the input less the pre-step's and the greedy
    /// steps' losses (each step loses the nuggets holding its item then).
    pub nuggets_after: u128,
    /// Item occurrences of the input.
    pub occurrences: usize,
    /// Item occurrences suppressed.
    pub occurrences_suppressed: usize,
    /// The audit the publication passed: the parameters' (h,k,p)-coherence, and the
    /// publication against the input.
    pub audit: CoherenceAuditReport,
}

/// The mole border `[U, L]` of a database after the pre-step, in the input's item ids.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoleBorder {
    /// `U`: the minimal moles of length at most `p`, each ascending, shortest first.
    pub minimal: Vec<Vec<ItemId>>,
    /// `L`: the maximal public itemsets that occur, each ascending, sorted.
    pub maximal: Vec<Vec<ItemId>>,
}

/// The attacker's power that matters: no itemset longer than the longest transaction occurs,
/// so a larger `p` (up to `usize::MAX` from a flag) changes nothing but the work.
fn effective_p(db: &TransactionDb, params: &ValidCoherenceParams) -> usize {
    let longest = db.iter().map(<[ItemId]>::len).max().unwrap_or(0);
    params.p().min(longest.max(1))
}

/// The public itemsets of at most `p` items the work examines, bounded before it: per length
/// `i`, the transactions' `Σ_t C(|t|, i)` (with repeats), capped by `C(P, i)` for `P` public
/// items; saturating at `u64::MAX`.
fn itemsets_to_examine(w: &Working, p: usize) -> u64 {
    let binomial = |n: usize, i: usize| {
        if i > n {
            return 0;
        }
        txanon_border::binomial(n, i).map_or(u64::MAX, |c| u64::try_from(c).unwrap_or(u64::MAX))
    };
    let mut total = 0u64;
    // Lengths past the longest transaction add nothing, and a saturated total cannot grow: a
    // large p from a flag costs no more than the data's longest transaction.
    let longest = w.public.iter().map(Vec::len).max().unwrap_or(0);
    for i in 1..=p.min(longest) {
        let listed = w.public.iter().fold(0u64, |sum, t| sum.saturating_add(binomial(t.len(), i)));
        total = total.saturating_add(listed.min(binomial(w.public_items(), i)));
        if total == u64::MAX {
            break;
        }
    }
    total
}

/// The mole border of `db` with private items `private` after the pre-step (public items in
/// fewer than `max(k, k′)` transactions removed): the paper's Figure 3 for its running example.
///
/// # Errors
/// [`CoherenceError::NoCohesion`] as [`anonymize`].
pub fn mole_border(
    db: &TransactionDb,
    private: &[ItemId],
    params: &ValidCoherenceParams,
) -> Result<MoleBorder, CoherenceError> {
    let (w, _) = prepare(db, private, params)?;
    let settings = (params.h(), params.k(), effective_p(db, params), true);
    let nonmoles = NonMoles::find(&w, settings, &Progress::default());
    let back = |s: &Vec<u32>| -> Vec<ItemId> {
        let mut v: Vec<ItemId> = s.iter().map(|&j| w.public_ids[j as usize]).collect();
        v.sort_unstable();
        v
    };
    let minimal = nonmoles.minimal.iter().map(back).collect();
    let mut maximal: Vec<Vec<ItemId>> = w.maximal_public().iter().map(back).collect();
    maximal.sort();
    Ok(MoleBorder { minimal, maximal })
}

/// The cohesion check and the pre-step: the working data and the items the pre-step drops.
fn prepare(
    db: &TransactionDb,
    private: &[ItemId],
    params: &ValidCoherenceParams,
) -> Result<(Working, Vec<Suppressed>), CoherenceError> {
    let (h, k, k2) = (params.h(), params.k(), params.nugget_support());
    let n = db.len();
    if n < k as usize {
        return Err(CoherenceError::NoCohesion(format!(
            "{n} transactions, fewer than k = {k}: the empty itemset is a mole"
        )));
    }
    let mut is_private = vec![false; db.num_items()];
    for &s in private {
        is_private[s as usize] = true;
    }
    if let Some(s) =
        private.iter().copied().find(|&s| breaches(db.supports()[s as usize], n as u32, h))
    {
        return Err(CoherenceError::NoCohesion(format!(
            "private item {} is in {} of {n} transactions, more than h = {h}: the empty itemset is a mole",
            db.label(s),
            db.supports()[s as usize]
        )));
    }
    let threshold = k.max(k2);
    let mut dropped = Vec::new();
    let (mut public, mut private_next) = (0u32, 0u32);
    let roles: Vec<Role> = (0..db.num_items())
        .map(|i| {
            let support = db.supports()[i];
            if is_private[i] {
                private_next += 1;
                Role::Private(private_next - 1)
            } else if support < threshold {
                dropped
                    .push(Suppressed { item: i as ItemId, reason: Reason::Infrequent { support } });
                Role::Dropped
            } else {
                public += 1;
                Role::Public(public - 1)
            }
        })
        .collect();
    Ok((Working::new(db, &roles), dropped))
}

/// `a · b` as a 256-bit number `(high, low)`.
fn mul_wide(a: u128, b: u128) -> (u128, u128) {
    let (a1, a0) = (a >> 64, a & u64::MAX as u128);
    let (b1, b0) = (b >> 64, b & u64::MAX as u128);
    let (lo, mid1, mid2, hi) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    let (mid, carry_mid) = mid1.overflowing_add(mid2);
    let (low, carry_low) = lo.overflowing_add(mid << 64);
    let high = hi + (mid >> 64) + ((carry_mid as u128) << 64) + carry_low as u128;
    (high, low)
}

/// Compares `Score(a) = ma / na` with `Score(b) = mb / nb` exactly (infinite when the
/// denominator is 0).
fn compare_scores((ma, na): (u128, u128), (mb, nb): (u128, u128)) -> Ordering {
    match (na, nb) {
        (0, 0) => Ordering::Equal,
        (0, _) => Ordering::Greater,
        (_, 0) => Ordering::Less,
        _ => mul_wide(ma, nb).cmp(&mul_wide(mb, na)),
    }
}

/// The item the greedy algorithm suppresses next, given per public index its moles `m`, its
/// nuggets `nu`, whether it is `alive`, and its item id (`ids`, ascending): the largest score
/// among the items holding moles, ties to more moles, then to the smaller id; `None` when no
/// item holds a mole.
pub(crate) fn next_suppression(
    m: &[u128],
    nu: &[u128],
    alive: &[bool],
    ids: &[ItemId],
) -> Option<usize> {
    (0..ids.len()).filter(|&u| alive[u] && m[u] > 0).max_by(|&a, &b| {
        compare_scores((m[a], nu[a]), (m[b], nu[b])).then(m[a].cmp(&m[b])).then(ids[b].cmp(&ids[a]))
    })
}

/// Makes `db` (h,k,p)-coherent by suppressing public items (Xu, Fung, Wang, Fu, Pei, ICDM 2008):
/// items of `private` are never suppressed; every other item is public.
///
/// 1. The empty itemset must not be a mole: at least `k` transactions, and no private item in
///    more than `h` of them; otherwise no suppression helps ([`CoherenceError::NoCohesion`]).
/// 2. The pre-step (Observation 2) suppresses the public items in fewer than `max(k, k′)`
///    transactions.
/// 3. While some mole remains, the remaining public item with the largest
///    `Score(v) = |M(v)| / |N(v)|` (moles and nuggets holding it; infinite when no nugget does)
///    is suppressed and the counts of the others updated. Ties go to the item holding more
///    moles, then to the smaller item id. Items holding no mole are never chosen.
///
/// A mole is a public itemset of 1 to `p` items that occurs, with support below `k` or a
/// breach probability above `h` (the largest `Pr(s|β)` over private items `s` and subsets `β`
/// of it, the empty one included); a nugget, any itemset in at least `k′` transactions.
/// The counts are kept by the engine of the parameters; every engine gives the same counts and
/// so the same suppressions.
///
/// # Errors
/// [`CoherenceError::NoCohesion`]; [`CoherenceError::TooLarge`] for the enumeration engine on
/// too large an input; [`CoherenceError::Border`] or [`CoherenceError::Mining`] when a count
/// exceeds 128 bits.
///
/// # Panics
/// When a private item id is not an item of `db`.
///
/// Long as one function: the paper's Figure 2 in order (pre-step, counters, greedy loop,
/// publication, audit) with the progress phases between the steps.
pub fn anonymize(
    db: &TransactionDb,
    private: &[ItemId],
    params: &ValidCoherenceParams,
) -> Result<CoherencePublication, CoherenceError> {
    let (h, k, p, k2) = (params.h(), params.k(), effective_p(db, params), params.nugget_support());
    // Nobody watching costs nothing but the phase names.
    let progress = params.progress_handle().cloned().unwrap_or_default();
    progress.begin("coherence: public items and the pre-step", Unit::Items, 0);
    let (mut w, mut suppressed) = prepare(db, private, params)?;
    let itemsets = itemsets_to_examine(&w, p);
    if itemsets > params.max_itemsets() {
        return Err(CoherenceError::TooManyItemsets { p, itemsets, limit: params.max_itemsets() });
    }
    let settings = (h, k, p, params.engine() == Engine::BorderEdges);
    let moles_side = || {
        let nonmoles = NonMoles::find(&w, settings, &progress);
        // Public itemsets of length 1..=p that occur, per item and in all (co-occurrence
        // bitsets up to p = 3 when they fit, else one FP-Growth search at support 1); the
        // moles are those less the non-moles.
        progress.begin("coherence: public itemsets that occur", Unit::Items, 0);
        let occurring = occurring(&w, p, &progress);
        progress.begin("coherence: nuggets per item (FP-tree nodes mined)", Unit::Items, 0);
        (nonmoles, occurring)
    };
    // The counting engine's nuggets read the working data only: mined beside the non-moles,
    // whose passes fill the cores FP-Growth leaves idle (at 10⁷, p = 2, the nuggets kept 1.7
    // of the 2 cores busy for 9 s). They report to no one: the non-moles' phases are the ones
    // shown.
    let (nonmoles, occurring, mined) = if params.engine() == Engine::Counting {
        let ((nonmoles, occurring), mined) =
            rayon::join(moles_side, || MinedNuggets::new(&w, k2, &Progress::new()));
        (nonmoles, occurring, Some(mined))
    } else {
        let (nonmoles, occurring) = moles_side();
        (nonmoles, occurring, None)
    };
    let occurring = occurring?;
    let minimal_moles = nonmoles.minimal_count;
    let mole_total = occurring.total - nonmoles.sets.len() as u128;
    let mut maximal_public = None;
    // `nuggets_held`: the nuggets of the working data when counted.
    let (mut moles, mut nuggets, nuggets_held): (Box<dyn Counter>, Box<dyn Counter>, u128) =
        match params.engine() {
            Engine::Counting => {
                let nuggets = mined.expect("mined beside the non-moles")?;
                let held = nuggets.total();
                (Box::new(CountedMoles::new(occurring, nonmoles, p)), Box::new(nuggets), held)
            }
            Engine::BorderEdges => {
                // The mole border's maximal side: the engine's blocks.
                let maximal = w.maximal_public();
                maximal_public = Some(maximal.len());
                let nuggets = MinedNuggets::new(&w, k2, &progress)?;
                let held = nuggets.total();
                (
                    Box::new(EdgeMoles::new(&w, maximal, &nonmoles.minimal, p)?),
                    Box::new(nuggets),
                    held,
                )
            }
            Engine::Enumerate => {
                let nuggets = ListedNuggets::new(&w, k2)?;
                let held = nuggets.total();
                (
                    Box::new(ListedMoles::new(&w, h, k, p, params.enumeration_limit())?),
                    Box::new(nuggets),
                    held,
                )
            }
        };
    // The pre-step drops items below max(k, k′): those in a nugget only when k > k′, and then
    // the input's nuggets are counted on their own.
    let nuggets_before = if k > k2 { self::nuggets(db, k2)? } else { nuggets_held };
    let mut nuggets_after = nuggets_held;
    let mut alive = vec![true; w.public_items()];
    // Every suppression takes one of the items holding moles now, and the loop ends when none
    // holds any: their number bounds the loop.
    let holding = moles.counts().iter().filter(|&&m| m > 0).count();
    progress.begin(
        "coherence: greedy suppression (items holding moles)",
        Unit::Items,
        holding as u64,
    );
    loop {
        let (m, nu) = (moles.counts(), nuggets.counts());
        let Some(v) = next_suppression(m, nu, &alive, &w.public_ids) else { break };
        suppressed.push(Suppressed {
            item: w.public_ids[v],
            reason: Reason::Greedy { moles: m[v], nuggets: nu[v] },
        });
        // Suppressing v loses exactly the nuggets holding it now (the counts are the engine's:
        // a count above the nuggets held is a bug, not an input).
        nuggets_after =
            nuggets_after.checked_sub(nu[v]).expect("a step loses at most the nuggets held");
        // The two counters read the working data as it was, each on a worker.
        let (moles_done, nuggets_done) = both(
            w.tids.transactions(v as u32).len() >= PARALLEL_STEP,
            || moles.suppress(&w, v as u32),
            || nuggets.suppress(&w, v as u32),
        );
        moles_done?;
        nuggets_done?;
        if moles.reads_rows() || nuggets.reads_rows() {
            w.suppress(v as u32);
        }
        alive[v] = false;
        progress.advance(1);
    }
    progress.begin("coherence: publishing", Unit::Items, 0);
    // The counters and the working data are done with: their memory (the non-moles, a `Vec`
    // per transaction) goes back before the publication and its audit are built.
    drop((moles, nuggets, w));
    let mut gone = vec![false; db.num_items()];
    for s in &suppressed {
        gone[s.item as usize] = true;
    }
    let mut order: Vec<usize> = (0..db.len()).collect();
    let mut rng = txanon_data::publication_rng(params.seed(), db);
    order.shuffle(&mut rng);
    let published = db.select(order).filter_items(|i| !gone[i as usize]);
    let occurrences_suppressed = db.occurrences() - published.occurrences();
    let claim = Coherence::claim(params, MarkedDb { db, marked: private })?;
    let audit = audit_with_progress(&published, &claim, Some(db), &progress)?;
    Ok(CoherencePublication {
        audit,
        published,
        suppressed,
        moles: mole_total,
        minimal_moles,
        maximal_public,
        nuggets_before,
        nuggets_after,
        occurrences: db.occurrences(),
        occurrences_suppressed,
    })
}

/// The nuggets of `db`: its non-empty itemsets of support at least
/// `nugget_support` (the paper's `k′`), what the utility of a publication is measured by.
/// Compare a publication's with its input's to see what the suppression cost.
///
/// # Errors
/// [`CoherenceError::Mining`] when the count does not fit (more than 2¹²⁸ itemsets) or the
/// support is invalid.
///
/// # Complexity
/// One FP-Growth count at the support (closed-form for perfect extensions): output-sensitive,
/// never listing the itemsets.
pub fn nuggets(db: &TransactionDb, nugget_support: u32) -> Result<u128, CoherenceError> {
    let params = MiningParams::new(MinSupport::Count(nugget_support)).check()?;
    Ok(count_itemsets(db, &params)?.total().expect("checked by count_itemsets"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_products_compare_exactly() {
        assert_eq!(mul_wide(u128::MAX, 2), (1, u128::MAX - 1));
        assert_eq!(mul_wide(1 << 64, 1 << 64), (1, 0));
        let big = u128::MAX / 3;
        assert_eq!(compare_scores((big, big - 1), (big - 1, big - 2)), Ordering::Less);
        assert_eq!(compare_scores((8, 2), (4, 1)), Ordering::Equal);
        assert_eq!(compare_scores((1, 0), (u128::MAX, 1)), Ordering::Greater);
    }

    /// The budget is checked before the work: the estimate is the listing with repeats (checked
    /// against listing every subset), capped by what the public items can form; one over the
    /// limit is refused, the limit itself is not.
    #[test]
    fn itemsets_over_the_budget_are_refused_before_the_work() {
        let rows: Vec<Vec<u32>> =
            vec![(0..12).collect(), vec![0, 1, 2], vec![3, 4], (0..12).collect(), vec![5]];
        let db = TransactionDb::from_int_transactions(rows.clone());
        let params =
            |limit| crate::CoherenceParams::new(0.9, 2, 3, 2).max_itemsets(limit).check().unwrap();
        let (w, _) = prepare(&db, &[], &params(1)).unwrap();
        // Every subset of every row listed, per length, against what 12 public items can form.
        let choose = |n: u64, r: u64| (0..r).fold(1u64, |c, j| c * (n - j) / (j + 1));
        let expected: u64 = (1..=3u32)
            .map(|i| {
                let listed = rows
                    .iter()
                    .map(|t| (1u64..(1 << t.len())).filter(|m| m.count_ones() == i).count() as u64)
                    .sum::<u64>();
                listed.min(choose(12, u64::from(i)))
            })
            .sum();
        assert_eq!(expected, 12 + 66 + 220, "the cap binds at every length here");
        assert_eq!(itemsets_to_examine(&w, 3), expected);
        match anonymize(&db, &[], &params(expected - 1)) {
            Err(CoherenceError::TooManyItemsets { p: 3, itemsets, limit }) => {
                assert_eq!((itemsets, limit), (expected, expected - 1));
            }
            other => panic!("{other:?}"),
        }
        assert!(anonymize(&db, &[], &params(expected)).is_ok());
        // Without the cap: rows of distinct items, each twice (to pass the pre-step).
        let apart: Vec<Vec<u32>> = [vec![0, 1, 2], vec![3, 4, 5, 6], vec![7, 8]]
            .into_iter()
            .flat_map(|t| [t.clone(), t])
            .collect();
        let (w, _) =
            prepare(&TransactionDb::from_int_transactions(apart), &[], &params(1)).unwrap();
        // Singletons: 18 listed, 9 items; pairs: 2·(3 + 6 + 1) = 20 ≤ C(9, 2); triples 2·(1 + 4).
        assert_eq!(itemsets_to_examine(&w, 3), 9 + 20 + 10);
        // The cap: 1,000 copies of one 4-item transaction list 4,000 singletons, of 4 items.
        let copies = TransactionDb::from_int_transactions(vec![vec![0, 1, 2, 3]; 1000]);
        let (w, _) = prepare(&copies, &[], &params(1)).unwrap();
        assert_eq!(itemsets_to_examine(&w, 3), 4 + 6 + 4);
        // A p far beyond the longest transaction costs nothing more.
        assert_eq!(itemsets_to_examine(&w, usize::MAX), 15);
    }
}
