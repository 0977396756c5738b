"""txanon: publish transaction data without exposing the people in it.

A thin typed layer over the Rust crates of txanon: each anonymization family
(:mod:`txanon.anonymize`), the independent audits (:mod:`txanon.audit`), Arrow tables in and
out. The data is a path to a file in any format the CLI reads, or Arrow data (a pyarrow Table,
a polars or pandas DataFrame, a DuckDB relation), handed over without copying its buffers::

    import txanon
    pub = txanon.anonymize.km("BMS1.dat", k=10, m=2)
    pub.tables["published"]          # a pyarrow Table
    pub.write("out/")                # the CLI's publication, with its manifest
    txanon.audit.km("out/", k=10, m=2, original="BMS1.dat")

Errors are :class:`BadInput` (a ``ValueError``), :class:`Infeasible`, :class:`AuditFailed`
(carrying its violations) and :class:`InternalError`, as the CLI's exit codes 2, 2, 3 and 1.
"""

from __future__ import annotations

import os
from typing import Any

from typing import Iterable, Sequence

from . import _txanon, anonymize, audit, generate
from ._data import Data, arrow_or_path, labels
from ._progress import Progress, watching
from ._txanon import Evaluation, Publication, __version__
from ._txanon import read as _read
from .errors import AuditFailed, BadInput, Infeasible, InternalError, TxanonError, Violation

__all__ = [
    "AuditFailed",
    "BadInput",
    "Data",
    "Evaluation",
    "Infeasible",
    "InternalError",
    "Publication",
    "TxanonError",
    "Violation",
    "__version__",
    "anonymize",
    "attack",
    "audit",
    "evaluate",
    "generate",
    "read",
]


def read(
    data: str | os.PathLike[str] | Any,
    *,
    format: str | None = None,
    tid_column: str | None = None,
    item_column: str | None = None,
) -> Any:
    """Reads transactions as the CLI does and returns them as a ``pyarrow.Table`` of one
    column ``items`` (``list<uint32>`` for integer items, else ``list<string>``).

    ``data`` is a path (FIMI, SPMF, basket CSV/TSV, Parquet, Arrow IPC; gzip) or Arrow data in
    the list or the long shape. ``format`` forces a format (the CLI's ``--from``);
    ``tid_column`` and ``item_column`` name the long shape's columns.
    """
    return _read(
        arrow_or_path(data), format=format, tid_column=tid_column, item_column=item_column
    )


def evaluate(
    data: Data,
    *,
    sensitive: Iterable[str | int] | None = None,
    sensitive_random: int | None = None,
    categories: str | os.PathLike[str] | None = None,
    random_categories: int | None = None,
    methods: Sequence[str] = ("anatomy", "cahd", "coherence", "km", "swap"),
    levels: Sequence[int] = (4, 8, 16),
    known: Sequence[int] = (1, 2, 3, 4),
    draws: int = 10,
    targets: int | None = None,
    supports: Sequence[float] = (0.01, 0.005),
    queries: int = 1000,
    anatomy_columns: int | None = None,
    coherence_p: int = 2,
    km_m: int = 2,
    threat: Sequence[str] | None = None,
    max_risk: float | None = None,
    progress: Progress = None,
    seed: int | None = None,
    format: str | None = None,
    tid_column: str | None = None,
    item_column: str | None = None,
) -> Evaluation:
    """Every method at matched privacy levels on one dataset, attacked by one adversary and
    measured on one utility yardstick, as ``txanon evaluate`` does.

    Each level L is matched as "one in L" (anatomy's l, CAHD's p, coherence's k with h = 1/L,
    km's k); the adversary knows ``known`` of a target's public items (``draws`` random draws
    each, over every target or a sample of ``targets``); utility is frequent-itemset F1 at
    ``supports``, a workload of ``queries`` count queries, rules and item loss. ``sensitive``
    (or ``sensitive_random``) names the sensitive items; swapping needs ``categories`` (a
    file) or ``random_categories``.

    ``threat`` (``reidentification``, ``sensitive``, ``tendency``) and ``max_risk`` ask for a
    decision: the publication that keeps the most utility among those whose mean risk stays at
    or below ``max_risk`` against every named threat for every ``known`` q, the runner-up and
    why it lost, or the budget the safest would meet, with the ``txanon anonymize`` command that
    makes it (``Evaluation.decision``; first in the report).

    Returns an :class:`Evaluation`: ``points``, ``frontier`` and ``guarantees`` as pyarrow
    Tables, ``results`` (results.json) as a dict, ``html`` (the report), and ``write(dir)``,
    the CLI's directory. ``seed`` seeds every publication, the attack's draws and the workload.
    """
    with watching(progress) as callback:
        return _txanon.evaluate(
            arrow_or_path(data),
            sensitive_=labels(sensitive),
            sensitive_random=sensitive_random,
            categories=categories,
            random_categories=random_categories,
            methods=list(methods),
            levels=list(levels),
            known=list(known),
            draws=draws,
            targets=targets,
            supports=list(supports),
            queries=queries,
            anatomy_columns=anatomy_columns,
            coherence_p=coherence_p,
            km_m=km_m,
            threat=None if threat is None else list(threat),
            max_risk=max_risk,
            progress=callback,
            seed_=seed,
            format=format,
            tid_column=tid_column,
            item_column=item_column,
        )


def attack(
    publication: Publication,
    *,
    sensitive: Iterable[str | int] | None = None,
    known: Sequence[int] = (1, 2, 3, 4),
    draws: int = 10,
    targets: int | None = None,
    seed: int | None = None,
) -> Any:
    """The common adversary of ``txanon evaluate`` on one publication made in this process: it
    knows ``known`` of a target's public items (``draws`` random draws per target, over every
    target or a sample of ``targets``) and reads the publication as its method's paper does.

    Returns a pyarrow Table with a row per number of known items and adversary
    (``reidentification``, ``sensitive-inference``, and ``tendency-inference`` for swapping):
    targets, mean, p95, p99 and max risk, and the shares of targets above 1/2, 1/5 and 1/10.
    ``sensitive`` names the sensitive items for methods that do not (anatomy, km); CAHD's and
    coherence's own are used otherwise. The attack needs whose record went where, which only
    the process that made the publication knows (kept in memory, never written): a publication
    read back from a directory cannot be attacked. ``seed`` seeds the draws (0 by default).
    """
    return _txanon.attack(
        publication,
        sensitive=labels(sensitive),
        known=list(known),
        draws=draws,
        targets=targets,
        seed_=seed,
    )
