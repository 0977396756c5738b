//! The attack model against brute force over the adversary's possible worlds, and against the
//! papers' worked examples.

use proptest::prelude::*;
use txanon_attack::{
    AttackParams, Own, Posterior, Target, Value, View, ViewBuilder, attack, estimated_itemsets,
};
use txanon_data::ItemId;

/// A group as the generator draws it: its records, which factor each item of 0..6 is in, and
/// how many of its records hold the counted item 6 (CAHD's spread counts).
#[derive(Debug, Clone)]
struct GroupSpec {
    records: Vec<Vec<ItemId>>,
    factor_of: Vec<usize>,
    factors: usize,
    counted: Option<u32>,
}

const ITEMS: usize = 7;
const COUNTED: ItemId = 6;

impl GroupSpec {
    /// Per factor, the distinct values in first-seen order with their counts, and each
    /// record's value index.
    fn factors(&self) -> Vec<(Vec<Value>, Vec<u32>)> {
        (0..self.factors)
            .map(|f| {
                let mut values: Vec<Value> = Vec::new();
                let mut of_record = Vec::new();
                for r in &self.records {
                    let part: Vec<ItemId> =
                        r.iter().copied().filter(|&i| self.factor_of[i as usize] == f).collect();
                    match values.iter().position(|v| v.items == part) {
                        Some(k) => {
                            values[k].count += 1;
                            of_record.push(k as u32);
                        }
                        None => {
                            of_record.push(values.len() as u32);
                            values.push(Value::new(part, 1));
                        }
                    }
                }
                (values, of_record)
            })
            .collect()
    }

    /// The factors as the view gets them, the counted item last: `(values, value of each
    /// position)`, where positions are the expanded multiset.
    fn expanded(&self) -> Vec<Vec<(Vec<ItemId>, u32)>> {
        let mut out: Vec<Vec<(Vec<ItemId>, u32)>> = self
            .factors()
            .into_iter()
            .map(|(values, _)| {
                values
                    .iter()
                    .enumerate()
                    .flat_map(|(k, v)| {
                        std::iter::repeat_n((v.items.clone(), k as u32), v.count as usize)
                    })
                    .collect()
            })
            .collect();
        if let Some(c) = self.counted {
            let size = self.records.len() as u32;
            let mut spread = Vec::new();
            spread.extend(std::iter::repeat_n((vec![COUNTED], 0), c as usize));
            spread.extend(std::iter::repeat_n((vec![], u32::from(c > 0)), (size - c) as usize));
            out.push(spread);
        }
        out
    }
}

fn group_spec() -> impl Strategy<Value = GroupSpec> {
    specs_of(1..=3, 1..=2)
}

/// Records published as they are (the view's fast path).
fn record_spec() -> impl Strategy<Value = GroupSpec> {
    specs_of(1..=1, 1..=1).prop_map(|s| GroupSpec { counted: None, ..s })
}

fn specs_of(
    sizes: std::ops::RangeInclusive<usize>,
    factors: std::ops::RangeInclusive<usize>,
) -> impl Strategy<Value = GroupSpec> {
    (sizes, factors).prop_flat_map(|(size, factors)| {
        (
            prop::collection::vec(prop::collection::btree_set(0u32..6, 0..=3), size),
            prop::collection::vec(0..factors, 6),
            prop::option::of(0u32..=size as u32),
        )
            .prop_map(move |(records, mut factor_of, counted)| {
                factor_of.push(usize::MAX);
                GroupSpec {
                    records: records.into_iter().map(|r| r.into_iter().collect()).collect(),
                    factor_of,
                    factors,
                    counted,
                }
            })
    })
}

fn build(specs: &[GroupSpec]) -> View {
    let mut b = ViewBuilder::new(ITEMS);
    for s in specs {
        let factors = s.factors().into_iter().map(|(v, _)| v).collect();
        let counts: Vec<(ItemId, u32)> = s.counted.map(|c| (COUNTED, c)).into_iter().collect();
        b.group_with_counts(s.records.len() as u32, factors, &counts).unwrap();
    }
    b.finish()
}

/// Every permutation of `0..n`.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for at in 0..=p.len() {
            let mut q = p.clone();
            q.insert(at, n - 1);
            out.push(q);
        }
    }
    out
}

