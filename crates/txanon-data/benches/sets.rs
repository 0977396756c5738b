//! Sorted-set intersection: merge against galloping, at length ratios from 1 to 256, on seeded
//! random sets (the choice [`txanon_data::sets::intersection_len`] makes is measured here).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use txanon_data::sets::{galloping_intersection_len, intersection_len, merge_intersection_len};

/// `len` distinct values drawn from `0..universe`, sorted.
fn sorted_set(len: usize, universe: u32, rng: &mut ChaCha8Rng) -> Vec<u32> {
    let mut set = std::collections::BTreeSet::new();
    while set.len() < len {
        set.insert(rng.random_range(0..universe));
    }
    set.into_iter().collect()
}

fn bench(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut group = c.benchmark_group("intersection_len");
    let short = 64;
    for ratio in [1usize, 4, 8, 16, 32, 64, 256] {
        let long = short * ratio;
        let universe = (long * 4) as u32;
        let (a, b) = (sorted_set(short, universe, &mut rng), sorted_set(long, universe, &mut rng));
        group.bench_with_input(BenchmarkId::new("merge", ratio), &(&a, &b), |bench, (a, b)| {
            bench.iter(|| merge_intersection_len(black_box(a), black_box(b)))
        });
        group.bench_with_input(BenchmarkId::new("gallop", ratio), &(&a, &b), |bench, (a, b)| {
            bench.iter(|| galloping_intersection_len(black_box(a), black_box(b)))
        });
        group.bench_with_input(BenchmarkId::new("chosen", ratio), &(&a, &b), |bench, (a, b)| {
            bench.iter(|| intersection_len(black_box(a), black_box(b)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
