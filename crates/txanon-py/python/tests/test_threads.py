"""The GIL is released while the Rust crates work: two threads anonymize at once, and Python
keeps running meanwhile."""

from __future__ import annotations

import threading
import time

import txanon


def test_two_threads_at_once_publish_what_one_does(quest):
    table = txanon.read(quest)
    expected = txanon.anonymize.km(table, k=5, m=3, seed=3).tables["published"]
    results: dict[int, object] = {}

    def run(i: int) -> None:
        results[i] = txanon.anonymize.km(table, k=5, m=3, seed=3).tables["published"]

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(results[i].equals(expected) for i in range(2))


def test_python_runs_while_a_family_works(quest_large):
    table = txanon.read(quest_large)
    ticks = 0
    done = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    started = time.perf_counter()
    before = ticks
    txanon.anonymize.cahd(table, p=10, sensitive_random=10, seed=1)
    elapsed = time.perf_counter() - started
    during = ticks - before
    done.set()
    counter.join()
    # With the GIL held for the whole run the counter could not tick at all; free, it ticks
    # about once a millisecond.
    assert elapsed > 1.0, f"the run takes {elapsed:.2f} s: too short to tell"
    assert during > 100 * elapsed, (elapsed, during)
