//! The attack over every target of a publication of records, q = 1…4, 10 draws each: the
//! issue's target is BMS-WebView-2 in under 30 s; here a Quest database of its shape
//! (77,512 transactions, 3,340 items, about 4.6 items each) so that the bench needs no
//! download, and BMS-WebView-2 itself when it is found; retail's records too, when found: its
//! frequent items' record lists are what the intersections of several known items spend their
//! time on.

use criterion::{Criterion, criterion_group, criterion_main};
use txanon_attack::{AttackParams, Own, Target, Value, ViewBuilder, attack};
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
    for (name, db) in &inputs {
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
