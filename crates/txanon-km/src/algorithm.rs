//! The greedy searches of a kᵐ-anonymous cut (AA and DA), and the publication.

use crate::{Km, KmInput};
use rand::seq::SliceRandom;
use txanon_data::Family;
use txanon_data::progress::{Progress, Unit};
use txanon_data::{ItemId, ItemLabels, TransactionDb, publication_rng};

use crate::audit::{KmAuditReport, audit_with_progress};
use crate::cut::{Cut, InformationLoss, information_loss};
use crate::error::KmError;
use crate::hierarchy::{Hierarchy, NodeId};
use crate::optimal::optimal_cut;
use crate::params::{Algorithm, ValidKmParams};
use crate::rows::generalize;
use crate::search::Search;
use crate::sweep::{SWEEP, Sweep};

/// A kᵐ-anonymous publication and what it cost.
#[derive(Debug, Clone)]
pub struct KmPublication {
    /// The generalized transactions (items are the labels of the cut's nodes), in a
    /// ChaCha20-shuffled order.
    pub published: TransactionDb,
    /// The cut's nodes (labels, depth-first order): every item of the hierarchy generalized
    /// to the one of them above it.
    pub cut: Vec<String>,
    /// How many of the cut's nodes are generalized items (inner nodes of the hierarchy).
    pub generalized_items: usize,
    /// The information loss.
    pub loss: InformationLoss,
    /// Generalizations the search made (each a set of nodes the cut was raised to), in order.
    pub generalizations: Vec<Vec<String>>,
    /// The audit of the publication against the input.
    pub audit: KmAuditReport,
}

/// kᵐ-anonymization by global recoding (Terrovitis, Mamoulis, Kalnis, "Privacy-preserving
/// Anonymization of Set-valued Data", PVLDB 1(1), 2008): the cut of `hierarchy` that
/// [`ValidKmParams::algorithm`] finds, the data generalized by it, shuffled, and audited
/// against `db` before it is returned.
///
/// AA and DA fix each itemset of fewer than `k` transactions (the violations) by the
/// cheapest raise of the cut that gives its generalization at least `k`: the candidates are
/// every way of moving its items up their paths to the root, their cost the information loss
/// they add (exact, in integers), their support read from the nodes' transaction lists.
/// Deviations from the paper, and why:
/// - After a pass over the violations the itemsets are counted again under the new cut and
///   fixed again, until none is left: the paper's single pass over a count tree skips the
///   itemsets whose items a fix generalized, and a generalized itemset can still be short of
///   `k` (the public reimplementation's test cases show it). So the output is always
///   kᵐ-anonymous, which the paper's pseudo-code does not ensure.
/// - Violations are fixed in the count tree's preorder with items ranked as the paper's
///   reimplementation ranks them (more leaves first, then node order), itemsets with a
///   generalized item counted through the nodes' transaction lists instead of an expanded
///   count tree (the same supports, without the expansion's `C(|t ∪ ancestors|, m)` itemsets).
///
/// # Errors
/// [`KmError::Hierarchy`] when an item of `db` is not a leaf of `hierarchy`;
/// [`KmError::Unreachable`] for fewer than `k` transactions, or fewer than `k` non-empty
/// ones (even the root alone is then too rare), or data too large to number (2³² − 1
/// transactions; for AA and DA, item occurrences and two words per transaction);
/// [`KmError::TooManyCuts`] for the optimal search over a large hierarchy;
/// [`KmError::TooManyCombinations`] for a counting pass over the limit; [`KmError::Audit`] if
/// the publication failed its audit (a bug).
///
/// # Complexity
/// AA: per pass at level `i`, `Σ_t C(|g(t)|, i)` counter updates over the distinct
/// generalized transactions `g(t)` (rayon), and per violation at most `Π (depth + 1)`
/// candidates, evaluated cheapest first, each an intersection of at most `m` transaction
/// lists. Memory: the transaction lists of the items and of the inner nodes a fix asks about
/// (each made the first time, as the union of its children's), at most
/// `O(Σ_t |t| · height)`.
pub fn anonymize(
    db: &TransactionDb,
    hierarchy: &Hierarchy,
    params: &ValidKmParams,
) -> Result<KmPublication, KmError> {
    let leaf_of_item = hierarchy.leaves_of_items(db)?;
    let k = params.k();
    reachable_transactions(db.len() as u64, k)?;
    reachable_non_empty(db.iter().filter(|t| !t.is_empty()).count() as u64, k)?;
    let limit = params.max_combinations();
    // Nobody watching costs an atomic addition per block.
    let progress = params.progress_handle().cloned().unwrap_or_default();
    let (cut, generalizations) = match params.algorithm() {
        algorithm @ (Algorithm::Apriori | Algorithm::Direct) => greedy(
            db,
            hierarchy,
            &leaf_of_item,
            (k, params.m()),
            algorithm == Algorithm::Apriori,
            limit,
            &progress,
            (Recount::Fresh, SWEEP),
        )?,
        Algorithm::Optimal => {
            (optimal_cut(db, hierarchy, &leaf_of_item, k, params.m(), params.max_cuts())?, vec![])
        }
    };
    progress.begin("km: publishing", Unit::Items, 0);
    let published = publish(db, hierarchy, &leaf_of_item, &cut, params.seed());
    let cut_nodes = cut.nodes();
    let generalized_items = cut_nodes.iter().filter(|&&v| !hierarchy.is_leaf(v)).count();
    let cut_labels: Vec<String> =
        cut_nodes.into_iter().map(|v| hierarchy.label(v).to_string()).collect();
    let claim = Km::claim(params, KmInput { db, hierarchy })?;
    let report =
        audit_with_progress(&published, hierarchy, &claim, Some(&cut_labels), Some(db), &progress)?;
    let loss = information_loss(hierarchy, &cut, db, &leaf_of_item);
    let generalizations = generalizations
        .into_iter()
        .map(|g| g.into_iter().map(|v| hierarchy.label(v).to_string()).collect())
        .collect();
    Ok(KmPublication {
        published,
        cut: cut_labels,
        generalized_items,
        loss,
        generalizations,
        audit: report,
    })
}

