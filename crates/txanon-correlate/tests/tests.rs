//! Correlation, distances and k-medoids against brute force on small inputs.

use std::collections::{BTreeSet, HashMap};

use proptest::prelude::*;
use txanon_correlate::{
    CondensedMatrix, CorrelateError, Init, KMedoids, KMedoidsParams, MedoidSearch, PairCounts,
    item_distances, jaccard, phi2_contingency, phi2_transaction,
};
use txanon_data::TransactionDb;

/// Eq. 3 by its definition: the double sum over every cell of the d₁ × d₂ table.
fn brute_phi2(a: &[u32], b: &[u32]) -> f64 {
    let n = a.len() as f64;
    let va: BTreeSet<u32> = a.iter().copied().collect();
    let vb: BTreeSet<u32> = b.iter().copied().collect();
    let dims = va.len().min(vb.len());
    if dims < 2 {
        return 0.0;
    }
    let mut sum = 0.0;
    for &x in &va {
        for &y in &vb {
            let fi = a.iter().filter(|&&v| v == x).count() as f64 / n;
            let fj = b.iter().filter(|&&v| v == y).count() as f64 / n;
            let fij = a.iter().zip(b).filter(|&(&p, &q)| p == x && q == y).count() as f64 / n;
            sum += (fij - fi * fj).powi(2) / (fi * fj);
        }
    }
    sum / (dims - 1) as f64
}

fn random_matrix(n: usize, values: &[f64]) -> CondensedMatrix {
    let entries: Vec<f64> = (0..n * (n - 1) / 2).map(|i| values[i % values.len()]).collect();
    CondensedMatrix::from_entries(n, entries).unwrap()
}

fn cost(d: &CondensedMatrix, medoids: &[usize]) -> f64 {
    (0..d.len()).map(|o| medoids.iter().map(|&m| d.get(o, m)).fold(f64::INFINITY, f64::min)).sum()
}

