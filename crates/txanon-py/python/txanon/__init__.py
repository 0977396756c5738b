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

from . import anonymize, audit
from ._data import Data, arrow_or_path
from ._txanon import Publication, __version__
from ._txanon import read as _read
from .errors import AuditFailed, BadInput, Infeasible, InternalError, TxanonError, Violation

__all__ = [
    "AuditFailed",
    "BadInput",
    "Data",
    "Infeasible",
    "InternalError",
    "Publication",
    "TxanonError",
    "Violation",
    "__version__",
    "anonymize",
    "audit",
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
