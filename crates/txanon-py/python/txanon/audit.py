"""Each family's independent audit, named and bounded as ``txanon audit <family>``.

Every function takes a publication: a directory written by ``txanon anonymize`` or
:meth:`txanon.Publication.write`, or a :class:`txanon.Publication` (written to a temporary
directory first, so that the audit reads exactly the files a reader would), and the auditor's
own claim: the parameters to verify, the items the auditor considers sensitive, the original
when the auditor has it (a path or Arrow data, like the data of a run).

The manifest is verified first: every file listed, none missing, none changed. Then the
family's audit, which shares no code with its algorithm, checks the claim from every published
file. It returns the report (a dict, with the manifest's check under ``manifest``), or raises
:class:`txanon.AuditFailed` carrying the violations as :class:`txanon.Violation` objects (a
manifest that does not verify is one violation of kind ``manifest``).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from typing import Any, Iterable, Iterator, Literal, Union

from . import _txanon
from ._data import Data, arrow_or_path, labels
from ._txanon import Publication

__all__ = ["anatomy", "cahd", "coherence", "km", "slicing", "swap"]

#: A publication directory, or a publication made in memory.
Published = Union[str, "os.PathLike[str]", Publication]


@contextlib.contextmanager
def _directory(publication: Published) -> Iterator[str]:
    if isinstance(publication, Publication):
        with tempfile.TemporaryDirectory(prefix="txanon-audit-") as scratch:
            yield publication.write(os.path.join(scratch, "publication"))
    else:
        yield os.fspath(publication)


def _original(original: Data | None) -> Any:
    return None if original is None else arrow_or_path(original)


def cahd(
    publication: Published,
    *,
    p: int,
    sensitive: Iterable[str | int],
    original: Data | None = None,
) -> dict[str, Any]:
    """Verifies privacy degree ``p`` for the ``sensitive`` items of CAHD's publication: none
    among the QID items, none linked to a transaction with probability above 1/p; with the
    ``original``, the groups hold exactly its QID itemsets and sensitive occurrences."""
    with _directory(publication) as d:
        return _txanon.audit_cahd(
            d, p=p, sensitive=labels(sensitive) or [], original_=_original(original)
        )


def km(
    publication: Published,
    *,
    k: int,
    m: int,
    hierarchy: str | os.PathLike[str] | None = None,
    original: Data | None = None,
) -> dict[str, Any]:
    """Verifies kᵐ-anonymity (every itemset of at most ``m`` published items in at least ``k``
    transactions or none) over the auditor's ``hierarchy`` (the publication's hierarchy.txt by
    default), the published cut, and with the ``original`` that every transaction is its
    original generalized to the cut."""
    with _directory(publication) as d:
        return _txanon.audit_km(d, k=k, m=m, hierarchy=hierarchy, original_=_original(original))


def coherence(
    publication: Published,
    *,
    h: float,
    k: int,
    p: int,
    sensitive: Iterable[str | int],
    original: Data | None = None,
) -> dict[str, Any]:
    """Verifies (h,k,p)-coherence for the ``sensitive`` (private) items: every itemset of at
    most ``p`` public items in no transaction or at least ``k``, and none inferring a private
    item with probability above ``h``; with the ``original``, only whole public items
    suppressed."""
    with _directory(publication) as d:
        return _txanon.audit_coherence(
            d, h=h, k=k, p=p, sensitive=labels(sensitive) or [], original_=_original(original)
        )


def anatomy(
    publication: Published,
    *,
    l: int,  # noqa: E741 (the paper's and the CLI's name)
    diversity: Literal["frequency", "distinct"] = "frequency",
    original: Data | None = None,
) -> dict[str, Any]:
    """Verifies l-diversity in every bucket and column of the anatomized table, and that the
    flattened records are the table's; with the ``original``, that the table is made of it."""
    with _directory(publication) as d:
        return _txanon.audit_anatomy(
            d, l=l, diversity=diversity, original_=_original(original)
        )


def swap(
    publication: Published,
    *,
    original: Data,
    categories: str | os.PathLike[str],
    key: str | os.PathLike[str],
    method: Literal[
        "partswap", "fullswap", "both", "randswap", "partsupp", "splitperson"
    ] = "partswap",
    max_exposed: int = 0,
    ties: Literal["first", "all"] = "first",
) -> dict[str, Any]:
    """Verifies a swap publication against the ``original``, its ``categories`` and the data
    holder's ``key``: the items are the original's, the swaps are true swaps, and at most
    ``max_exposed`` records still show their tendency beyond the method's design."""
    with _directory(publication) as d:
        return _txanon.audit_swap(
            d,
            original_=arrow_or_path(original),
            categories=categories,
            key=key,
            method=method,
            max_exposed=max_exposed,
            ties=ties,
        )


def slicing(
    publication: Published,
    *,
    original: str | os.PathLike[str],
    schema: str | os.PathLike[str],
    l: int,  # noqa: E741 (the paper's and the CLI's name)
    k: int | None = None,
) -> dict[str, Any]:
    """Verifies ℓ-diversity of a slicing, Mondrian or Anatomy publication of the ``original``
    microdata (a CSV file and its ``schema``): every tuple's sensitive value inferred with
    probability at most 1/l, and the publication made of the original; a generalized table is
    audited for k-anonymity too (``k``)."""
    with _directory(publication) as d:
        return _txanon.audit_slicing(d, original_=original, schema=schema, l=l, k=k)