proptest! {
    #[test]
    fn contingency_phi2_equals_its_definition(
        rows in prop::collection::vec((0u32..4, 0u32..5), 1..60),
    ) {
        let (a, b): (Vec<u32>, Vec<u32>) = rows.into_iter().unzip();
        let fast = phi2_contingency(&a, &b).unwrap();
        prop_assert!((fast - brute_phi2(&a, &b)).abs() < 1e-9, "{fast} vs {}", brute_phi2(&a, &b));
        prop_assert!((0.0..=1.0).contains(&fast));
    }

    #[test]
    fn pair_counts_equal_brute_force(
        ts in prop::collection::vec(prop::collection::btree_set(0u32..12, 0..7), 1..40),
        spread in any::<bool>(),
    ) {
        // With `spread` the ids are far apart and single-item transactions take the universe
        // beyond 4096 distinct items, so the partner rows are used.
        let scale = if spread { 700 } else { 1 };
        let mut rows: Vec<Vec<u32>> = ts.iter().map(|t| t.iter().map(|&i| i * scale).collect()).collect();
        if spread {
            rows.extend((10_000..14_200).map(|i| vec![i]));
        }
        let db = TransactionDb::from_int_transactions(rows.clone());
        let counts = PairCounts::new(&db);
        let n = rows.len() as f64;
        let mut support: HashMap<u32, u32> = HashMap::new();
        for t in &rows {
            for &i in t {
                *support.entry(i).or_default() += 1;
            }
        }
        let labels: Vec<u32> = ts.iter().flatten().map(|&i| i * scale).collect::<BTreeSet<_>>().into_iter().collect();
        for &x in &labels {
            for &y in &labels {
                if x >= y { continue; }
                let both = rows.iter().filter(|t| t.contains(&x) && t.contains(&y)).count() as u32;
                let (ix, iy) = (db.labels().find(&x.to_string()).unwrap(), db.labels().find(&y.to_string()).unwrap());
                prop_assert_eq!(counts.pair(ix, iy), both);
                prop_assert_eq!(counts.pair(iy, ix), both);
                let expected = phi2_transaction(support[&x] as f64 / n, support[&y] as f64 / n, both as f64 / n);
                prop_assert!((counts.phi2(ix, iy) - expected).abs() < 1e-12);
            }
        }
        // The distances, filled a row at a time from the pairs that occur, are the per-pair
        // φ² to the bit, pairs that never occur included (both layouts: the crate's unit
        // tests; the spread universe's matrix is too large to check here at each case).
        if !spread {
            let d = item_distances(&db).unwrap();
            for i in 0..db.num_items() {
                for j in i + 1..db.num_items() {
                    let expected = 1.0 - counts.phi2(i as u32, j as u32);
                    prop_assert_eq!(d.get(i, j).to_bits(), expected.to_bits());
                }
            }
        }
    }

    #[test]
    fn fastpam1_reaches_the_same_medoids_as_pam(
        n in 2usize..25,
        k in 1usize..6,
        values in prop::collection::vec(0.0f64..10.0, 1..50),
        random in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let k = k.min(n);
        let d = random_matrix(n, &values);
        let init = if random { Init::Random } else { Init::Build };
        let fit = |search| {
            KMedoids::new(KMedoidsParams::new(k).init(init).seed(seed).medoid_search(search).check().unwrap()).fit(&d).unwrap()
        };
        let pam = fit(MedoidSearch::Pam);
        let fast = fit(MedoidSearch::FastPam1);
        prop_assert_eq!(&pam, &fast);
        prop_assert!((pam.cost - cost(&d, &pam.medoids)).abs() < 1e-9);
        // k clusters, each holding its medoid.
        for (slot, &m) in pam.medoids.iter().enumerate() {
            prop_assert_eq!(pam.labels[m], slot);
        }
        // A local optimum: no single swap lowers the cost (beyond quantization, 2⁻³¹ of the
        // largest distance per point).
        let tolerance = n as f64 * 10.0 / f64::from(1u32 << 30);
        for slot in 0..k {
            for c in (0..n).filter(|c| !pam.medoids.contains(c)) {
                let mut swapped = pam.medoids.clone();
                swapped[slot] = c;
                prop_assert!(cost(&d, &swapped) >= pam.cost - tolerance);
            }
        }
    }

    #[test]
    fn jaccard_equals_set_arithmetic(
        a in prop::collection::btree_set(0u32..20, 0..10),
        b in prop::collection::btree_set(0u32..20, 0..10),
    ) {
        let (va, vb): (Vec<u32>, Vec<u32>) = (a.iter().copied().collect(), b.iter().copied().collect());
        let union = a.union(&b).count();
        let expected = if union == 0 { 1.0 } else { a.intersection(&b).count() as f64 / union as f64 };
        prop_assert_eq!(jaccard(&va, &vb), expected);
    }
}

/// A point at distance 0 from all others: BUILD takes it first, and the second medoid, tied at
/// 0 with it, still heads a cluster of its own (the slicing property test's counterexample).
#[test]
fn a_medoid_tied_at_distance_0_keeps_its_cluster() {
    // Point 0 at 0 from 1, 2, 3; 1 and 2 at 0; 3 at 0.96 from 1 and 2.
    let d = CondensedMatrix::from_entries(4, vec![0.0, 0.0, 0.0, 0.0, 0.96, 0.96]).unwrap();
    for search in [MedoidSearch::Pam, MedoidSearch::FastPam1] {
        let params = KMedoidsParams::new(2).medoid_search(search).check().unwrap();
        let fit = KMedoids::new(params).fit(&d).unwrap();
        let mut sizes = [0; 2];
        for &label in &fit.labels {
            sizes[label] += 1;
        }
        assert!(sizes.iter().all(|&s| s > 0), "{fit:?}");
        assert!(fit.cost < 1e-12, "{fit:?}");
    }
}

