//! The attack over every target of a publication of records, q = 1…4, 10 draws each: the
//! issue's target is BMS-WebView-2 in under 30 s; here a Quest database of its shape
//! (77,512 transactions, 3,340 items, about 4.6 items each) so that the bench needs no
//! download, and BMS-WebView-2 itself when it is found; retail's records too, when found: its
//! frequent items' record lists are what the intersections of several known items spend their
//! time on. Generalized records (kᵐ-anonymity's view) read through the generalization beside
//! the same records expanded.

use criterion::{Criterion, criterion_group, criterion_main};
use txanon_attack::{
    AttackParams, Own, Target, ValidAttackParams, Value, ViewBuilder, attack, estimated_itemsets,
};
use txanon_data::{QuestParams, TransactionDb};

fn records(db: &TransactionDb) -> (txanon_attack::View, Vec<Target>) {
    let mut view = ViewBuilder::new(db.num_items());
    let mut targets = Vec::with_capacity(db.len());
    for t in db.iter() {
        let g = view.record(t, Vec::new()).expect("items of the database");
        targets.push(Target {
            public: t.iter().copied().filter(|&i| i % 50 != 0).collect(),
            sensitive: t.iter().copied().filter(|&i| i % 50 == 0).collect(),
            own: Some(Own { group: g, values: vec![Some(0)] }),
            labels: Vec::new(),
        });
    }
    (view.finish(), targets)
}

/// Buckets of 16 consecutive records with 10 factors (items by id modulo 10), the shape of an
/// anatomized table.
fn buckets(db: &TransactionDb) -> (txanon_attack::View, Vec<Target>) {
    let mut view = ViewBuilder::new(db.num_items());
    let mut targets = Vec::with_capacity(db.len());
    let rows: Vec<&[u32]> = db.iter().collect();
    for chunk in rows.chunks(16) {
        let factors = (0..10)
            .map(|f| {
                let mut values: Vec<Value> = Vec::new();
                for t in chunk {
                    let part: Vec<u32> = t.iter().copied().filter(|i| i % 10 == f).collect();
                    match values.iter_mut().find(|v| v.items == part) {
                        Some(v) => v.count += 1,
                        None => values.push(Value::new(part, 1)),
                    }
                }
                values
            })
            .collect();
        view.group(chunk.len() as u32, factors).expect("a bucket");
        for t in chunk {
            targets.push(Target {
                public: t.iter().copied().filter(|&i| i % 50 != 0).collect(),
                sensitive: t.iter().copied().filter(|&i| i % 50 == 0).collect(),
                own: None,
                labels: Vec::new(),
            });
        }
    }
    let view = view.finish();
    let mut k = 0;
    for (g, chunk) in rows.chunks(16).enumerate() {
        for t in chunk {
            targets[k].own = view.locate(g as u32, t);
            k += 1;
        }
    }
    (view, targets)
}

/// kᵐ-anonymity's shape: each run of 25 consecutive item ids published as one generalized
/// item. The records as published, read through the generalization, against the same records
/// expanded to every item below their generalized ones (how the evaluation built km's view
/// before the reading): the view built and every target attacked.
fn generalized(db: &TransactionDb, params: &ValidAttackParams, read_through: bool) -> usize {
    const FANOUT: u32 = 25;
    let covered = db.num_items().div_ceil(FANOUT as usize);
    let mut view = ViewBuilder::new(if read_through { covered } else { db.num_items() });
    let mut targets = Vec::with_capacity(db.len());
    let mut row = Vec::new();
    for t in db.iter() {
        row.clear();
        row.extend(t.iter().map(|&i| i / FANOUT));
        row.dedup();
        if !read_through {
            let below: Vec<u32> = row
                .iter()
                .flat_map(|&g| g * FANOUT..((g + 1) * FANOUT).min(db.num_items() as u32))
                .collect();
            row = below;
        }
        let g = view.record(&row, Vec::new()).expect("items of the view");
        targets.push(Target {
            public: t.iter().copied().filter(|&i| i % 50 != 0).collect(),
            sensitive: t.iter().copied().filter(|&i| i % 50 == 0).collect(),
            own: Some(Own { group: g, values: vec![Some(0)] }),
            labels: Vec::new(),
        });
    }
    let view = if read_through {
        let reading = (0..db.num_items() as u32).map(|i| Some(i / FANOUT)).collect();
        view.finish().read_through(reading).expect("a reading of the view's items")
    } else {
        view.finish()
    };
    attack(&view, &targets, params).unwrap().targets
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("attack");
    group.sample_size(10);
    let quest = QuestParams::new(77_512, 4.6, 2.0, 3_340).seed(1).check().unwrap().generate();
    let mut inputs = vec![("quest-bms2-shape", quest)];
    if let Some(path) = txanon_data::datasets::locate("bms2") {
        inputs
            .push(("BMS-WebView-2", txanon_data::read_path(&path, &Default::default()).unwrap().0));
    }
    let params = AttackParams::new().check().unwrap();
    if let Some(path) = txanon_data::datasets::locate("retail") {
        let db = txanon_data::read_path(&path, &Default::default()).unwrap().0;
        let (view, targets) = records(&db);
        group.bench_function("records/retail", |b| {
            b.iter(|| attack(&view, &targets, &params).unwrap())
        });
    }
    // The yardstick's estimated itemsets of records, on long transactions (T40I10D10K, 1%):
    // every candidate's support counted.
    let long = QuestParams::new(10_000, 40.0, 10.0, 1_000).seed(1).check().unwrap().generate();
    let (view, _) = records(&long);
    group.bench_function("itemsets/quest-t40-10k", |b| {
        b.iter(|| estimated_itemsets(&view, 100.0, 4, 1_000_000).unwrap().len())
    });
    for (name, db) in &inputs {
        for (read_through, how) in [(false, "expanded"), (true, "read-through")] {
            group.bench_function(format!("generalized-{how}/{name}"), |b| {
                b.iter(|| generalized(db, &params, read_through))
            });
        }
        let (view, targets) = records(db);
        group.bench_function(format!("records/{name}"), |b| {
            b.iter(|| attack(&view, &targets, &params).unwrap())
        });
        let (view, targets) = buckets(db);
        group.bench_function(format!("buckets/{name}"), |b| {
            b.iter(|| attack(&view, &targets, &params).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