/// One group's possible worlds: for each, every record as (its items, its value index per
/// factor). The first factor's positions are the records; every other factor is joined by
/// each permutation of its positions.
fn group_worlds(spec: &GroupSpec) -> Vec<Vec<(Vec<ItemId>, Vec<u32>)>> {
    let factors = spec.expanded();
    let size = spec.records.len();
    let perms = permutations(size);
    let mut worlds: Vec<Vec<Vec<usize>>> = vec![vec![(0..size).collect()]];
    for _ in 1..factors.len() {
        worlds = worlds
            .into_iter()
            .flat_map(|w| {
                perms.iter().map(move |p| {
                    let mut w = w.clone();
                    w.push(p.clone());
                    w
                })
            })
            .collect();
    }
    worlds
        .into_iter()
        .map(|joins| {
            (0..size)
                .map(|r| {
                    let mut items = Vec::new();
                    let mut values = Vec::new();
                    for (f, join) in joins.iter().enumerate() {
                        let (v, k) = &factors[f][join[r]];
                        items.extend_from_slice(v);
                        values.push(*k);
                    }
                    items.sort_unstable();
                    (items, values)
                })
                .collect()
        })
        .collect()
}

/// The adversary's posterior by enumerating every joint world of all groups and every record
/// in it: a uniformly drawn (world, target) conditioned on the target holding `known`.
fn brute_force(
    specs: &[GroupSpec],
    own: &Own,
    known: &[ItemId],
    sensitive: &[ItemId],
) -> Posterior {
    let per_group: Vec<_> = specs.iter().map(group_worlds).collect();
    let occurs = |i: ItemId| per_group.iter().any(|w| w[0].iter().any(|(r, _)| r.contains(&i)));
    let kept: Vec<ItemId> = known.iter().copied().filter(|&i| occurs(i)).collect();
    let (mut consistent, mut linked, mut all) = (0.0, 0.0, 0.0);
    let mut with = vec![0.0; sensitive.len()];
    let mut prior = vec![0.0; sensitive.len()];
    let mut choice = vec![0usize; specs.len()];
    loop {
        for (g, worlds) in per_group.iter().enumerate() {
            for (items, values) in &worlds[choice[g]] {
                all += 1.0;
                for (k, s) in sensitive.iter().enumerate() {
                    if items.contains(s) {
                        prior[k] += 1.0;
                    }
                }
                if !kept.iter().all(|i| items.contains(i)) {
                    continue;
                }
                consistent += 1.0;
                if g == own.group as usize
                    && own.values.iter().zip(values).all(|(o, v)| o.is_none_or(|o| o == *v))
                {
                    linked += 1.0;
                }
                for (k, s) in sensitive.iter().enumerate() {
                    if items.contains(s) {
                        with[k] += 1.0;
                    }
                }
            }
        }
        // The next joint world, as an odometer over the groups' worlds.
        let mut g = 0;
        while g < specs.len() {
            choice[g] += 1;
            if choice[g] < per_group[g].len() {
                break;
            }
            choice[g] = 0;
            g += 1;
        }
        if g == specs.len() {
            break;
        }
    }
    let sensitive_posteriors = if consistent == 0.0 { &prior } else { &with };
    let base = if consistent == 0.0 { all } else { consistent };
    Posterior {
        reidentification: if consistent == 0.0 { 0.0 } else { linked / consistent },
        sensitive: sensitive
            .iter()
            .zip(sensitive_posteriors)
            .map(|(&s, &x)| (s, x / base))
            .collect(),
        tendency: None,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

/// Compares the view's posterior and support with the enumeration, for a random own record
/// of a random group and every item not known as the sensitive one.
fn check_against_brute_force(
    specs: &[GroupSpec],
    pick: prop::sample::Index,
    known: std::collections::BTreeSet<ItemId>,
    link_counted: bool,
) -> Result<(), TestCaseError> {
    let view = build(specs);
    let g = pick.index(specs.len());
    let spec = &specs[g];
    let r = pick.index(spec.records.len());
    let mut values: Vec<Option<u32>> =
        spec.factors().iter().map(|(_, of_record)| Some(of_record[r])).collect();
    if spec.counted.is_some() {
        values.push(link_counted.then_some(0));
    }
    let own = Own { group: g as u32, values };
    let known: Vec<ItemId> = known.into_iter().collect();
    let sensitive: Vec<ItemId> = (0..ITEMS as ItemId).filter(|i| !known.contains(i)).collect();
    let target = Target {
        public: known.clone(),
        sensitive: sensitive.clone(),
        own: Some(own.clone()),
        labels: vec![],
    };
    let ours = view.posterior(&target, &known).unwrap();
    let reference = brute_force(specs, &own, &known, &sensitive);
    prop_assert!(
        close(ours.reidentification, reference.reidentification),
        "re-identification {} against {}",
        ours.reidentification,
        reference.reidentification
    );
    for (a, b) in ours.sensitive.iter().zip(&reference.sensitive) {
        prop_assert!(close(a.1, b.1), "item {}: {} against {}", a.0, a.1, b.1);
    }
    // The estimated support is the expected count over the same worlds.
    let support = view.support(&known);
    let mut expected = 0.0;
    for worlds in specs.iter().map(group_worlds) {
        let holding = worlds
            .iter()
            .flatten()
            .filter(|(items, _)| known.iter().all(|i| items.contains(i)))
            .count();
        expected += holding as f64 / worlds.len() as f64;
    }
    prop_assert!(close(support, expected), "support {support} against {expected}");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The factorized posterior equals the enumeration of every possible world, for any
    /// knowledge, any own record (linked in every factor, or not in the counted one) and every
    /// item as the sensitive one.
    #[test]
    fn posterior_is_the_possible_worlds_average(
        specs in prop::collection::vec(group_spec(), 1..=3),
        pick in any::<prop::sample::Index>(),
        known in prop::collection::btree_set(0u32..6, 0..=3),
        link_counted in any::<bool>(),
    ) {
        check_against_brute_force(&specs, pick, known, link_counted)?;
    }

    /// The same for views of records only, which take the intersection path.
    #[test]
    fn records_posterior_is_the_possible_worlds_average(
        specs in prop::collection::vec(record_spec(), 1..=8),
        pick in any::<prop::sample::Index>(),
        known in prop::collection::btree_set(0u32..6, 0..=3),
    ) {
        prop_assert!(build(&specs).records_only());
        check_against_brute_force(&specs, pick, known, false)?;
    }

    /// Estimated frequent itemsets of a view of records are the exact ones, by enumeration.
    #[test]
    fn itemsets_of_records_are_exact(
        records in prop::collection::vec(prop::collection::btree_set(0u32..6, 0..=4), 1..12),
        min in 1u32..4,
    ) {
        let mut b = ViewBuilder::new(6);
        for r in &records {
            b.record(&r.iter().copied().collect::<Vec<_>>(), vec![]).unwrap();
        }
        let view = b.finish();
        let found = estimated_itemsets(&view, f64::from(min), 6, usize::MAX).unwrap();
        let mut expected = Vec::new();
        for mask in 1u32..64 {
            let set: Vec<ItemId> = (0..6).filter(|i| mask & (1 << i) != 0).collect();
            let support = records.iter().filter(|r| set.iter().all(|i| r.contains(i))).count() as u32;
            if support >= min {
                expected.push((set, support));
            }
        }
        expected.sort_by(|a, b| a.0.len().cmp(&b.0.len()).then_with(|| a.0.cmp(&b.0)));
        let found: Vec<(Vec<ItemId>, u32)> = found.iter().map(|(s, n)| (s.to_vec(), n)).collect();
        prop_assert_eq!(found, expected);
    }
}

/// The CAHD paper's example (document 003, ICDE 2008 Figure 1) at p = 2: {Bob, David} with
/// Viagra 1 and {Ellen, Andrea, Claire} with PregnancyTest 1.
#[test]
fn cahd_example_at_p_2() {
    let (cream, meat, pregnancy, strawberries, viagra, wine) = (0, 1, 2, 3, 4, 5);
    let mut b = ViewBuilder::new(6);
    let qid = |rows: &[&[ItemId]]| rows.iter().map(|r| Value::new(r.to_vec(), 1)).collect();
    let g1 =
        b.group_with_counts(2, vec![qid(&[&[wine, meat], &[wine, meat]])], &[(viagra, 1)]).unwrap();
    let g2 = b
        .group_with_counts(
            3,
            vec![qid(&[&[wine, meat, cream], &[strawberries, meat], &[strawberries, cream]])],
            &[(pregnancy, 1)],
        )
        .unwrap();
    let view = b.finish();
    let person = |group, row, public: &[ItemId], sensitive: &[ItemId]| Target {
        public: public.to_vec(),
        sensitive: sensitive.to_vec(),
        own: Some(Own { group, values: vec![Some(row), None] }),
        labels: vec![],
    };
    let bob = person(g1, 0, &[meat, wine], &[viagra]);
    // Knowing Bob bought wine and meat: Bob, David and Ellen; Viagra in one of the first two.
    let p = view.posterior(&bob, &[meat, wine]).unwrap();
    assert!(close(p.reidentification, 1.0 / 3.0));
    assert!(close(p.sensitive[0].1, 1.0 / 3.0));
    let claire = person(g2, 2, &[cream, strawberries], &[pregnancy]);
    // Strawberries and cream single Claire out; the group hides her pregnancy test to 1/3.
    let p = view.posterior(&claire, &[cream, strawberries]).unwrap();
    assert!(close(p.reidentification, 1.0));
    assert!(close(p.sensitive[0].1, 1.0 / 3.0));
    // The privacy degree: no knowledge of public items links a sensitive item above 1/p.
    let public = [cream, meat, strawberries, wine];
    for mask in 1u32..16 {
        let known: Vec<ItemId> =
            (0..4).filter(|k| mask & (1 << k) != 0).map(|k| public[k]).collect();
        let anyone = Target { sensitive: vec![pregnancy, viagra], ..bob.clone() };
        let p = view.posterior(&anyone, &known).unwrap();
        assert!(p.sensitive.iter().all(|s| s.1 <= 0.5 + 1e-12), "{known:?}: {p:?}");
    }
}

/// The anatomy paper's Table I(E) (Example 4, 5): columns {a,c} {b,e,g} {d,f,h}, buckets
/// t1..t5 and t6..t10. Its Eq. (2) gives a column value's probability as its count over the
/// bucket's size; Example 5 counts distinct values instead (1/3 · 1/2 = 1/6 for t2). The
/// model follows Eq. (2), the reading Theorem 1 proves from.
#[test]
fn anatomy_table_1e_at_l_2() {
    let [a, b, c, d, e, f, g, h] = [0, 1, 2, 3, 4, 5, 6, 7];
    let bucket = |rows: [[&[ItemId]; 3]; 5]| -> Vec<Vec<Value>> {
        (0..3)
            .map(|col| {
                let mut values: Vec<Value> = Vec::new();
                for row in &rows {
                    match values.iter_mut().find(|v| v.items == row[col]) {
                        Some(v) => v.count += 1,
                        None => values.push(Value::new(row[col].to_vec(), 1)),
                    }
                }
                values
            })
            .collect()
    };
    let mut builder = ViewBuilder::new(8);
    let b1 = builder
        .group(
            5,
            bucket([
                [&[a, c], &[b, e, g], &[d, f, h]],
                [&[a], &[b, e], &[d, h]],
                [&[a, c], &[b], &[f, h]],
                [&[a], &[b], &[f, h]],
                [&[a, c], &[b], &[d]],
            ]),
        )
        .unwrap();
    builder
        .group(
            5,
            bucket([
                [&[a, c], &[b, e], &[]],
                [&[a], &[e, g], &[f]],
                [&[], &[b], &[f, h]],
                [&[], &[], &[f, h]],
                [&[], &[g], &[d]],
            ]),
        )
        .unwrap();
    let view = builder.finish();
    let t2 = Target {
        public: vec![a, b, d, e, h],
        sensitive: vec![b, e],
        own: view.locate(b1, &[a, b, d, e, h]),
        labels: vec![],
    };
    // Knowing {d, h}: only B1's values {d,f,h} and {d,h} hold them (2 of 5 records).
    let p = view.posterior(&t2, &[d, h]).unwrap();
    // t2's record: {d,h} 1/2 among those, {b,e} 1/5 and {a} 2/5 by Eq. (2): 1/25.
    assert!(close(p.reidentification, 1.0 / 25.0), "{p:?}");
    // l-diversity of column values does not bound the inference of an item: every value of
    // B1's second column holds b.
    assert!(close(p.sensitive[0].1, 1.0));
    assert!(close(p.sensitive[1].1, 2.0 / 5.0));
}

/// Tendency: a consistent record's tendency labels are named uniformly.
#[test]
fn tendency_is_named_among_consistent_records() {
    let mut b = ViewBuilder::new(3);
    let r0 = b.record(&[0, 1], vec![0]).unwrap();
    b.record(&[0, 2], vec![1]).unwrap();
    b.record(&[0], vec![0, 1]).unwrap();
    b.record(&[1], vec![]).unwrap();
    let view = b.finish();
    let target = Target {
        public: vec![0, 1],
        sensitive: vec![],
        own: Some(Own { group: r0, values: vec![Some(0)] }),
        labels: vec![0],
    };
    let p = view.posterior(&target, &[0]).unwrap();
    assert!(close(p.reidentification, 1.0 / 3.0));
    assert_eq!(p.tendency, Some(0.5));
    // Knowledge no record shows leaves the adversary with the whole publication's shares.
    let mut lone = ViewBuilder::new(4);
    lone.record(&[0], vec![0]).unwrap();
    lone.record(&[1], vec![1]).unwrap();
    let lone = lone.finish();
    let p =
        lone.posterior(&Target { own: None, labels: vec![0], ..target.clone() }, &[0, 1]).unwrap();
    assert_eq!((p.reidentification, p.tendency), (0.0, Some(0.5)));
}

/// Records all distinct: every adversary knowing a whole record re-identifies it; the result
/// does not depend on the number of threads.
#[test]
fn attack_on_records() {
    let rows: Vec<Vec<ItemId>> = (0..40u32).map(|k| vec![k % 8, 8 + k / 8, 20 + k % 3]).collect();
    let mut b = ViewBuilder::new(24);
    let targets: Vec<Target> = rows
        .iter()
        .map(|r| {
            let g = b.record(r, vec![]).unwrap();
            Target {
                public: r[..2].to_vec(),
                sensitive: r[2..].to_vec(),
                own: Some(Own { group: g, values: vec![Some(0)] }),
                labels: vec![],
            }
        })
        .collect();
    let view = b.finish();
    let params = AttackParams::new().known(vec![1, 2, 3]).draws(4).seed(9).check().unwrap();
    let report = attack(&view, &targets, &params).unwrap();
    assert_eq!(report.by_known.len(), 3);
    let two = &report.by_known[1];
    assert_eq!(two.reidentification.targets, 40);
    assert_eq!(two.reidentification.mean, 1.0);
    assert_eq!(two.reidentification.above_1_in_2, 1.0);
    // Knowing both public items, the sensitive item is the record's own.
    assert_eq!(two.sensitive.mean, 1.0);
    // Nobody has three public items.
    assert_eq!(report.by_known[2].reidentification.targets, 0);
    // One item: k % 8 is shared by 5 records, 8 + k / 8 by 8.
    let one = &report.by_known[0];
    assert!(one.reidentification.max <= 0.2 + 1e-12 && one.reidentification.mean >= 0.125);
    let single = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    assert_eq!(single.install(|| attack(&view, &targets, &params).unwrap()), report);
    // A sample attacks that many targets.
    let sampled =
        attack(&view, &targets, &AttackParams::new().sample(Some(7)).check().unwrap()).unwrap();
    assert_eq!(sampled.targets, 7);
}

/// A target over another view is refused.
#[test]
fn foreign_targets_are_refused() {
    let mut b = ViewBuilder::new(2);
    b.record(&[0], vec![]).unwrap();
    let view = b.finish();
    let stray = Target { own: Some(Own { group: 3, values: vec![Some(0)] }), ..Target::default() };
    assert!(view.posterior(&stray, &[]).is_err());
    let wide = Target { public: vec![5], ..Target::default() };
    assert!(attack(&view, &[wide], &AttackParams::new().check().unwrap()).is_err());
}

/// Records of 40 items over 40 to 160 records, item `i` in a record with probability falling
/// from near 1 to near 0, so that views have frequent items (held by 1/32 of the records or
/// more: bitsets) and rare ones (lists only).
fn skewed_records() -> impl Strategy<Value = Vec<Vec<ItemId>>> {
    prop::collection::vec(prop::collection::vec(0u32..1000, 40), 40..160).prop_map(|draws| {
        draws
            .into_iter()
            .map(|d| {
                (0..40u32).filter(|&i| d[i as usize] < 1000 * (40 - i) / 41 / (1 + i / 4)).collect()
            })
            .collect()
    })
}

/// The records a known set leaves, found by the bitsets of frequent items, by lists, or by
/// both, are those holding every known item: the posterior and the support against direct
/// counts. Counts the
/// cases where the rarest known item had a list and another a bitset (the filtering path) and
/// those where every one had a bitset (the AND path).
#[test]
fn frequent_items_bitsets_leave_the_records_lists_leave() {
    // A rarer item with one to three of the frequent ones: mixes of both kinds.
    let known =
        (24u32..40, prop::collection::btree_set(0u32..12, 1..=3)).prop_map(|(any, mut set)| {
            set.insert(any);
            set
        });
    let strategy = (skewed_records(), known);
    let mixed = std::sync::atomic::AtomicU32::new(0);
    let all_bits = txanon_testkit::exercised(300, strategy, |(records, known)| {
        let mut b = ViewBuilder::new(40);
        for r in &records {
            b.record(r, vec![]).unwrap();
        }
        let view = b.finish();
        let known: Vec<ItemId> = known.into_iter().collect();
        let holding = |set: &[ItemId]| {
            records.iter().filter(|r| set.iter().all(|i| r.contains(i))).count() as f64
        };
        let support = |i: ItemId| holding(&[i]);
        let dense = |i: ItemId| support(i) > 0.0 && support(i) * 32.0 >= records.len() as f64;
        let target = Target {
            public: known.clone(),
            sensitive: (0..40).filter(|i| !known.contains(i)).collect(),
            own: None,
            labels: vec![],
        };
        let p = view.posterior(&target, &known).unwrap();
        // Items the publication does not show tell the adversary nothing.
        let shown: Vec<ItemId> = known.iter().copied().filter(|&i| support(i) > 0.0).collect();
        let consistent = holding(&shown);
        for &(s, share) in &p.sensitive {
            let mut with = shown.clone();
            with.push(s);
            let expected = if consistent == 0.0 {
                support(s) / records.len() as f64
            } else {
                holding(&with) / consistent
            };
            prop_assert!(close(share, expected), "item {s}: {share} against {expected}");
        }
        // A data user's estimated support of the known set: the records holding it, counted
        // through the same bitsets and lists.
        prop_assert_eq!(view.support(&known), holding(&known));
        if shown.len() < 2 || consistent == 0.0 {
            return Ok(false);
        }
        let rarest = *shown.iter().min_by_key(|&&i| support(i) as u64).unwrap();
        if !dense(rarest) && shown.iter().any(|&i| dense(i)) {
            mixed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(shown.iter().all(|&i| dense(i)))
    });
    all_bits.at_least(0.2, "had every known item in a bitset");
    let mixed = mixed.into_inner();
    assert!(mixed >= 30, "only {mixed} cases filtered a list by bitsets");
}

/// Many groups of one to four records, each item in one of three factors by its id, item `i`
/// held by a record with a probability falling with `i`: frequent items are in most groups, rare
/// ones in few, so a known set's groups are a small part of a frequent item's.
fn many_groups() -> impl Strategy<Value = Vec<Vec<Vec<ItemId>>>> {
    // Items 9 to 11 are rare (1% of the records): held by fewer than 1/32 of the groups, they
    // have no bitset in the view and their lists are walked.
    let record = prop::collection::vec(0u32..100, 12).prop_map(|d| {
        (0..12u32)
            .filter(|&i| d[i as usize] < if i >= 9 { 1 } else { 90 / (1 + i) })
            .collect::<Vec<ItemId>>()
    });
    prop::collection::vec(prop::collection::vec(record, 1..=4), 40..200)
}

/// The weight of a group, `s · Π_f A_f(K_f) / s`, straight from its records: the reference
/// for the view's walk over the known items' lists of groups.
fn weight_by_records(records: &[Vec<ItemId>], known: &[ItemId]) -> f64 {
    let s = records.len() as f64;
    (0..3u32).fold(s, |weight, f| {
        let part: Vec<ItemId> = known.iter().copied().filter(|i| i % 3 == f).collect();
        let holding = records.iter().filter(|r| part.iter().all(|i| r.contains(i))).count();
        weight * holding as f64 / s
    })
}

/// The posterior and support of a view of many groups against each group's weight computed
/// from its records. Counts the cases where groups were weighed with a rare known item (its
/// list walked beside them), those with a frequent one (its place counted in its bitset), and
/// those where a group holding them had two known items in one factor.
#[test]
fn walking_the_known_items_groups_weighs_each_group() {
    let known = prop::collection::btree_set(0u32..12, 2..=4);
    let strategy = (many_groups(), known);
    let shared_factor = std::sync::atomic::AtomicU32::new(0);
    let counted = std::sync::atomic::AtomicU32::new(0);
    // 600 cases: 14–16% weigh a rare known item (84–98 of 600 in six runs), and a CI run of
    // 300 met 28 (9.3%) against the tenth asked; a twentieth of 600 is six deviations below.
    let skipped = txanon_testkit::exercised(600, strategy, |(groups, known)| {
        let mut b = ViewBuilder::new(12);
        for records in &groups {
            let factors = (0..3u32)
                .map(|f| {
                    let mut values: Vec<Value> = Vec::new();
                    for r in records {
                        let part: Vec<ItemId> = r.iter().copied().filter(|i| i % 3 == f).collect();
                        match values.iter_mut().find(|v| v.items == part) {
                            Some(v) => v.count += 1,
                            None => values.push(Value::new(part, 1)),
                        }
                    }
                    values
                })
                .collect();
            b.group(records.len() as u32, factors).unwrap();
        }
        let view = b.finish();
        let known: Vec<ItemId> = known.into_iter().collect();
        let holds = |records: &[Vec<ItemId>], i: ItemId| records.iter().any(|r| r.contains(&i));
        let shown: Vec<ItemId> =
            known.iter().copied().filter(|&i| groups.iter().any(|g| holds(g, i))).collect();
        let candidates: Vec<&Vec<Vec<ItemId>>> =
            groups.iter().filter(|g| shown.iter().all(|&i| holds(g, i))).collect();
        let total: f64 = candidates.iter().map(|g| weight_by_records(g, &shown)).sum();
        let records: f64 = groups.iter().map(|g| g.len() as f64).sum();
        let target = Target {
            public: known.clone(),
            sensitive: (0..12).filter(|i| !known.contains(i)).collect(),
            own: None,
            labels: vec![],
        };
        let p = view.posterior(&target, &known).unwrap();
        for &(s, share) in &p.sensitive {
            let mut with = shown.clone();
            with.push(s);
            let mass: f64 = candidates
                .iter()
                .filter(|g| holds(g, s))
                .map(|g| weight_by_records(g, &with))
                .sum();
            let prior = groups.iter().flatten().filter(|r| r.contains(&s)).count() as f64 / records;
            let expected = if total == 0.0 { prior } else { mass / total };
            prop_assert!(close(share, expected), "item {s}: {share} against {expected}");
        }
        let support = view.support(&shown);
        let expected = if shown.is_empty() { records } else { total };
        prop_assert!(close(support, expected), "support {support} against {expected}");
        if candidates.is_empty() || shown.len() < 2 {
            return Ok(false);
        }
        // Every group weighed holds every known item, so two of one factor meet in it.
        if (0..3u32).any(|f| shown.iter().filter(|&&i| i % 3 == f).count() >= 2) {
            shared_factor.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        // The view's rule: an item held by at least 1/32 of the groups has a bitset.
        let frequent =
            |i: ItemId| groups.iter().filter(|g| holds(g, i)).count() * 32 >= groups.len();
        if shown.iter().any(|&i| frequent(i)) {
            counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(shown.iter().any(|&i| !frequent(i)))
    });
    skipped.at_least(0.05, "weighed groups with a rare known item, its list walked");
    let counted = counted.into_inner();
    assert!(counted >= 100, "only {counted} cases had a frequent known item");
    let shared_factor = shared_factor.into_inner();
    assert!(shared_factor >= 50, "only {shared_factor} cases had two known items in a factor");
}

/// A view read through a generalization (kᵐ-anonymity's reading) against the same records
/// expanded to every item their generalized items cover: the same posteriors, supports and
/// attack. Leaves 0..16 are covered by generalized items 0..5 (`cover[leaf]`, 5 or more: no
/// generalized item). Counts the cases where two known leaves were read as one generalized
/// item (the reading merged them) and those where a leaf was read as nothing.
#[test]
fn a_view_read_through_a_generalization_is_its_expansion() {
    let records = prop::collection::vec(prop::collection::btree_set(0u32..5, 0..4), 1..30);
    let cover = prop::collection::vec(0u32..6, 16);
    let target =
        (prop::collection::btree_set(0u32..16, 1..6), 0u32..16, any::<prop::sample::Index>());
    let merged = std::sync::atomic::AtomicU32::new(0);
    let strategy = (records, cover, target);
    let unread =
        txanon_testkit::exercised(800, strategy, |(records, cover, (public, sensitive, own))| {
            let reading: Vec<Option<ItemId>> =
                cover.iter().map(|&g| (g < 5).then_some(g)).collect();
            let mut published = ViewBuilder::new(5);
            let mut expanded = ViewBuilder::new(16);
            for r in &records {
                let items: Vec<ItemId> = r.iter().copied().collect();
                published.record(&items, vec![]).unwrap();
                let leaves: Vec<ItemId> = (0..16)
                    .filter(|&i| reading[i as usize].is_some_and(|g| r.contains(&g)))
                    .collect();
                expanded.record(&leaves, vec![]).unwrap();
            }
            let read = published.finish().read_through(reading.clone()).unwrap();
            let expanded = expanded.finish();
            prop_assert_eq!(read.num_items(), 16);
            prop_assert_eq!(read.item_supports(), expanded.item_supports());
            let public: Vec<ItemId> = public.into_iter().filter(|&i| i != sensitive).collect();
            prop_assume!(!public.is_empty());
            let target = Target {
                public: public.clone(),
                sensitive: vec![sensitive],
                own: Some(Own { group: own.index(records.len()) as u32, values: vec![Some(0)] }),
                labels: vec![],
            };
            for q in 1..=public.len() {
                let known = &public[..q];
                let (a, b) = (
                    read.posterior(&target, known).unwrap(),
                    expanded.posterior(&target, known).unwrap(),
                );
                prop_assert!(close(a.reidentification, b.reidentification), "{:?} {:?}", a, b);
                prop_assert_eq!(a.sensitive.len(), b.sensitive.len());
                for (x, y) in a.sensitive.iter().zip(&b.sensitive) {
                    prop_assert!(x.0 == y.0 && close(x.1, y.1), "{:?} {:?}", a, b);
                }
                prop_assert!(close(read.support(known), expanded.support(known)));
            }
            let params = AttackParams::new().known(vec![1, 2, 3]).draws(3).seed(7).check().unwrap();
            prop_assert_eq!(
                attack(&read, std::slice::from_ref(&target), &params).unwrap(),
                attack(&expanded, std::slice::from_ref(&target), &params).unwrap()
            );
            let read_as: Vec<Option<ItemId>> =
                public.iter().map(|&i| reading[i as usize]).collect();
            let distinct: std::collections::BTreeSet<_> = read_as.iter().flatten().collect();
            if distinct.len() < read_as.iter().flatten().count() {
                merged.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            Ok(read_as.iter().any(Option::is_none) || reading[sensitive as usize].is_none())
        });
    unread.at_least(0.2, "a known or sensitive leaf read as no published item");
    let merged = merged.into_inner();
    // Some 230 to 270 of the 800 cases merge two known leaves (three runs): 100 leaves room for
    // chance, where 100 of 400 failed once in CI (98).
    assert!(merged >= 100, "only {merged} of 800 cases read two known leaves as one item");
}

/// A reading naming an item beyond the view's own is refused.
#[test]
fn a_reading_beyond_the_view_is_refused() {
    let mut b = ViewBuilder::new(2);
    b.record(&[0, 1], vec![]).unwrap();
    let err = b.finish().read_through(vec![Some(0), Some(2)]).unwrap_err();
    assert!(err.to_string().contains('2'), "{err}");
}
