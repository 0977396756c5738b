//! Parallel maps over tasks of very unequal cost, such as a count tree's branches on skewed
//! data.
//!
//! Rayon splits an iterator into halves only while a worker is idle to steal one: once a
//! worker folds a run of tasks on its own, none of them can move. When the costly tasks sit
//! together (the first ranks of a count tree, the items of most support), one worker ends up
//! with all of them while the other waits; at kosarak-shaped 10⁷ transactions km's 3-itemset
//! passes ran at 1.1 cores that way. [`map_largest_first`] hands out one task at a time from a
//! shared queue instead, the costliest first, so a worker that finishes takes the next one.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

/// `f` applied to each task, on rayon's workers, returned in the tasks' order.
///
/// The tasks are taken one at a time from a queue in decreasing `cost` (ties in the tasks'
/// order), so the last task started is among the cheapest. Each worker makes one state with
/// `init` and passes it to every task it runs: a scratch table costly to build is built once
/// per worker, not once per task.
pub fn map_largest_first<T, S, R>(
    tasks: Vec<T>,
    cost: impl Fn(&T) -> u64,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, T) -> R + Sync,
) -> Vec<R>
where
    T: Send,
    R: Send,
{
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    // Stable: equal costs keep the tasks' order.
    order.sort_by_key(|&i| std::cmp::Reverse(cost(&tasks[i])));
    // Each task is taken once, by value: a lock per task, never contended.
    let tasks: Vec<Mutex<Option<T>>> = tasks.into_iter().map(|t| Mutex::new(Some(t))).collect();
    let next = AtomicUsize::new(0);
    let workers = rayon::current_num_threads().min(tasks.len()).max(1);
    let done: Vec<Vec<(usize, R)>> = (0..workers)
        .into_par_iter()
        .map(|_| {
            let mut state: Option<S> = None;
            let mut done = Vec::new();
            loop {
                let taken = next.fetch_add(1, Ordering::Relaxed);
                let Some(&i) = order.get(taken) else { break };
                let task = tasks[i].lock().unwrap_or_else(|e| e.into_inner()).take();
                let state = state.get_or_insert_with(&init);
                done.extend(task.map(|task| (i, f(state, task))));
            }
            done
        })
        .collect();
    let mut results: Vec<(usize, R)> = done.into_iter().flatten().collect();
    results.sort_unstable_by_key(|&(i, _)| i);
    results.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn results_come_in_the_tasks_order() {
        let tasks: Vec<u64> = (0..1000).map(|i| (i * 7919) % 1009).collect();
        let squares = map_largest_first(tasks.clone(), |&t| t, || (), |_, t| t * t);
        assert_eq!(squares, tasks.iter().map(|t| t * t).collect::<Vec<_>>());
        let none: Vec<u64> = map_largest_first(Vec::new(), |&t: &u64| t, || (), |_, t| t);
        assert!(none.is_empty());
    }

    #[test]
    fn tasks_start_costliest_first_with_a_state_per_worker() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let started = Mutex::new(Vec::new());
        let states = Mutex::new(0);
        let tasks = [3u64, 9, 1, 9, 5];
        pool.install(|| {
            map_largest_first(
                tasks.to_vec(),
                |&t| t,
                || *states.lock().unwrap() += 1,
                |_, t| started.lock().unwrap().push(t),
            )
        });
        assert_eq!(*started.lock().unwrap(), [9, 9, 5, 3, 1]);
        assert_eq!(*states.lock().unwrap(), 1);
    }

    #[test]
    fn a_costly_run_of_tasks_is_shared_between_workers() {
        // The costly tasks first, as a count tree's first branches: a split of the range
        // would leave them all on one worker. Each costly task waits (30 s at most) for a
        // second one to start beside it, which only another worker can do.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let tasks: Vec<u64> = (0..64).map(|i| u64::from(i < 8)).collect();
        let running = (Mutex::new(0usize), std::sync::Condvar::new());
        let met = pool.install(|| {
            map_largest_first(
                tasks,
                |&t| t,
                || (),
                |_, t| {
                    if t == 0 {
                        return true;
                    }
                    let mut count = running.0.lock().unwrap();
                    *count += 1;
                    running.1.notify_all();
                    let wait = std::time::Duration::from_secs(30);
                    let (count, _) = running.1.wait_timeout_while(count, wait, |c| *c < 2).unwrap();
                    *count >= 2
                },
            )
        });
        assert!(met[..8].iter().all(|&m| m), "{met:?}");
    }
}
