"""What the native module is handed: a path, or an object with ``__arrow_c_stream__``."""

from __future__ import annotations

import os
from typing import Any, Iterable, Union

#: What every function of txanon takes as data: a path to a file in any format the CLI reads, or
#: Arrow data in the list shape (one ``list<int>`` or ``list<string>`` column) or the long shape
#: (transaction id and item columns): a pyarrow Table or RecordBatchReader, a polars or pandas
#: DataFrame, a DuckDB relation, anything with ``__arrow_c_stream__``.
Data = Union[str, "os.PathLike[str]", Any]


def arrow_or_path(data: Any) -> Any:
    """``data`` as the native module takes it.

    Objects that speak the Arrow PyCapsule stream interface pass as they are (their buffers are
    not copied); older DuckDB relations are asked for their Arrow table.
    """
    if isinstance(data, (str, os.PathLike)) or hasattr(data, "__arrow_c_stream__"):
        return data
    if hasattr(data, "arrow") and callable(data.arrow):  # DuckDB relations before 1.1
        return data.arrow()
    return data


def labels(items: Iterable[Any] | None) -> list[str] | None:
    """Item labels as the data names them (integers written in decimal)."""
    if items is None:
        return None
    if isinstance(items, (str, bytes)):
        raise TypeError("sensitive: a list of item labels, not one string")
    return [str(i) for i in items]
