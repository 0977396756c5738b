"""A run shows its phases to a callback, and stops at its next checkpoint on Ctrl-C or when the
callback raises: the exception reaches the caller within about a second."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

import txanon


def test_the_callback_sees_the_phases_the_cli_shows(quest_large):
    table = txanon.read(quest_large)
    calls: list[tuple[str, int, int]] = []
    txanon.anonymize.cahd(table, p=10, sensitive_random=10, seed=1, progress=lambda *c: calls.append(c))
    phases = [c[0] for c in calls]
    assert any(p.startswith("cahd: grouping") for p in phases), phases
    assert all(done <= total for _, done, total in calls if total), calls
    # Each phase's count only grows between calls.
    for (p1, d1, _), (p2, d2, _) in zip(calls, calls[1:]):
        assert p1 != p2 or d2 >= d1


def test_a_callback_that_raises_stops_the_run(quest_large):
    table = txanon.read(quest_large)

    def stop(phase: str, done: int, total: int) -> None:
        raise RuntimeError(f"stopped at {phase}")

    started = time.perf_counter()
    with pytest.raises(RuntimeError, match="stopped at"):
        txanon.anonymize.cahd(table, p=10, sensitive_random=10, seed=1, progress=stop)
    assert time.perf_counter() - started < 2.0


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals")
def test_ctrl_c_stops_a_long_run_within_a_second(quest_large):
    table = txanon.read(quest_large)
    started = time.perf_counter()
    full = time.perf_counter()
    txanon.anonymize.cahd(table, p=10, sensitive_random=10, seed=1)
    full = time.perf_counter() - full
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    started = time.perf_counter()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        txanon.anonymize.cahd(table, p=10, sensitive_random=10, seed=1)
    stopped = time.perf_counter() - started
    timer.join()
    assert full > 2.0, f"the run takes {full:.1f} s: too short to interrupt meaningfully"
    assert stopped < 0.5 + 1.0, f"stopped {stopped - 0.5:.2f} s after Ctrl-C (a full run: {full:.1f} s)"
    # The process goes on: the next run works.
    assert txanon.anonymize.km(table.slice(0, 1000), k=2, m=1, seed=1).tables["published"].num_rows == 1000


def test_progress_true_without_tqdm_prints_phases(quest_large, capsys, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name.startswith("tqdm"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    table = txanon.read(quest_large)
    txanon.anonymize.cahd(table, p=10, sensitive_random=10, seed=1, progress=True)
    # A run of seconds shows its phases, each once, as lines.
    lines = capsys.readouterr().err.splitlines()
    assert any(line == "txanon: cahd: grouping (transactions in band order)" for line in lines), lines
    assert all(line.startswith("txanon: ") for line in lines), lines
    assert len(lines) == len(set(lines)), lines
