//! CAHD in memory (RCM on the QID items, grouping, shuffled publication) at the speed
//! settings: BMS-WebView-1 with p = 4 and BMS-WebView-2 with p = 10, α = 3, ten sensitive items
//! drawn at random; the grouping alone; the paper's comparator PermMondrian; and the KL
//! reconstruction error of a publication (r = 4, 100 queries), which the experiment computes
//! twice per setting. Quest data stands in when the files are missing.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use txanon_band::{GraphKind, SharedItems, band_order, reverse_cuthill_mckee};
use txanon_cahd::{
    CahdClaim, CahdParams, Workload, anonymize, audit, form_groups, perm_mondrian,
    reconstruction_error,
};
use txanon_data::{QuestParams, ReadOptions, TransactionDb, datasets, read_path};

fn inputs() -> Vec<(String, TransactionDb, usize)> {
    let mut inputs = Vec::new();
    for (name, p) in [("bms1", 4), ("bms2", 10), ("retail", 10)] {
        match datasets::locate_verified(name) {
            Ok(Some(path)) => inputs.push((
                name.into(),
                read_path(&path, &ReadOptions::new()).expect("readable").0,
                p,
            )),
            _ => eprintln!("{name} not found: not benchmarked"),
        }
    }
    if inputs.is_empty() {
        let quest =
            QuestParams::new(60_000, 2.5, 2.0, 500).seed(0).check().expect("valid").generate();
        inputs.push(("quest-T2.5I2D60K".into(), quest, 4));
    }
    inputs
}

fn cahd(c: &mut Criterion) {
    let mut group = c.benchmark_group("cahd");
    group.sample_size(10);
    for (name, db, p) in inputs() {
        let sensitive = txanon_data::random_items(&db, 10, 20_081_212).expect("enough items");
        let params = CahdParams::new(p).seed(Some(1)).check().expect("valid");
        group.bench_function(BenchmarkId::new("anonymize", format!("{name}/p={p}/m=10")), |b| {
            b.iter(|| anonymize(black_box(&db), &sensitive, &params).expect("feasible"))
        });
        let is_sensitive: Vec<bool> =
            (0..db.num_items() as u32).map(|i| sensitive.contains(&i)).collect();
        let keep = is_sensitive.iter().map(|s| !s).collect();
        let band = reverse_cuthill_mckee(&SharedItems::new(&db, keep));
        group.bench_function(BenchmarkId::new("form-groups", format!("{name}/p={p}/m=10")), |b| {
            b.iter(|| form_groups(black_box(&db), &is_sensitive, band.order(), p, 3))
        });
        group
            .bench_function(BenchmarkId::new("perm-mondrian", format!("{name}/p={p}/m=10")), |b| {
                b.iter(|| perm_mondrian(black_box(&db), &sensitive, &params).expect("feasible"))
            });
        let published = anonymize(&db, &sensitive, &params).expect("feasible").published;
        let workload = Workload::new(4).queries(100).seed(1).check().expect("valid");
        group.bench_function(
            BenchmarkId::new("reconstruction-error", format!("{name}/p={p}/m=10/r=4")),
            |b| {
                b.iter(|| {
                    reconstruction_error(black_box(&db), &published, &workload).expect("matches")
                })
            },
        );
    }
    group.finish();
}

/// A million Quest transactions (T10 I4 N5000, the `scaling` experiment's shape) with 10 and
/// with 270 sensitive items (5% of the items: a fifth of the transactions sensitive, where the
/// walks meet long runs of conflicting leftovers): the grouping alone in its band order, the
/// whole anonymization, and the audit of its publication against the original.
fn grouping_at_scale(c: &mut Criterion) {
    let mut group = c.benchmark_group("cahd");
    group.sample_size(10);
    let db =
        QuestParams::new(1_000_000, 10.0, 4.0, 5000).seed(1).check().expect("valid").generate();
    let mut written = Vec::new();
    for count in [10, 270] {
        let sensitive = txanon_data::random_items(&db, count, 1).expect("enough items");
        let is_sensitive: Vec<bool> =
            (0..db.num_items() as u32).map(|i| sensitive.contains(&i)).collect();
        let keep = is_sensitive.iter().map(|s| !s).collect();
        let band = reverse_cuthill_mckee(&SharedItems::new(&db, keep));
        group.bench_function(format!("form-groups/quest-1M/p=10/m={count}"), |b| {
            b.iter(|| form_groups(black_box(&db), &is_sensitive, band.order(), 10, 3))
        });
        if count == 270 {
            // The sym-pad band leaves the sensitive transactions' holders in the longest runs:
            // the walks' costliest setting.
            let keep: Vec<bool> = is_sensitive.iter().map(|s| !s).collect();
            let sym_pad = band_order(&db, &keep, GraphKind::SymmetrizedPadded, None).permutation;
            let order = sym_pad.order();
            group.bench_function(format!("form-groups/quest-1M/p=10/m={count}/sym-pad"), |b| {
                b.iter(|| form_groups(black_box(&db), &is_sensitive, order, 10, 3))
            });
        }
        // Publishing with its audit against the original, the run's other half: with 270
        // sensitive items the final group holds about a tenth of the transactions and short QID
        // itemsets are published in thousands of groups.
        let params = CahdParams::new(10).seed(Some(1)).check().expect("valid");
        group.bench_function(format!("anonymize/quest-1M/p=10/m={count}"), |b| {
            b.iter(|| anonymize(black_box(&db), &sensitive, &params).expect("feasible"))
        });
        let published = anonymize(&db, &sensitive, &params).expect("feasible").published;
        let labels = sensitive.iter().map(|&s| db.label(s).to_string());
        let claim = CahdClaim::new(10, labels).expect("valid");
        group.bench_function(format!("audit/quest-1M/p=10/m={count}"), |b| {
            b.iter(|| audit(black_box(&published), &claim, Some(&db)).expect("passes"))
        });
        written.push((count, published));
    }
    group.finish();
    // groups.json alone, into memory: formatting, not the kernel's copy.
    let mut group = c.benchmark_group("cahd");
    group.sample_size(10);
    for (count, published) in written {
        let size = published.to_json().len();
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_function(format!("groups-json/quest-1M/p=10/m={count}"), |b| {
            b.iter(|| {
                let mut json = Vec::with_capacity(size);
                black_box(&published).write_json(&mut json).expect("in memory");
                json
            })
        });
    }
    group.finish();
}

criterion_group!(benches, cahd, grouping_at_scale);
criterion_main!(benches);
