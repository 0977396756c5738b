//! CAHD end to end: the document's worked example, the grouping against a slow reference, the
//! audit against tampering, the reconstruction error by hand, and real data.

use std::collections::BTreeMap;
use txanon_cahd::Cahd;
use txanon_data::Family;

use proptest::prelude::*;
use txanon_band::{GraphKind, SharedItems, reverse_cuthill_mckee};
mod tamper;

use txanon_cahd::{
    BandOrder, CahdClaim, CahdError, CahdParams, GROUPS_FORMAT, OriginalQids, PublishedGroup,
    PublishedGroups, Workload, anonymize, audit, audit_against, form_groups, reconstruction_error,
};

/// The claim of degree `p` for these sensitive items of `db`.
fn claim(db: &TransactionDb, p: u64, sensitive: &[ItemId]) -> CahdClaim {
    CahdClaim::new(p, sensitive.iter().map(|&s| db.label(s).to_string())).unwrap()
}
use txanon_data::{ItemId, ReadOptions, TransactionDb, datasets, read_path};

fn example() -> TransactionDb {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../datasets/examples/cahd-example.csv");
    read_path(&path, &ReadOptions::new()).unwrap().0
}

fn ids(db: &TransactionDb, labels: &[&str]) -> Vec<ItemId> {
    let mut v: Vec<ItemId> = labels.iter().map(|l| db.labels().find(l).unwrap()).collect();
    v.sort_unstable();
    v
}

fn mask(db: &TransactionDb, sensitive: &[ItemId]) -> Vec<bool> {
    (0..db.num_items() as ItemId).map(|i| sensitive.contains(&i)).collect()
}

/// Bob, David, Claire, Andrea, Ellen are transactions 0..5 of the example file.
const BOB: u32 = 0;
const DAVID: u32 = 1;
const CLAIRE: u32 = 2;
const ANDREA: u32 = 3;
const ELLEN: u32 = 4;

#[test]
fn worked_example_band_order_and_groups() {
    let db = example();
    let sensitive = ids(&db, &["PregnancyTest", "Viagra"]);
    let keep: Vec<bool> = mask(&db, &sensitive).iter().map(|s| !s).collect();
    let band = reverse_cuthill_mckee(&SharedItems::new(&db, keep));
    // The document's band: Bob, David, Ellen, Andrea, Claire. Bob and David have the same QID
    // items (rows equal in the matrix), so their order is a tie: ours puts David first.
    assert_eq!(band.order(), &[DAVID, BOB, ELLEN, ANDREA, CLAIRE]);
    let grouping = form_groups(&db, &mask(&db, &sensitive), band.order(), 2, 3);
    // Bob takes David (two QID items shared, nearest, before Ellen who shares as many);
    // Claire takes Andrea (one shared, nearer than Ellen); Ellen remains. The document draws
    // Ellen, Andrea and Claire as one group; Figure 7 forms Claire's group with p = 2 members
    // and leaves Ellen as the final group. Both are 2-private (checked below).
    assert_eq!(grouping.groups(), vec![vec![DAVID, BOB], vec![ANDREA, CLAIRE], vec![ELLEN]]);
    assert_eq!(grouping.stats().groups_formed, 2);
    assert_eq!(grouping.stats().final_group, 1);

    let published =
        anonymize(&db, &sensitive, &CahdParams::new(2).seed(Some(5)).check().unwrap()).unwrap();
    let report = audit(&published.published, &claim(&db, 2, &sensitive), Some(&db)).unwrap();
    assert_eq!((report.groups, report.records, report.achieved), (3, 5, 2.0));
    let g = &published.published;
    let names = |t: &[u32]| t.iter().map(|&k| g.label(k)).collect::<Vec<_>>();
    let viagra = g.groups.iter().find(|x| x.sensitive == vec![(g.id("Viagra").unwrap(), 1)]);
    let viagra = viagra.unwrap();
    assert_eq!(
        viagra.qid.iter().map(|t| names(t)).collect::<Vec<_>>(),
        vec![vec!["Meat", "Wine"], vec!["Meat", "Wine"]]
    );

    // The document's own publication passes the audit too (its own table, in another order
    // than the input's).
    let items = ["Wine", "Meat", "Cream", "Strawberries", "PregnancyTest", "Viagra"];
    let document = PublishedGroups {
        format: GROUPS_FORMAT.into(),
        p: 2,
        items: items.iter().map(|x| x.to_string()).collect(),
        sensitive: vec![4, 5],
        groups: vec![
            PublishedGroup { qid: vec![vec![0, 1], vec![0, 1]], sensitive: vec![(5, 1)] },
            PublishedGroup {
                qid: vec![vec![0, 1, 2], vec![1, 3], vec![2, 3]],
                sensitive: vec![(4, 1)],
            },
        ],
    };
    assert_eq!(audit(&document, &claim(&db, 2, &sensitive), Some(&db)).unwrap().achieved, 2.0);
}

