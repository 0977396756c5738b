"""Synthetic transactions, as ``txanon generate``: data that holds no person, for tests and
benchmarks.

``quest(...)`` is IBM's Quest generator (Agrawal and Srikant, VLDB 1994) with the CLI's options
and defaults, returned as a ``pyarrow.Table`` of one column ``items`` (``list<uint32>``). The
same options and seed give the same table as ``txanon generate quest`` writes. With ``part``,
it makes one part of a database too large for one process: ``transactions`` drawn from the
same model (the seed's item weights and patterns) from a random stream of the part's own, so
that parts can be made anywhere in any order (``txanon.spark.generate_quest`` makes one per
Spark partition); their union is a Quest database of that model, not the table one call makes
for the union's size.
"""

from __future__ import annotations

from typing import Any

from . import _txanon

__all__ = ["quest"]


def quest(
    *,
    transactions: int = 100_000,
    avg_len: float = 40.0,
    pattern_len: float = 10.0,
    items: int = 1000,
    patterns: int = 2000,
    correlation: float = 0.25,
    confidence: float = 0.75,
    confidence_var: float = 0.1,
    seed: int = 0,
    part: int | None = None,
) -> Any:
    """Quest transactions: ``transactions`` of mean length ``avg_len`` over ``items`` items,
    drawn from ``patterns`` potentially large itemsets of mean length ``pattern_len``
    (consecutive ones sharing a share ``correlation`` of their items, each kept whole with a
    mean probability ``confidence`` of variance ``confidence_var``). ``seed`` defaults to 0:
    synthetic data holds no person, and a fixed seed keeps it reproducible. ``part`` (0 or
    more) makes that part of a larger database instead (the module's docs)."""
    return _txanon.generate_quest(
        transactions=transactions,
        avg_len=avg_len,
        pattern_len=pattern_len,
        items=items,
        patterns=patterns,
        correlation=correlation,
        confidence=confidence,
        confidence_var=confidence_var,
        seed_=seed,
        part=part,
    )