/// Refuses `n` transactions that this implementation cannot number, or fewer than `k`.
pub(crate) fn reachable_transactions(n: u64, k: u32) -> Result<(), KmError> {
    if u32::try_from(n).is_err() {
        return Err(KmError::Unreachable(format!(
            "{n} transactions, more than the 2³² − 1 this implementation numbers"
        )));
    }
    if n < u64::from(k) {
        return Err(KmError::Unreachable(format!(
            "{n} transactions, fewer than k = {k}: an adversary who knows nothing already finds fewer than k"
        )));
    }
    Ok(())
}

/// Refuses some but fewer than `k` non-empty transactions: even the root is then too rare.
pub(crate) fn reachable_non_empty(non_empty: u64, k: u32) -> Result<(), KmError> {
    if non_empty > 0 && non_empty < u64::from(k) {
        return Err(KmError::Unreachable(format!(
            "{non_empty} non-empty transactions, fewer than k = {k}: even every item generalized to the root is too rare"
        )));
    }
    Ok(())
}

/// The cut AA (`level_wise`) or DA finds, and the raises it made; a level's passes after its
/// first count as `recount_after_fixes` says ([`Recount::Fresh`] in a run, the other to check
/// it), each pass in one sweep of its rows where `sweep` allows ([`SWEEP`] in a run).
#[allow(clippy::too_many_arguments)]
pub(crate) fn greedy(
    db: &TransactionDb,
    hierarchy: &Hierarchy,
    leaf_of_item: &[NodeId],
    (k, m): (u32, usize),
    level_wise: bool,
    max_combinations: u64,
    progress: &Progress,
    (recount_after_fixes, sweep): (Recount, Sweep),
) -> Result<(Cut, Vec<Vec<NodeId>>), KmError> {
    // A pass packs every generalized transaction with two more words, and numbers the words
    // in 32 bits.
    let n = db.len();
    if (db.occurrences() as u64).saturating_add(2 * n as u64) > u64::from(u32::MAX) {
        return Err(KmError::Unreachable(format!(
            "{} item occurrences in {n} transactions, more than the 2³² − 1 words AA and DA number",
            db.occurrences()
        )));
    }
    // The inner nodes' lists are made when a fix first asks for them.
    progress.begin("km: transaction lists of the items", Unit::Items, 0);
    let mut search = Search::new(db, hierarchy, leaf_of_item, k);
    search.sweep = sweep;
    let levels: Vec<std::ops::RangeInclusive<usize>> =
        if level_wise { (1..=m).map(|i| i..=i).collect() } else { vec![1..=m] };
    for sizes in levels {
        let mut recount = Recount::Everything;
        for pass in 1.. {
            let what = if sizes.start() == sizes.end() {
                format!("{}-itemsets", sizes.start())
            } else {
                format!("itemsets of {} to {} items", sizes.start(), sizes.end())
            };
            progress.begin(format!("km: counting {what}, pass {pass}"), Unit::Items, 0);
            let fresh = match recount {
                Recount::Everything => None,
                Recount::Fresh => Some(search.take_fresh()),
            };
            let violations =
                search.violations(sizes.clone(), fresh.as_deref(), max_combinations, progress)?;
            let found: usize = violations.iter().map(Vec::len).sum();
            if found == 0 {
                break;
            }
            progress.begin(
                format!("km: fixing {what} in fewer than k transactions"),
                Unit::Items,
                found as u64,
            );
            search.make_parents_of(&violations);
            // The next recount is of what these fixes raise.
            search.raised_since.clear();
            for branch in &violations {
                for block in branch.chunks(1024) {
                    for &key in block {
                        search.fix(key);
                    }
                    progress.advance(block.len() as u64);
                }
            }
            recount = recount_after_fixes;
        }
    }
    Ok((search.cut, search.raises))
}

