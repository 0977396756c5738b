//! Band reordering: degrees (exact and estimated) and RCM on the implicit `A·Aᵀ` and on the padded `A + Aᵀ` of
//! BMS-WebView-1 and -2 (when found) and of Quest data; and, on the first 10,000 transactions
//! of BMS-WebView-1, the implicit graph against building `A·Aᵀ` with nalgebra-sparse and
//! running the same RCM on the explicit pattern (what generality would cost); and the envelope
//! of `A·Aᵀ` on a million Quest basket transactions in the input order and in a scattered one
//! (what RCM scores each candidate start by, each row a cache miss at scale), and RCM on it.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nalgebra_sparse::pattern::SparsityPattern;
use txanon_band::{Explicit, Pattern, SharedItems, reverse_cuthill_mckee};
use txanon_data::{QuestParams, ReadOptions, TransactionDb, datasets, read_path};

fn inputs() -> Vec<(String, TransactionDb)> {
    let mut inputs = vec![(
        "quest-T2.5I2D60K-N500".to_string(),
        QuestParams::new(60_000, 2.5, 2.0, 500).seed(0).check().expect("valid").generate(),
    )];
    for name in ["bms1", "bms2"] {
        match datasets::locate_verified(name) {
            Ok(Some(path)) => inputs
                .push((name.into(), read_path(&path, &ReadOptions::new()).expect("readable").0)),
            _ => eprintln!("{name} not found: not benchmarked"),
        }
    }
    inputs
}

fn explicit_aat(db: &TransactionDb) -> Explicit {
    let mut offsets = vec![0];
    let mut indices = Vec::new();
    for t in db.iter() {
        indices.extend(t.iter().map(|&i| i as usize));
        offsets.push(indices.len());
    }
    let a =
        SparsityPattern::try_from_offsets_and_indices(db.len(), db.num_items(), offsets, indices)
            .expect("valid rows");
    Explicit::from_pattern(&nalgebra_sparse::ops::serial::spmm_csr_pattern(&a, &a.transpose()))
}

fn band(c: &mut Criterion) {
    let mut group = c.benchmark_group("band");
    group.sample_size(10);
    for (name, db) in inputs() {
        let n = db.len();
        let aat = SharedItems::all_items(&db);
        group.bench_function(BenchmarkId::new("degrees-aat", format!("{name}/n={n}")), |b| {
            b.iter(|| black_box(aat.degrees()))
        });
        group.bench_function(
            BenchmarkId::new("estimated-degrees-aat", format!("{name}/n={n}")),
            |b| b.iter(|| black_box(aat.estimated_degrees())),
        );
        group.bench_function(BenchmarkId::new("rcm-aat", format!("{name}/n={n}")), |b| {
            b.iter(|| reverse_cuthill_mckee(black_box(&aat)))
        });
        let keep = vec![true; db.num_items()];
        group.bench_function(BenchmarkId::new("rcm-sym-pad", format!("{name}/n={n}")), |b| {
            b.iter(|| reverse_cuthill_mckee(&Explicit::symmetrized_padded(black_box(&db), &keep)))
        });
        if name == "bms1" {
            let head = db.head(10_000);
            let implicit = SharedItems::all_items(&head);
            group.bench_function("rcm-aat-implicit/bms1-first-10000", |b| {
                b.iter(|| reverse_cuthill_mckee(black_box(&implicit)))
            });
            group.bench_function("rcm-aat-explicit-built/bms1-first-10000", |b| {
                b.iter(|| reverse_cuthill_mckee(&explicit_aat(black_box(&head))))
            });
        }
    }
    let db =
        QuestParams::new(1_000_000, 10.0, 4.0, 5000).seed(1).check().expect("valid").generate();
    let n = db.len() as u64;
    let aat = SharedItems::all_items(&db);
    let identity: Vec<u32> = (0..n as u32).collect();
    // v ↦ v·3¹⁸ mod n is a bijection (3 is prime to 10⁶) that scatters neighbouring rows.
    let scattered: Vec<u32> = (0..n).map(|v| (v * 387_420_489 % n) as u32).collect();
    group.bench_function("envelope-aat/quest-1M-input-order", |b| {
        b.iter(|| black_box(aat.envelope(black_box(&identity))))
    });
    group.bench_function("envelope-aat/quest-1M-scattered", |b| {
        b.iter(|| black_box(aat.envelope(black_box(&scattered))))
    });
    // The padded graph (CAHD's `--band sym-pad`): built, and its envelope under a scattered
    // order (RCM's candidates are measured so).
    let keep = vec![true; db.num_items()];
    group.bench_function("build-sym-pad/quest-1M", |b| {
        b.iter(|| Explicit::symmetrized_padded(black_box(&db), &keep))
    });
    let padded = Explicit::symmetrized_padded(&db, &keep);
    group.bench_function("envelope-sym-pad/quest-1M-scattered", |b| {
        b.iter(|| black_box(padded.envelope(black_box(&scattered))))
    });
    // One component of a million vertices: George & Liu's search, then 16 candidate starts
    // (the estimated ranking, CAHD's at this size).
    group.bench_function("rcm-aat/quest-1M", |b| b.iter(|| reverse_cuthill_mckee(black_box(&aat))));
    group.finish();
}

criterion_group!(benches, band);
criterion_main!(benches);
