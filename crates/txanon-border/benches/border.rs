//! Counting through borders: W over the paper's edges and over blocks, on borders drawn from
//! Quest data (maximal sets: distinct transactions; minimal sets: pairs inside them).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use txanon_border::{AllItemsets, Edge, Itemset, count, count_blocks_per_item, maximal_only};
use txanon_data::QuestParams;

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

criterion_group!(benches, border);
criterion_main!(benches);