/// Figure 7 written as plainly as possible: arrays and full rescans, no linked lists.
fn reference(
    db: &TransactionDb,
    sensitive: &[bool],
    order: &[u32],
    p: usize,
    alpha: usize,
) -> Vec<Vec<u32>> {
    let n = order.len();
    let s_of = |t: u32| -> Vec<ItemId> {
        db.transaction(t as usize).iter().copied().filter(|&i| sensitive[i as usize]).collect()
    };
    let q_of = |t: u32| -> Vec<ItemId> {
        db.transaction(t as usize).iter().copied().filter(|&i| !sensitive[i as usize]).collect()
    };
    let share = |a: &[ItemId], b: &[ItemId]| a.iter().filter(|x| b.contains(x)).count();
    let mut grouped = vec![false; n];
    let mut groups = Vec::new();
    for pos in 0..n {
        let t = order[pos];
        let mine = s_of(t);
        if grouped[pos] || mine.is_empty() {
            continue;
        }
        let mut cands: Vec<(usize, usize, usize)> = Vec::new();
        let before: Vec<usize> = (0..pos).rev().filter(|&k| !grouped[k]).collect();
        let after: Vec<usize> = (pos + 1..n).filter(|&k| !grouped[k]).collect();
        for side in [before, after] {
            for k in
                side.into_iter().filter(|&k| share(&s_of(order[k]), &mine) == 0).take(alpha * p)
            {
                cands.push((share(&q_of(t), &q_of(order[k])), pos.abs_diff(k), k));
            }
        }
        cands.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        let mut members = vec![pos];
        let mut held = mine.clone();
        for (_, _, k) in cands {
            if members.len() < p && share(&s_of(order[k]), &held) == 0 {
                members.push(k);
                held.extend(s_of(order[k]));
            }
        }
        if members.len() < p {
            continue;
        }
        // Privacy of the rest: count each sensitive item over the ungrouped others.
        let rest: Vec<usize> = (0..n).filter(|k| !grouped[*k] && !members.contains(k)).collect();
        let ok = (0..db.num_items() as ItemId).filter(|&s| sensitive[s as usize]).all(|s| {
            rest.iter().filter(|&&k| db.transaction(order[k] as usize).contains(&s)).count() * p
                <= rest.len()
        });
        if !ok {
            continue;
        }
        for &k in &members {
            grouped[k] = true;
        }
        members.sort_unstable();
        groups.push(members.iter().map(|&k| order[k]).collect());
    }
    let rest: Vec<u32> = (0..n).filter(|&k| !grouped[k]).map(|k| order[k]).collect();
    if !rest.is_empty() {
        groups.push(rest);
    }
    groups
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn grouping_matches_the_slow_reference_and_every_publication_is_private(
        ts in prop::collection::vec(prop::collection::btree_set(0u32..14, 1..6), 4..60),
        n_sensitive in 1usize..4,
        p in 2usize..5,
        alpha in 1usize..4,
        band in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let db = TransactionDb::from_int_transactions(ts.iter().map(|t| t.iter().copied().collect::<Vec<_>>()));
        let sensitive = txanon_data::random_items(&db, n_sensitive.min(db.num_items()), seed).unwrap();
        let order = if band { BandOrder::Rcm(GraphKind::SharedItems) } else { BandOrder::Input };
        let params = CahdParams::new(p).alpha(alpha).order(order).seed(Some(seed)).check().unwrap();
        let result = match anonymize(&db, &sensitive, &params) {
            Err(CahdError::Infeasible { support, transactions, .. }) => {
                prop_assert!(support * p > transactions);
                return Ok(());
            }
            other => other.unwrap(),
        };
        // The grouping is the slow reference's, on the same band.
        let is_sensitive = mask(&db, &sensitive);
        let band_order: Vec<u32> = match order {
            BandOrder::Input => (0..db.len() as u32).collect(),
            BandOrder::Rcm(_) => {
                let keep = is_sensitive.iter().map(|s| !s).collect();
                reverse_cuthill_mckee(&SharedItems::new(&db, keep)).order().to_vec()
            }
        };
        prop_assert_eq!(&result.grouping.groups(), &reference(&db, &is_sensitive, &band_order, p, alpha));
        // The publication is private, and holds every transaction once, faithfully.
        let report = audit(&result.published, &claim(&db, p as u64, &sensitive), Some(&db)).unwrap();
        prop_assert_eq!(report.records, db.len());
        let label_sets = |it: &mut dyn Iterator<Item = Vec<String>>| {
            let mut m: BTreeMap<Vec<String>, usize> = BTreeMap::new();
            for mut v in it { v.sort(); *m.entry(v).or_default() += 1; }
            m
        };
        let original = label_sets(&mut db.iter().map(|t| {
            t.iter().filter(|&&i| !is_sensitive[i as usize]).map(|&i| db.label(i).to_string()).collect()
        }));
        let g = &result.published;
        let published = label_sets(&mut g.groups.iter().flat_map(|x| &x.qid).map(|t| t.iter().map(|&k| g.label(k)).collect()));
        prop_assert_eq!(original, published);
        for &s in &sensitive {
            let label = db.label(s).to_string();
            let total: usize = result.published.groups.iter()
                .flat_map(|x| x.sensitive.iter().filter(|&&(k, _)| g.label(k) == label).map(|(_, c)| *c))
                .sum();
            prop_assert_eq!(total, db.supports()[s as usize] as usize);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Input order with the holders of a sensitive item in runs (as a band puts them when the
    /// item goes with some QID items): the candidate walks jump the conflicting runs, and the
    /// groups are still the slow reference's, which steps through every position.
    #[test]
    fn grouping_over_runs_of_one_sensitive_item_matches_the_slow_reference(
        runs in prop::collection::vec(
            (prop::option::of(100u32..103), any::<bool>(), 1usize..15,
             prop::collection::vec(prop::collection::btree_set(0u32..10, 1..4), 15)),
            1..12,
        ),
        p in 2usize..5,
        alpha in 1usize..4,
    ) {
        let mut ts: Vec<Vec<u32>> = Vec::new();
        for (item, second, length, qids) in &runs {
            for qid in qids.iter().take(*length) {
                let mut t: Vec<u32> = qid.iter().copied().collect();
                if let Some(s) = item {
                    t.push(*s);
                    // Now and then a second sensitive item, so a run's first item is not
                    // always the one that conflicts.
                    if *second && t.len().is_multiple_of(2) {
                        t.push(103);
                    }
                }
                ts.push(t);
            }
        }
        let db = TransactionDb::from_int_transactions(ts);
        let sensitive: Vec<ItemId> = (0..db.num_items() as ItemId)
            .filter(|&i| db.label(i).to_string().parse::<u32>().unwrap() >= 100)
            .collect();
        prop_assume!(!sensitive.is_empty());
        let params = CahdParams::new(p).alpha(alpha).order(BandOrder::Input).check().unwrap();
        let result = match anonymize(&db, &sensitive, &params) {
            Err(CahdError::Infeasible { support, transactions, .. }) => {
                prop_assert!(support * p > transactions);
                return Ok(());
            }
            other => other.unwrap(),
        };
        let order: Vec<u32> = (0..db.len() as u32).collect();
        prop_assert_eq!(
            &result.grouping.groups(),
            &reference(&db, &mask(&db, &sensitive), &order, p, alpha)
        );
    }
}

#[test]
fn reconstruction_error_by_hand() {
    // QID item q (label 1), sensitive s (label 9): t1 {q, s}, t2 {q}, t3 {}, t4 {s}.
    let db = TransactionDb::from_int_transactions([vec![1, 9], vec![1], vec![], vec![9]]);
    // The table: "1" (index 0), "9" (1).
    let s = |v: &[&str]| -> Vec<u32> {
        v.iter().map(|x| ["1", "9"].iter().position(|l| l == x).unwrap() as u32).collect()
    };
    let published = |groups: Vec<(Vec<Vec<u32>>, usize)>| PublishedGroups {
        format: GROUPS_FORMAT.into(),
        p: 1,
        items: vec!["1".into(), "9".into()],
        sensitive: vec![1],
        groups: groups
            .into_iter()
            .map(|(qid, c)| PublishedGroup { qid, sensitive: vec![(1, c)] })
            .collect(),
    };
    let workload = Workload::new(1).queries(3).check().unwrap();
    // Act: one s in the cell "q present" (t1), one in "q absent" (t4).
    // {t1, t2} with s once and {t3, t4} with s once estimate (1, 1): exact.
    let exact = published(vec![(vec![s(&["1"]), s(&["1"])], 1), (vec![s(&[]), s(&[])], 1)]);
    assert_eq!(reconstruction_error(&db, &exact, &workload).unwrap().mean, 0.0);
    // {t1, t2, t3} with s once and {t4} with s once: Est(q) = 2/3, Est(no q) = 1/3 + 1 = 4/3,
    // normalized (1/3, 2/3) against (1/2, 1/2): KL = ½ ln(½ / ⅓) + ½ ln(½ / ⅔) = ½ ln(9/8).
    let coarse = published(vec![(vec![s(&["1"]), s(&["1"]), s(&[])], 1), (vec![s(&[])], 1)]);
    let kl = reconstruction_error(&db, &coarse, &workload).unwrap();
    assert!((kl.mean - 0.5 * (9f64 / 8.0).ln()).abs() < 1e-12, "{kl:?}");
    assert_eq!(kl.queries, 3);
    // Labels the original does not have are a mismatch, not a number.
    let mut foreign = published(vec![(vec![s(&["1"])], 1)]);
    foreign.items.push("7".into());
    assert!(matches!(reconstruction_error(&db, &foreign, &workload), Err(CahdError::Mismatch(_))));
    assert_eq!(Workload::new(0).check().unwrap_err().name(), "r");
    assert_eq!(Workload::new(17).check().unwrap_err().name(), "r");
    assert_eq!(Workload::new(4).queries(0).check().unwrap_err().name(), "queries");
}

#[test]
fn infeasible_degree_is_refused_with_the_item() {
    let db = example();
    // Meat is in 4 of 5 transactions: as a sensitive item it allows no p ≥ 2.
    let err =
        anonymize(&db, &ids(&db, &["Meat"]), &CahdParams::new(2).check().unwrap()).unwrap_err();
    assert!(err.to_string().contains("Meat is in 4 of 5 transactions"), "{err}");
    assert!(matches!(
        anonymize(&db, &[], &CahdParams::new(2).check().unwrap()),
        Err(CahdError::NoSensitiveItems)
    ));
}

#[test]
fn publication_order_is_random_and_seeded() {
    let db = txanon_data::QuestParams::new(3000, 6.0, 3.0, 200).seed(4).check().unwrap().generate();
    let sensitive = txanon_data::random_items(&db, 8, 3).unwrap();
    let run = |seed| {
        let params = CahdParams::new(4).seed(seed).check().unwrap();
        anonymize(&db, &sensitive, &params).unwrap()
    };
    let (a, b) = (run(Some(1)), run(Some(1)));
    assert_eq!(a.published, b.published);
    assert_eq!(a.grouping, run(Some(2)).grouping, "the grouping does not depend on the seed");
    assert_ne!(a.published, run(Some(2)).published);
    assert_ne!(run(None).published, run(None).published, "OS-seeded runs publish differently");
    // Groups do not come out in band order: the first formed group (holding the first
    // sensitive transaction of the band) is not the first published.
    let first = &a.grouping.groups()[0];
    let labels = |t: u32| -> Vec<String> {
        let mut v: Vec<String> = db
            .transaction(t as usize)
            .iter()
            .filter(|i| !sensitive.contains(i))
            .map(|&i| db.label(i).to_string())
            .collect();
        v.sort();
        v
    };
    let mut expected: Vec<Vec<String>> = first.iter().map(|&t| labels(t)).collect();
    expected.sort();
    let mut published_first: Vec<Vec<String>> = a.published.groups[0]
        .qid
        .iter()
        .map(|t| t.iter().map(|&k| a.published.label(k)).collect())
        .collect();
    published_first.iter_mut().for_each(|v| v.sort());
    published_first.sort();
    assert_ne!(expected, published_first);
}

/// BMS-WebView-1 with ten random sensitive items, the paper's setting: every publication passes
/// the audit and keeps every transaction, and the band has a smaller profile than the input.
#[test]
fn real_data_bms1() {
    let Some(path) = datasets::for_test("bms1") else { return };
    let db = read_path(&path, &ReadOptions::new()).unwrap().0;
    let sensitive = txanon_data::random_items(&db, 10, 20_081_212).unwrap();
    for p in [4, 10] {
        let params = CahdParams::new(p).seed(Some(1)).check().unwrap();
        let result = anonymize(&db, &sensitive, &params).unwrap();
        let report = audit(
            &PublishedGroups::from_json(&result.published.to_json()).unwrap(),
            &claim(&db, p as u64, &sensitive),
            Some(&db),
        )
        .unwrap();
        assert_eq!(report.records, db.len());
        assert!(report.achieved >= p as f64);
        let txanon_band::BandEnvelopes { before, after } = result.band.unwrap();
        assert!(after.profile < before.profile);
        let kl = reconstruction_error(&db, &result.published, &Workload::new(4).check().unwrap())
            .unwrap();
        assert!(kl.mean.is_finite() && kl.mean >= 0.0);
    }
}

#[test]
fn the_contract_reaudits_a_quest_publication() {
    let db = txanon_data::QuestParams::new(2000, 6.0, 3.0, 150).seed(5).check().unwrap().generate();
    let sensitive = txanon_data::random_items(&db, 6, 2).unwrap();
    let params = CahdParams::new(4).seed(Some(1)).check().unwrap();
    let input = txanon_data::MarkedDb { db: &db, marked: &sensitive };
    let published = Cahd::anonymize(input, &params).unwrap();
    txanon_testkit::reaudits::<Cahd>(input, &params, &published);
    assert!(published.audit.groups > 0);
}

/// The original's side made before the publication exists (`OriginalQids::of`, as `anonymize`
/// makes it while the groups are formed) gives the audit's own verdict, whatever the
/// publication: untouched, its item table listed in another order, an item declared sensitive
/// beside the claim's, or a QID row exchanged between groups. Counts the cases that failed the
/// audit through the side made beforehand (the table and the declared items as it assumed), and
/// those that coded the original again.
#[test]
fn the_original_side_made_beforehand_gives_the_audits_verdict() {
    let strategy = (
        prop::collection::vec(prop::collection::btree_set(0u32..12, 1..5), 8..40),
        2usize..4,
        0usize..6,
        any::<u64>(),
    );
    let coded_again = std::sync::atomic::AtomicU32::new(0);
    let exercised = txanon_testkit::exercised(300, strategy, |(ts, p, tamper, seed)| {
        let db = TransactionDb::from_int_transactions(
            ts.iter().map(|t| t.iter().copied().collect::<Vec<_>>()),
        );
        let sensitive = txanon_data::random_items(&db, 1, seed).unwrap();
        let params = CahdParams::new(p).seed(Some(seed)).check().unwrap();
        let Ok(result) = anonymize(&db, &sensitive, &params) else { return Ok(false) };
        let mut published = result.published;
        let mut as_assumed = true;
        match tamper {
            // The table reversed, every index renamed to match: the same groups.
            1 => {
                let m = published.items.len() as u32;
                published.items.reverse();
                let renamed = |k: &mut u32| *k = m - 1 - *k;
                published.sensitive.iter_mut().for_each(renamed);
                for g in &mut published.groups {
                    g.qid.iter_mut().flatten().for_each(renamed);
                    g.sensitive.iter_mut().for_each(|(k, _)| renamed(k));
                    g.sensitive.sort_unstable();
                }
                as_assumed = m < 2;
            }
            // A QID item declared sensitive too, with no counts.
            2 => {
                let sensitive = &published.sensitive;
                let qid_item = (0..published.items.len() as u32).find(|k| !sensitive.contains(k));
                if let Some(k) = qid_item {
                    published.sensitive.push(k);
                    as_assumed = false;
                }
            }
            // The first QID rows of two groups that differ, exchanged (half the cases).
            3.. => {
                let groups = &mut published.groups;
                if let Some(b) = (1..groups.len()).find(|&b| groups[b].qid[0] != groups[0].qid[0]) {
                    let row = std::mem::take(&mut groups[0].qid[0]);
                    groups[0].qid[0] = std::mem::replace(&mut groups[b].qid[0], row);
                }
            }
            0 => {}
        }
        let claim = claim(&db, p as u64, &sensitive);
        let prepared = OriginalQids::of(&db, &claim);
        let verdict = |r: Result<txanon_cahd::CahdAuditReport, CahdError>| match r {
            Ok(report) => Ok(report),
            Err(CahdError::Audit(found)) => Err(found.list().to_vec()),
            Err(e) => panic!("{e}"),
        };
        let ours = verdict(audit_against(&published, &claim, &prepared));
        prop_assert_eq!(&ours, &verdict(audit(&published, &claim, Some(&db))));
        if !as_assumed {
            coded_again.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(ours.is_err() && as_assumed)
    });
    exercised.at_least(0.1, "failed the audit through the side made beforehand");
    let again = txanon_testkit::Exercised {
        cases: exercised.cases,
        taken: coded_again.load(std::sync::atomic::Ordering::Relaxed),
    };
    again.at_least(0.2, "coded the original again");
}
