//! Anatomization in memory (correlate, cluster, repair, partition, publish; no file read or
//! written) at the speed settings: a full-size T40I10D100K stand-in (Quest, 100,000
//! records) with p = 20, and Connect with p = 10 when found. Each at l = 12 / 10 in the
//! distinct-values reading (the paper's own columns), and under Definition 5 at an l its
//! repaired columns reach; on the T40I10D100K sample also at l = 10, where the column repair
//! is most of the time. And the scaling experiment's setting on a million Quest records, with
//! the table's JSON, and its audit alone.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use txanon_anatomy::{
    AnatomyClaim, AnatomyParams, Diversity, ItemPartitioning, ValidAnatomyParams, anonymize, audit,
};
use txanon_data::{QuestParams, ReadOptions, TransactionDb, datasets, read_path};

fn distinct(p: usize, l: usize) -> ValidAnatomyParams {
    AnatomyParams::new(p, l)
        .diversity(Diversity::Distinct)
        .partitioning(ItemPartitioning::Clustered)
        .seed(Some(1))
        .check()
        .expect("valid")
}

fn definition5(p: usize, l: usize) -> ValidAnatomyParams {
    AnatomyParams::new(p, l).seed(Some(1)).check().expect("valid")
}

/// A named input and the settings it is benchmarked at.
type Input = (String, TransactionDb, Vec<(String, ValidAnatomyParams)>);

fn inputs() -> Vec<Input> {
    let quest = QuestParams::new(100_000, 40.0, 10.0, 1000)
        .seed(20_081_212)
        .check()
        .expect("valid")
        .generate();
    let mut inputs = vec![(
        "quest-T40I10D100K".to_string(),
        quest,
        vec![
            ("p20-l12-distinct".to_string(), distinct(20, 12)),
            ("p20-l6-def5".to_string(), definition5(20, 6)),
        ],
    )];
    for (name, settings) in [
        (
            "connect",
            vec![("p10-l10-distinct", distinct(10, 10)), ("p10-l6-def5", definition5(10, 6))],
        ),
        // l = 10: the repair moves about 600 items, most of the run.
        (
            "t40-sample",
            vec![("p20-l6-def5", definition5(20, 6)), ("p20-l10-def5", definition5(20, 10))],
        ),
    ] {
        match datasets::locate_verified(name) {
            Ok(Some(path)) => {
                let db = read_path(&path, &ReadOptions::new()).expect("readable").0;
                inputs.push((
                    name.to_string(),
                    db,
                    settings.into_iter().map(|(s, params)| (s.to_string(), params)).collect(),
                ));
            }
            _ => eprintln!("{name} not found: not benchmarked"),
        }
    }
    inputs
}

fn anatomy(c: &mut Criterion) {
    let mut group = c.benchmark_group("anatomy");
    group.sample_size(10);
    for (name, db, settings) in inputs() {
        for (setting, params) in settings {
            group.bench_with_input(
                BenchmarkId::new("anonymize", format!("{name}/{setting}/n={}", db.len())),
                &db,
                |b, db| b.iter(|| anonymize(black_box(db), &params).expect("feasible")),
            );
        }
    }
    group.finish();
}

/// The scaling experiment's setting on a million sparse records (Quest, 10 items on average
/// over 5,000): the table's construction, its audit and its JSON (written to a sink) are most
/// of the time at this size, where the column repair is a fixed cost on a sample.
fn anatomy_at_scale(c: &mut Criterion) {
    let mut group = c.benchmark_group("anatomy");
    group.sample_size(10);
    let db =
        QuestParams::new(1_000_000, 10.0, 4.0, 5000).seed(1).check().expect("valid").generate();
    let params = AnatomyParams::new(5, 4).seed(Some(1)).check().expect("valid");
    group.bench_with_input(BenchmarkId::new("publish", "quest-1M/c5-l4"), &db, |b, db| {
        b.iter(|| {
            let published = anonymize(black_box(db), &params).expect("feasible");
            published.table.write_json(&mut std::io::sink()).expect("written");
            published
        })
    });
    // The audit alone, as `anonymize` runs it: the table, the flattened records and the
    // original.
    let published = anonymize(&db, &params).expect("feasible");
    let claim = AnatomyClaim::new(4, Diversity::Frequency).expect("valid");
    group.bench_function(BenchmarkId::new("audit", "quest-1M/c5-l4"), |b| {
        b.iter(|| {
            audit(black_box(&published.table), &claim, Some(&published.flattened), Some(&db))
                .expect("passes")
        })
    });
    // The table's JSON alone, into memory (about 59 MB): formatting, not the kernel's copy.
    let size = published.table.to_json().len();
    group.throughput(Throughput::Bytes(size as u64));
    group.bench_function(BenchmarkId::new("table-json", "quest-1M/c5-l4"), |b| {
        b.iter(|| {
            let mut json = Vec::with_capacity(size);
            black_box(&published.table).write_json(&mut json).expect("in memory");
            json
        })
    });
    group.finish();
}

criterion_group!(benches, anatomy, anatomy_at_scale);
criterion_main!(benches);
