//! Borders against enumeration: on random borders over a few items, every count equals the
//! number of itemsets found by listing the whole lattice.

use std::collections::BTreeSet;

use proptest::prelude::*;
use txanon_border::reference::{compute_delta, count_blocks, count_per_item, is_subset};
use txanon_border::{
    AllItemsets, Border, Edge, Itemset, Measure, count, count_blocks_per_item,
    count_per_item_indexed, maximal_only,
};

const ITEMS: u32 = 9;

/// Every itemset over `ITEMS` items.
fn lattice() -> Vec<Itemset> {
    (0u32..1 << ITEMS).map(|mask| (0..ITEMS).filter(|i| mask & (1 << i) != 0).collect()).collect()
}

/// The itemsets covered by some edge, holding `x`, of length at most `len`, by listing.
fn brute(edges: &[Edge], x: &[u32], len: usize) -> Vec<Itemset> {
    lattice()
        .into_iter()
        .filter(|g| g.len() <= len && is_subset(x, g) && edges.iter().any(|e| e.covers(g)))
        .collect()
}

fn anti_chain(sets: Vec<BTreeSet<u32>>) -> Vec<Itemset> {
    maximal_only(sets.into_iter().map(|s| s.into_iter().collect()).collect())
}

/// A random border: maximal sets first, then for each a few of its subsets as minimal sets,
/// made an anti-chain by keeping the minimal ones.
fn border() -> impl Strategy<Value = Border> {
    (
        prop::collection::vec(prop::collection::btree_set(0..ITEMS, 1..7), 1..6),
        prop::collection::vec((any::<usize>(), any::<u64>()), 1..8),
    )
        .prop_map(|(tops, picks)| {
            let maximal = anti_chain(tops);
            let mut lows: Vec<Itemset> = picks
                .into_iter()
                .map(|(which, mask)| {
                    let top = &maximal[which % maximal.len()];
                    top.iter()
                        .enumerate()
                        .filter(|(k, _)| mask & (1 << (k % 64)) != 0)
                        .map(|(_, &i)| i)
                        .collect()
                })
                .collect();
            // Minimal: drop any low that has another low strictly inside it.
            lows.sort();
            lows.dedup();
            let minimal: Vec<Itemset> = lows
                .iter()
                .filter(|a| !lows.iter().any(|b| b != *a && is_subset(b, a)))
                .cloned()
                .collect();
            // Keep only the maximal sets above some minimal one.
            let maximal: Vec<Itemset> =
                maximal.into_iter().filter(|b| minimal.iter().any(|a| is_subset(a, b))).collect();
            Border::new(minimal, maximal).expect("a border by construction")
        })
}