#[test]
fn phi2_worked_examples() {
    // Independent binary attributes: 0. A copy of an attribute: 1.
    let a = [0, 0, 1, 1];
    assert_eq!(phi2_contingency(&a, &[0, 1, 0, 1]).unwrap(), 0.0);
    assert!((phi2_contingency(&a, &a).unwrap() - 1.0).abs() < 1e-12);
    // 2 × 2 table [[3, 1], [1, 3]] of 8 rows: φ² = ((3·3 − 1·1) / 8)² / (½·½·½·½) / 64 … = 0.25.
    let x = [0, 0, 0, 0, 1, 1, 1, 1];
    let y = [0, 0, 0, 1, 1, 1, 1, 0];
    assert!((phi2_contingency(&x, &y).unwrap() - 0.25).abs() < 1e-12);
    // A constant attribute carries nothing; mismatched lengths are an error.
    assert_eq!(phi2_contingency(&[5, 5, 5], &[1, 2, 3]).unwrap(), 0.0);
    assert!(matches!(phi2_contingency(&[1], &[1, 2]), Err(CorrelateError::LengthMismatch { .. })));
    // Eq. 4: items a (in 4 of 8), b (in 2 of 8), together in 2: (0.25 − 0.125)² / 0.125 = 0.125.
    assert!((phi2_transaction(0.5, 0.25, 0.25) - 0.125).abs() < 1e-15);
    assert_eq!(phi2_transaction(0.0, 0.5, 0.0), 0.0);
}

#[test]
fn anatomy_table1_item_distances() {
    // The anatomy paper's Table I: a and c always together (in 4 of 10 records).
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../datasets/examples/anatomy-table1.csv");
    let (db, _) = txanon_data::read_path(&path, &txanon_data::ReadOptions::new()).unwrap();
    let d = item_distances(&db).unwrap();
    let counts = PairCounts::new(&db);
    let (a, c) = (db.labels().find("a").unwrap() as usize, db.labels().find("c").unwrap() as usize);
    let fa = f64::from(counts.support(a as u32)) / db.len() as f64;
    let fc = f64::from(counts.support(c as u32)) / db.len() as f64;
    let fac = f64::from(counts.pair(a as u32, c as u32)) / db.len() as f64;
    assert!((d.get(a, c) - (1.0 - (fac - fa * fc).powi(2) / (fa * fc))).abs() < 1e-12);
    assert_eq!(d.get(a, c), d.get(c, a));
    assert_eq!(d.get(a, a), 0.0);
}

#[test]
fn kmedoids_finds_separated_groups_and_refuses_bad_k() {
    // Points on a line in three tight groups: the medoids are the groups' middles.
    let xs: [f64; 9] = [0.0, 1.0, 2.0, 50.0, 51.0, 52.0, 100.0, 101.0, 102.0];
    let d = CondensedMatrix::from_fn(xs.len(), |i, j| (xs[i] - xs[j]).abs());
    for init in [Init::Build, Init::Random] {
        for seed in 0..5 {
            let fit = KMedoids::new(KMedoidsParams::new(3).init(init).seed(seed).check().unwrap())
                .fit(&d)
                .unwrap();
            let mut medoids = fit.medoids.clone();
            medoids.sort();
            assert_eq!(medoids, [1, 4, 7], "{init:?} seed {seed}");
            assert_eq!(fit.cost, 6.0);
            assert_eq!(fit.labels[0], fit.labels[2]);
            assert_ne!(fit.labels[0], fit.labels[3]);
        }
    }
    assert_eq!(KMedoidsParams::new(0).check().unwrap_err().name(), "k");
    let err = KMedoids::new(KMedoidsParams::new(10).check().unwrap()).fit(&d).unwrap_err();
    assert_eq!(err, CorrelateError::TooManyClusters { k: 10, points: 9 });
    assert!(CondensedMatrix::from_entries(3, vec![1.0, f64::NAN, 2.0]).is_err());
    assert!(CondensedMatrix::from_entries(3, vec![1.0]).is_err());
}

#[test]
fn public_types_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<CondensedMatrix>();
    send_sync::<PairCounts>();
    send_sync::<KMedoids>();
    send_sync::<txanon_correlate::Clustering>();
    send_sync::<CorrelateError>();
}
