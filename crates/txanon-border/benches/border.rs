//! Counting through borders: W over the paper's edges and over blocks, on borders drawn from
//! Quest data (maximal sets: distinct transactions; minimal sets: pairs inside them).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use txanon_border::{AllItemsets, Edge, Itemset, count, count_blocks_per_item, maximal_only};
use txanon_data::{ItemId, QuestParams};

fn blocks(n: usize, avg: f64) -> Vec<Itemset> {
    let db = QuestParams::new(n, avg, 4.0, 300).seed(1).check().expect("valid").generate();
    maximal_only(db.iter().map(<[u32]>::to_vec).filter(|t| !t.is_empty()).collect())
}

fn border(c: &mut Criterion) {
    let mut group = c.benchmark_group("border");
    group.sample_size(10);
    for (n, avg) in [(2000, 8.0), (2000, 16.0)] {
        let blocks = blocks(n, avg);
        let id = format!("quest-n{n}-t{avg}/blocks={}", blocks.len());
        group.bench_function(BenchmarkId::new("blocks-per-item-len3", &id), |b| {
            b.iter(|| {
                let mut out = vec![0i128; 300];
                count_blocks_per_item(black_box(&blocks), &[], 3, &AllItemsets, 1, &mut out)
                    .expect("fits");
                out
            })
        });
        // The paper's edges: ⟨{i, j}, β⟩ for the two smallest items of each block.
        let edges: Vec<Edge> = blocks
            .iter()
            .filter(|b| b.len() >= 2)
            .map(|b| Edge::new(b[..2].to_vec(), b.clone()))
            .collect();
        group.bench_function(BenchmarkId::new("edges-len3", &id), |b| {
            b.iter(|| count(black_box(&edges), &[], 3, &AllItemsets).expect("fits"))
        });
    }
    group.finish();
}

/// The algorithm `maximal_only` replaced, for the comparison: sets longest first, each checked
/// against the kept sets holding its least frequent item.
fn maximal_by_rarest_item(mut sets: Vec<Itemset>) -> Vec<Itemset> {
    sets.sort_unstable_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    sets.dedup();
    let mut frequency: std::collections::HashMap<ItemId, usize> = std::collections::HashMap::new();
    for s in &sets {
        for &i in s {
            *frequency.entry(i).or_default() += 1;
        }
    }
    let mut holding: std::collections::HashMap<ItemId, Vec<usize>> =
        std::collections::HashMap::new();
    let mut kept: Vec<Itemset> = Vec::with_capacity(sets.len());
    for s in sets {
        let covered = match s.iter().min_by_key(|i| frequency[i]) {
            // The empty set is below any kept set.
            None => !kept.is_empty(),
            Some(rarest) => {
                holding.get(rarest).is_some_and(|ids| ids.iter().any(|&k| is_subset(&s, &kept[k])))
            }
        };
        if !covered {
            for &i in &s {
                holding.entry(i).or_default().push(kept.len());
            }
            kept.push(s);
        }
    }
    kept
}

fn is_subset(a: &[u32], b: &[u32]) -> bool {
    txanon_data::sets::intersection_len(a, b) == a.len()
}

/// The maximal sets among Quest transactions (the coherence engine's `L`).
fn maximal(c: &mut Criterion) {
    let mut group = c.benchmark_group("maximal-only");
    group.sample_size(10);
    for n in [20_000usize, 100_000] {
        let db = QuestParams::new(n, 10.0, 4.0, 5000).seed(1).check().expect("valid").generate();
        let sets: Vec<Itemset> = db.iter().map(<[u32]>::to_vec).filter(|t| !t.is_empty()).collect();
        let id = format!("quest-n{n}-t10-i5000");
        group.bench_function(BenchmarkId::new("leapfrog-parallel", &id), |b| {
            b.iter(|| maximal_only(black_box(sets.clone())).len())
        });
        group.bench_function(BenchmarkId::new("rarest-item-index (before)", &id), |b| {
            b.iter(|| maximal_by_rarest_item(black_box(sets.clone())).len())
        });
    }
    group.finish();
}

criterion_group!(benches, border, maximal);
criterion_main!(benches);