fn x_and_len() -> impl Strategy<Value = (Itemset, usize)> {
    (prop::collection::btree_set(0..ITEMS, 0..3), prop::option::of(0usize..6))
        .prop_map(|(x, len)| (x.into_iter().collect(), len.unwrap_or(usize::MAX)))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// The sets no other distinct set contains, longest first then ascending, by the
    /// definition: each compared with every other. Item ids far apart are drawn too (the
    /// function renumbers them).
    #[test]
    fn maximal_only_keeps_exactly_the_sets_no_other_contains(
        sets in prop::collection::vec(prop::collection::btree_set(
            prop::sample::select(vec![0u32, 1, 2, 3, 4, 5, 6, 1 << 20, u32::MAX]), 0..6), 0..40),
    ) {
        let sets: Vec<Itemset> = sets.into_iter().map(|s| s.into_iter().collect()).collect();
        let mut expected: Vec<Itemset> = sets
            .iter()
            .filter(|s| !sets.iter().any(|t| t.len() > s.len() && is_subset(s, t)))
            .cloned()
            .collect();
        expected.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        expected.dedup();
        prop_assert_eq!(maximal_only(sets), expected);
    }

    #[test]
    fn w_over_a_border_is_the_number_of_covered_itemsets(b in border(), (x, len) in x_and_len()) {
        let expected = brute(b.edges(), &x, len);
        prop_assert_eq!(count(b.edges(), &x, len, &AllItemsets).unwrap(), expected.len() as u128);
        let mut per_item = vec![0i128; ITEMS as usize];
        count_per_item(b.edges(), &x, len, &AllItemsets, &mut per_item).unwrap();
        let mut indexed = vec![0i128; ITEMS as usize];
        count_per_item_indexed(b.edges(), &x, len, &AllItemsets, &mut indexed).unwrap();
        for u in 0..ITEMS {
            let holding = expected.iter().filter(|g| g.contains(&u)).count() as i128;
            prop_assert_eq!(per_item[u as usize], holding, "item {}", u);
            prop_assert_eq!(indexed[u as usize], holding, "indexed, item {}", u);
        }
    }

    #[test]
    fn compute_delta_counts_the_losers_by_item(b in border(), v in 0..ITEMS, len in 1usize..6) {
        let losers = brute(b.edges(), &[v], len);
        let mut delta = vec![0i128; ITEMS as usize];
        compute_delta(&b.edges_with(v), v, len, &AllItemsets, &mut delta).unwrap();
        for u in 0..ITEMS {
            let holding = losers.iter().filter(|g| g.contains(&u)).count() as i128;
            prop_assert_eq!(delta[u as usize], holding, "v' = {}", u);
        }
    }

    #[test]
    fn edge_difference_is_theorem_3(b in border(), c in border()) {
        for e1 in b.edges() {
            for e2 in c.edges() {
                if e1.intersection(e2).is_none() {
                    continue;
                }
                let pieces = e1.difference(e2);
                for g in lattice() {
                    let expected = e1.covers(&g) && !e2.covers(&g);
                    prop_assert_eq!(pieces.iter().any(|p| p.covers(&g)), expected, "{:?}", g);
                    let both = e1.intersection(e2).unwrap().covers(&g);
                    prop_assert_eq!(both, e1.covers(&g) && e2.covers(&g));
                }
            }
        }
    }

    #[test]
    fn blocks_count_the_union_of_their_intervals(
        tops in prop::collection::vec(prop::collection::btree_set(0..ITEMS, 0..8), 1..8),
        (x, len) in x_and_len(),
    ) {
        let blocks = anti_chain(tops);
        let edges: Vec<Edge> = blocks
            .iter()
            .filter(|b| is_subset(&x, b))
            .map(|b| Edge::new(x.clone(), b.clone()))
            .collect();
        let expected = brute(&edges, &x, len);
        prop_assert_eq!(count_blocks(&blocks, &x, len, &AllItemsets).unwrap(), expected.len() as u128);
        let mut per_item = vec![0i128; ITEMS as usize];
        count_blocks_per_item(&blocks, &x, len, &AllItemsets, 1, &mut per_item).unwrap();
        for u in 0..ITEMS {
            let holding = expected.iter().filter(|g| g.contains(&u)).count() as i128;
            prop_assert_eq!(per_item[u as usize], holding);
        }
    }

    #[test]
    fn a_measure_counting_a_subfamily_is_exact_too(
        tops in prop::collection::vec(prop::collection::btree_set(0..ITEMS, 0..8), 1..8),
        excluded in prop::collection::vec(prop::collection::btree_set(0..ITEMS, 0..4), 0..20),
        (x, len) in x_and_len(),
    ) {
        // Count only itemsets that are not in a downward-closed family (as moles are the
        // occurring itemsets less the non-moles).
        let blocks = anti_chain(tops);
        let down: BTreeSet<Itemset> = excluded
            .into_iter()
            .flat_map(|s| {
                let s: Itemset = s.into_iter().collect();
                lattice().into_iter().filter(move |g| is_subset(g, &s))
            })
            .collect();
        let measure = Except(&down);
        let edges: Vec<Edge> = blocks
            .iter()
            .filter(|b| is_subset(&x, b))
            .map(|b| Edge::new(x.clone(), b.clone()))
            .collect();
        let expected: Vec<Itemset> =
            brute(&edges, &x, len).into_iter().filter(|g| !down.contains(g)).collect();
        prop_assert_eq!(count_blocks(&blocks, &x, len, &measure).unwrap(), expected.len() as u128);
        prop_assert_eq!(count(&edges, &x, len, &measure).unwrap(), expected.len() as u128);
        let mut per_item = vec![0i128; ITEMS as usize];
        count_blocks_per_item(&blocks, &x, len, &measure, 1, &mut per_item).unwrap();
        for u in 0..ITEMS {
            prop_assert_eq!(per_item[u as usize], expected.iter().filter(|g| g.contains(&u)).count() as i128);
        }
    }
}

/// Counts the covered itemsets outside a given family, by listing (a test measure).
struct Except<'a>(&'a BTreeSet<Itemset>);

impl Measure for Except<'_> {
    fn count(
        &self,
        edge: &Edge,
        x: &[u32],
        len: usize,
    ) -> Result<u128, txanon_border::BorderError> {
        let all = brute(std::slice::from_ref(edge), x, len);
        Ok(all.iter().filter(|g| !self.0.contains(*g)).count() as u128)
    }
}

/// The paper's Figure 3 and Examples 2 and 3, on the border itself (a=0 b=1 c=2 d=3 e=4 f=5
/// g=6).
#[test]
fn the_papers_mole_border() {
    let border = Border::new(
        vec![vec![0, 4], vec![0, 5], vec![0, 6], vec![1, 4], vec![1, 5, 6]],
        vec![vec![0, 1, 4, 5], vec![0, 1, 5, 6], vec![1, 4, 5, 6]],
    )
    .unwrap();
    // aef is covered by ⟨ae, abef⟩ and ⟨af, abef⟩; abef is covered but longer than p = 3.
    assert!(border.covers(&[0, 4, 5]));
    assert_eq!(border.edges().iter().filter(|e| e.covers(&[0, 4, 5])).count(), 2);
    let moles = brute(border.edges(), &[], 3);
    assert_eq!(moles.len(), 12);
    assert_eq!(count(border.edges(), &[0, 6], 3, &AllItemsets).unwrap(), 3);
    // Not a border: comparable minimal itemsets; a maximal itemset above no minimal one.
    assert!(Border::new(vec![vec![0], vec![0, 1]], vec![vec![0, 1]]).is_err());
    assert!(Border::new(vec![vec![0]], vec![vec![0, 1], vec![2, 3]]).is_err());
}
