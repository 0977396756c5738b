//! End-to-end anatomization (correlate, cluster, partition, publish, without reading the file)
//! on the T40I10D100K sample when found, and always on a Quest T10I4D100K stand-in, at the
//! largest l each admits with its item partition (see the crate docs on feasibility).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use txanon_anatomy::{AnatomyParams, anatomize};
use txanon_data::{QuestParams, ReadOptions, TransactionDb, datasets, read_path};

fn inputs() -> Vec<(String, TransactionDb, usize, usize)> {
    let quest =
        QuestParams::new(100_000, 10.0, 4.0, 500).seed(0).check().expect("valid").generate();
    let mut inputs = vec![("quest-T10I4D100K-N500 p5 l2".to_string(), quest, 5, 2)];
    match datasets::locate_verified("t40-sample") {
        Ok(Some(p)) => {
            let db = read_path(&p, &ReadOptions::new()).expect("readable").0;
            inputs.push(("T40I10D100K-sample p20 l2".into(), db, 20, 2));
        }
        _ => eprintln!("T40I10D100K-sample not found: benchmarking generated data only"),
    }
    inputs
}

fn anatomy(c: &mut Criterion) {
    let mut group = c.benchmark_group("anatomy");
    group.sample_size(10);
    for (name, db, columns, l) in inputs() {
        let params = AnatomyParams::new(columns, l).seed(Some(1)).check().expect("valid");
        group.bench_with_input(BenchmarkId::new("anatomize", &name), &db, |b, db| {
            b.iter(|| anatomize(black_box(db), &params).expect("feasible"))
        });
    }
    group.finish();
}

criterion_group!(benches, anatomy);
criterion_main!(benches);