/// What a pass after the first of one level counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Recount {
    /// Every itemset of the level's sizes again.
    Everything,
    /// Only the itemsets holding a node the last pass's fixes raised the cut to, from the rows
    /// holding one. The others are the same nodes with the same transactions as in the last
    /// count, where none was rare: a rare one was fixed, and a fix raises one of its items
    /// out of the cut (or finds one raised already). So the violations are the same, in the
    /// same order, and the pass reads only the rows the fixes touched.
    Fresh,
}

/// The data generalized by `cut`, as a database over the labels of the cut's nodes that
/// occur, in an order that depends on neither the input's order nor anything but the seed.
pub(crate) fn publish(
    db: &TransactionDb,
    hierarchy: &Hierarchy,
    leaf_of_item: &[NodeId],
    cut: &Cut,
    seed: Option<u64>,
) -> TransactionDb {
    let node_of_item: Vec<NodeId> = leaf_of_item
        .iter()
        .map(|&leaf| cut.node_of_leaf(hierarchy.leaf_range(leaf).start))
        .collect();
    let mut used: Vec<NodeId> = node_of_item.clone();
    used.sort_unstable();
    used.dedup();
    // The dictionary a reader of the published file builds: integers when every label is one.
    let names: Vec<&str> = used.iter().map(|&v| hierarchy.label(v)).collect();
    let (labels, id_of_used) = ItemLabels::ranked(&names);
    let mut id_of_node = vec![ItemId::MAX; hierarchy.len()];
    for (&v, &id) in used.iter().zip(&id_of_used) {
        id_of_node[v as usize] = id;
    }
    let id_of_item: Vec<ItemId> = node_of_item.iter().map(|&v| id_of_node[v as usize]).collect();
    // Every row kept: row `r`'s code is `r`.
    let generalized = generalize(db, &id_of_item, 0, None).into_db(labels);
    let mut order = generalized.lexicographic_order();
    order.shuffle(&mut publication_rng(seed, db));
    generalized.select(order.into_iter().map(|r| r as usize))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::combinations::*;
    use crate::counter::*;
    use crate::rows::*;
    use crate::search::*;
    use rustc_hash::FxHashMap;

    #[test]
    fn combinations_come_in_preorder() {
        let mut keys = Vec::new();
        each_combination(&[1, 4, 7, 9], 2, |k| keys.push(k));
        assert_eq!(keys.len(), 6);
        assert!(keys.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(unpack(keys[0]).collect::<Vec<_>>(), [1, 4]);
        assert_eq!(unpack(keys[5]).collect::<Vec<_>>(), [7, 9]);
        let mut n = 0;
        each_combination(&[0, 1, 2, 3, 4, 5], 4, |_| n += 1);
        assert_eq!(n, 15);
        each_combination(&[0, 1], 3, |_| panic!("no 3-combination of 2 items"));
        // A prefix sorts before its extensions, which sort before the next prefix.
        let (mut single, mut pair) = (0, 0);
        each_combination(&[2, 3], 1, |k| single = single.max(k));
        each_combination(&[2, 3], 2, |k| pair = k);
        assert!(unpack(pair).count() == 2 && pair < single);
    }

    #[test]
    fn a_branch_holds_the_combinations_of_its_first_rank() {
        let row = [1, 4, 7, 9];
        for size in 1..=4 {
            let mut all = Vec::new();
            each_combination(&row, size, |k| all.push(k));
            let mut branches = Vec::new();
            for from in 0..row.len() {
                each_combination_from(&row[from..], size, |k| branches.push(k));
            }
            assert_eq!(branches, all, "size {size}");
        }
        each_combination_from(&[], 1, |_| panic!("no first rank"));
    }

    /// Past one block of bitset words (256 words: 16,384 rows), with rows of weight two among
    /// the others, a branch's triple table counted through bitsets is the increments' cell for
    /// cell (the property test's rows fill one word at most).
    #[test]
    fn bitsets_count_what_increments_count_over_many_blocks() {
        let ranks = 24u32;
        let mut rows = PackedRows::default();
        for j in 0..48_000u64 {
            let bits = txanon_data::mix64(j);
            let row: Vec<u32> = (0..ranks).filter(|&r| bits >> r & 1 == 1).collect();
            rows.push(&row, if j % 7 == 0 { 2 } else { 1 });
        }
        let holding = rows.places(ranks as usize);
        let increments =
            TripleTable { max_cells: usize::MAX, cells_per_pair: u64::MAX, bitset_rows: None };
        let bitsets = TripleTable {
            bitset_rows: Some(BitsetRows { min_len: 0, width_share: 4, increments_per_word: 0 }),
            ..increments
        };
        for a in [0, 1, 9] {
            let mut tables = Vec::new();
            for table in [increments, bitsets] {
                let mut counter = BranchCounter::new(ranks as usize, table);
                let found = counter.rare(a, holding.of(a), &rows, 3..=3, u32::MAX);
                tables.push((found, counter.ranks.clone(), counter.triples.clone()));
                if table.bitset_rows.is_some() {
                    assert!(counter.bitset_words > 256, "rank {a}: {} words", counter.bitset_words);
                }
            }
            assert!(!tables[0].0.is_empty(), "rank {a}: every triple that occurs is below k");
            assert_eq!(tables[0], tables[1], "rank {a}");
        }
    }

    proptest::proptest! {
        /// A branch's counters find, dense or hashed, the rare itemsets that counting every
        /// combination of every row finds under that branch's rank.
        #[test]
        fn branches_find_what_counting_every_combination_finds(
            rows in proptest::collection::vec(
                (proptest::collection::btree_set(0u32..12, 1..8), 1u32..4), 1..40),
            k in 2u32..8,
            sizes in proptest::prop_oneof![
                proptest::strategy::Just(1..=1usize), proptest::strategy::Just(2..=2),
                proptest::strategy::Just(3..=3), proptest::strategy::Just(4..=4),
                proptest::strategy::Just(1..=3), proptest::strategy::Just(1..=4),
            ],
        ) {
            let mut distinct = PackedRows::default();
            let mut counts: FxHashMap<u128, u32> = FxHashMap::default();
            for (row, w) in &rows {
                let row: Vec<u32> = row.iter().copied().collect();
                distinct.push(&row, *w);
                for size in sizes.clone() {
                    each_combination(&row, size, |key| *counts.entry(key).or_insert(0) += w);
                }
            }
            let holding = distinct.places(12);
            proptest::prop_assert_eq!(
                distinct.iter().map(|(r, w)| (r.to_vec(), w)).collect::<Vec<_>>(),
                rows.iter().map(|(r, w)| (r.iter().copied().collect::<Vec<_>>(), *w)).collect::<Vec<_>>()
            );
            for table in [
                TripleTable { max_cells: usize::MAX, cells_per_pair: u64::MAX, bitset_rows: None },
                TripleTable { max_cells: 0, cells_per_pair: 0, bitset_rows: None },
                TripleTable {
                    max_cells: usize::MAX,
                    cells_per_pair: u64::MAX,
                    bitset_rows: Some(BitsetRows { min_len: 0, width_share: usize::MAX, increments_per_word: 0 }),
                },
                TripleTable {
                    max_cells: usize::MAX,
                    cells_per_pair: u64::MAX,
                    bitset_rows: Some(BitsetRows { min_len: 3, width_share: 4, increments_per_word: 0 }),
                },
                TRIPLE_TABLE,
            ] {
                let mut counter = BranchCounter::new(12, table);
                for a in 0..12u32 {
                    let mut expected: Vec<u128> = counts
                        .iter()
                        .filter(|&(&key, &c)| c < k && unpack(key).next() == Some(a))
                        .map(|(&key, _)| key)
                        .collect();
                    expected.sort_unstable();
                    let found = counter.rare(a, holding.of(a), &distinct, sizes.clone(), k);
                    proptest::prop_assert_eq!(found, expected, "rank {} table {:?}", a, table);
                    proptest::prop_assert!(counter.column.iter().all(|&c| c == u32::MAX));
                }
            }
        }
    }

    proptest::proptest! {
        /// A recount of the fresh itemsets only finds what a recount of every itemset finds,
        /// and a pass swept in dense tables what the branch counters find: the same raises, in
        /// the same order, and the same cut, for AA and DA.
        #[test]
        fn recounting_the_fresh_itemsets_changes_nothing(
            rows in proptest::collection::vec(proptest::collection::btree_set(0u32..30, 1..9), 5..80),
            k in 2u32..7,
            m in 1usize..5,
            fanout in 2usize..5,
            level_wise in proptest::bool::ANY,
        ) {
            // `anonymize` refuses fewer non-empty transactions than k before any search.
            proptest::prop_assume!(rows.len() >= k as usize);
            let rows: Vec<Vec<u32>> = rows.iter().map(|r| r.iter().copied().collect()).collect();
            let db = TransactionDb::from_int_transactions(rows);
            let hierarchy = Hierarchy::balanced(&db, fanout).unwrap();
            let leaves = hierarchy.leaves_of_items(&db).unwrap();
            let run = |recount, sweep| {
                greedy(
                    &db, &hierarchy, &leaves, (k, m), level_wise, u64::MAX,
                    &Progress::default(), (recount, sweep),
                )
                .unwrap()
            };
            let branches = Sweep { max_cells: 0, byte_cells: 0, gram_share: None };
            let (every_cut, every_raises) = run(Recount::Everything, branches);
            let (fresh_cut, fresh_raises) = run(Recount::Fresh, branches);
            proptest::prop_assert_eq!(&fresh_raises, &every_raises);
            proptest::prop_assert_eq!(&fresh_cut, &every_cut);
            let bytes = Sweep { max_cells: 0, byte_cells: usize::MAX, gram_share: None };
            let gram = Sweep { max_cells: usize::MAX, byte_cells: 0, gram_share: Some(0) };
            for sweep in [SWEEP, bytes, gram] {
                let (swept_cut, swept_raises) = run(Recount::Fresh, sweep);
                proptest::prop_assert_eq!(&swept_raises, &every_raises);
                proptest::prop_assert_eq!(&swept_cut, &every_cut);
            }
        }
    }

    /// Each node's transaction list is every transaction holding a leaf below the node,
    /// ascending, once each, against a slow reference that asks the hierarchy per transaction:
    /// with several of a transaction's items under one node, and empty transactions; in the
    /// balanced hierarchy, and in one with leaves the data lacks (one alone under an inner
    /// node), a node of one child, and nodes of 3, 8 and 33 children (unions of one to six
    /// rounds, odd counts among them); asked for from the root down and from the leaves up,
    /// and made on rayon first.
    #[test]
    fn node_lists_are_the_transactions_below_each_node() {
        // Every other row sparse (two or three items), so that a union of many lists is not
        // every transaction whatever it drops.
        let rows: Vec<Vec<u32>> = (0..5_000u64)
            .map(|j| {
                let (bits, more) = (txanon_data::mix64(j), txanon_data::mix64(!j));
                let kept = |i: u32| j % 2 == 0 || more >> (i % 32) & 15 == 0;
                (0..40u32)
                    .filter(|&i| bits >> i & 1 == 1 && bits >> 50 & 3 != 0 && kept(i))
                    .collect()
            })
            .collect();
        let db = TransactionDb::from_int_transactions(rows);
        let mut text: String = (0..7).map(|i| format!("{i} G0\n")).collect();
        text += "x1 G0\n7 G1\n8 G1\n9 G1\n10 G2\nx2 G3\nG0 ALL\nG1 ALL\nG2 ALL\nG3 ALL\n";
        text += &(11..40).map(|i| format!("{i} ALL\n")).collect::<String>();
        let uneven = Hierarchy::from_text(&text).unwrap();
        let widths: Vec<usize> = ["ALL", "G0", "G1", "G2", "G3"]
            .map(|g| uneven.children(uneven.find(g).unwrap()).len())
            .to_vec();
        assert_eq!(widths, [33, 8, 3, 1, 1]);
        let mut inner_non_empty = 0;
        for hierarchy in [Hierarchy::balanced(&db, 3).unwrap(), uneven] {
            let leaves = hierarchy.leaves_of_items(&db).unwrap();
            let nodes: Vec<NodeId> = (0..hierarchy.len() as NodeId).collect();
            for (top_down, made) in [(false, false), (true, false), (true, true)] {
                let search = Search::new(&db, &hierarchy, &leaves, 2);
                if made {
                    search.transactions.make(nodes.iter().copied().rev());
                }
                let mut asked = nodes.clone();
                asked.sort_by_key(|&v| hierarchy.height(v));
                if top_down {
                    asked.reverse();
                }
                for &v in &asked {
                    let expected: Vec<u32> = (0..db.len() as u32)
                        .filter(|&r| {
                            db.transaction(r as usize)
                                .iter()
                                .any(|&i| hierarchy.covers(v, leaves[i as usize]))
                        })
                        .collect();
                    let inner = !hierarchy.is_leaf(v);
                    inner_non_empty += usize::from(inner && !expected.is_empty());
                    assert_eq!(search.transactions.transactions(v), expected, "node {v}");
                }
            }
        }
        assert!(inner_non_empty > 40, "inner nodes met: {inner_non_empty}");
        assert!(db.iter().any(<[u32]>::is_empty));
    }

    /// The generalized rows are the distinct transactions under the cut with their
    /// multiplicities, in lexicographic order, against a sorted map of every transaction: over
    /// enough nodes that a key holds nine ranks, so that many rows are longer than their key,
    /// some equal on the key and unlike after it, and many repeated. Counted: repeated rows
    /// longer than the key and repeated rows the key holds whole, under a raised cut too, with
    /// and without a length floor and fresh ranks.
    #[test]
    fn generalized_rows_are_the_distinct_rows_with_their_counts() {
        // 6,000 items in a balanced binary hierarchy: nearly 12,000 nodes, 14 bits a rank.
        let base: Vec<Vec<u32>> = (0..400u64)
            .map(|j| {
                let len = 2 + (txanon_data::mix64(j) % 20) as u32;
                (0..len)
                    .map(|p| (txanon_data::mix64(j << 8 | u64::from(p)) % 6_000) as u32)
                    .collect()
            })
            .collect();
        // Each base row three times, and once more with its last item changed: rows equal on
        // their first ranks and unlike after.
        let rows: Vec<Vec<u32>> = base
            .iter()
            .flat_map(|row| {
                let mut other = row.clone();
                *other.last_mut().unwrap() = (other.last().unwrap() + 1) % 6_000;
                [row.clone(), row.clone(), row.clone(), other]
            })
            .chain([(0..6_000).collect()])
            .collect();
        let db = TransactionDb::from_int_transactions(rows);
        let hierarchy = Hierarchy::balanced(&db, 2).unwrap();
        let leaves = hierarchy.leaves_of_items(&db).unwrap();
        let mut search = Search::new(&db, &hierarchy, &leaves, 2);
        let places = 128 / txanon_data::prefix_key_bits(search.node_of_rank.len()) as usize;
        assert_eq!(places, 9);
        let (mut long_repeated, mut whole_repeated) = (0, 0);
        for raised in [false, true] {
            if raised {
                // Every fourth node's parent, where the node is a leaf still on the cut: rows
                // shrink and new rows meet.
                for v in (0..hierarchy.len() as NodeId).step_by(4) {
                    if hierarchy.is_leaf(v) && search.cut.contains(&hierarchy, v) {
                        search.raise(hierarchy.parent(v).expect("a leaf below the root"));
                    }
                }
            }
            let fresh: Vec<bool> = (0..search.node_of_rank.len()).map(|r| r % 3 == 0).collect();
            for (min_len, fresh) in [(0, None), (3, None), (2, Some(&fresh[..]))] {
                let mut expected = std::collections::BTreeMap::<Vec<u32>, u32>::new();
                for t in db.iter() {
                    let mut row: Vec<u32> = t
                        .iter()
                        .map(|&i| {
                            let pos = hierarchy.leaf_range(leaves[i as usize]).start;
                            search.rank[search.cut.node_of_leaf(pos) as usize]
                        })
                        .collect();
                    row.sort_unstable();
                    row.dedup();
                    let marked = fresh.is_none_or(|f| row.iter().any(|&r| f[r as usize]));
                    if row.len() >= min_len && marked {
                        *expected.entry(row).or_default() += 1;
                    }
                }
                let found: Vec<(Vec<u32>, u32)> = search
                    .generalized_rows(min_len, fresh)
                    .iter()
                    .map(|(row, w)| (row.to_vec(), w))
                    .collect();
                for (row, &w) in &expected {
                    long_repeated += usize::from(row.len() > places && w > 1);
                    whole_repeated += usize::from(row.len() <= places && w > 1);
                }
                assert_eq!(found, expected.into_iter().collect::<Vec<_>>(), "{raised} {min_len}");
            }
        }
        assert!(long_repeated > 100 && whole_repeated > 100, "{long_repeated} {whole_repeated}");
    }

    /// A node 100,000 levels above its leaf has its list made without recursion: a
    /// recursive union of the children's lists overflowed the test thread's stack.
    #[test]
    fn a_deep_hierarchy_lists_without_recursion() {
        let depth = 100_000;
        let mut text: String = (1..depth).map(|d| format!("c{d} c{}\n", d + 1)).collect();
        text += "0 c1\n1 c1\n2 c50000\n";
        let hierarchy = Hierarchy::from_text(&text).unwrap();
        let db = TransactionDb::from_int_transactions([vec![0], vec![1, 2], vec![], vec![2]]);
        let leaves = hierarchy.leaves_of_items(&db).unwrap();
        let search = Search::new(&db, &hierarchy, &leaves, 2);
        let root = hierarchy.find(&format!("c{depth}")).unwrap();
        assert_eq!(hierarchy.height(root), depth);
        assert_eq!(search.transactions.transactions(root), [0, 1, 3]);
        assert_eq!(search.transactions.transactions(hierarchy.find("c2").unwrap()), [0, 1]);
        assert_eq!(search.transactions.transactions(hierarchy.find("c50000").unwrap()), [0, 1, 3]);
    }

    #[test]
    fn binomials() {
        assert_eq!(binomial(161, 4), 26_964_280);
        assert_eq!(binomial(3, 4), 0);
        assert_eq!(binomial(10, 0), 1);
        assert_eq!(binomial(u64::MAX, 4), u64::MAX);
    }

    #[test]
    fn fenwick_sums_ranges() {
        let mut f = Fenwick::new(6);
        f.add(1, 5);
        f.add(4, 7);
        assert_eq!(f.range(0..6), 12);
        assert_eq!(f.range(2..5), 7);
        f.add(4, 3u128.wrapping_sub(7));
        assert_eq!(f.range(0..6), 8);
    }
}
