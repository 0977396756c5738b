"""Each family's anonymization, named and bounded as ``txanon anonymize <family>``.

Every function takes the data (a path, or Arrow data: see :data:`txanon.Data`), the family's
parameters as keyword arguments named as the CLI's options, and ``seed``: ``None`` (the
default) draws the randomness from the operating system (256 bits), so two runs publish
differently; a seed repeats a run byte for byte, keyed with the data, and is the data holder's
secret: it is never written into a publication.

Each returns a :class:`txanon.Publication` that has passed its family's audit against the data;
``Publication.write(dir)`` writes it as the CLI would. Bad arguments raise
:class:`txanon.BadInput` with the CLI's message; valid ones the data cannot meet raise
:class:`txanon.Infeasible`. The GIL is released while the work runs.

``progress`` shows the run's phases: a callable ``(phase, done, total)``, called every 50 ms while
the phase moves, or ``True`` for a tqdm bar (plain lines without tqdm). Ctrl-C stops a run at
its next checkpoint and raises ``KeyboardInterrupt``; so does an exception the callback raises.

``format``, ``tid_column`` and ``item_column`` say how to read the data, as the CLI's
``--from``, ``--tid-column`` and ``--item-column``: the long shape's column names, say.
"""

from __future__ import annotations

import os
from typing import Iterable, Literal, Sequence

from . import _txanon
from ._data import Data, arrow_or_path, labels
from ._progress import Progress, watching
from ._txanon import Publication
from .errors import BadInput

__all__ = ["anatomy", "cahd", "coherence", "km", "slicing", "swap"]


def cahd(
    data: Data,
    *,
    p: int,
    sensitive: Iterable[str | int] | None = None,
    sensitive_random: int | None = None,
    alpha: int = 3,
    band: Literal["aat", "sym-pad", "none"] = "aat",
    progress: Progress = None,
    seed: int | None = None,
    format: str | None = None,
    tid_column: str | None = None,
    item_column: str | None = None,
) -> Publication:
    """CAHD: transactions reordered into a band, grouped so that no sensitive item is linked to
    a transaction with probability above 1/p; the QID items published per group (table ``qid``)
    with the group's sensitive-item counts (``groups.json``).

    ``sensitive`` names the sensitive items (labels); or ``sensitive_random`` draws that many.
    ``p`` is the privacy degree (2 or more), ``alpha`` the candidate factor (α·p neighbours on
    each side), ``band`` the order: ``aat`` (RCM over shared QID items, the paper's),
    ``sym-pad`` or ``none`` (input order, the baseline).
    """
    with watching(progress) as callback:
        return _txanon.anonymize_cahd(
            arrow_or_path(data),
            p=p,
            sensitive_=labels(sensitive),
            sensitive_random=sensitive_random,
            alpha=alpha,
            band=band,
            progress=callback,
            seed_=seed,
            format=format,
            tid_column=tid_column,
            item_column=item_column,
        )


def km(
    data: Data,
    *,
    k: int,
    m: int,
    hierarchy: str | os.PathLike[str] | None = None,
    fanout: int = 5,
    build: Literal["order", "cooccurrence"] = "order",
    algorithm: Literal["aa", "da", "oa"] = "aa",
    max_cuts: int = 1_000_000,
    max_combinations: int = 200_000_000,
    progress: Progress = None,
    seed: int | None = None,
    format: str | None = None,
    tid_column: str | None = None,
    item_column: str | None = None,
) -> Publication:
    """kᵐ-anonymity: every item generalized along a hierarchy to one cut, the same for every
    transaction, until no adversary knowing ``m`` items finds fewer than ``k`` transactions.

    ``hierarchy`` is a file of ``child parent`` lines; without it one of fanout ``fanout`` is
    built (``build``: ``order``, the paper's, or ``cooccurrence``). ``algorithm``: ``aa``
    (Apriori Anonymization), ``da`` (Direct) or ``oa`` (Optimal; small hierarchies, at most
    ``max_cuts`` cuts). ``max_combinations`` refuses, before the work, a counting pass that
    could hold more itemsets. Publishes ``published``, ``cut.txt`` and ``hierarchy.txt``.
    """
    with watching(progress) as callback:
        return _txanon.anonymize_km(
            arrow_or_path(data),
            k=k,
            m=m,
            hierarchy=hierarchy,
            fanout=fanout,
            build=build,
            algorithm=algorithm,
            max_cuts=max_cuts,
            max_combinations=max_combinations,
            progress=callback,
            seed_=seed,
            format=format,
            tid_column=tid_column,
            item_column=item_column,
        )


def coherence(
    data: Data,
    *,
    h: float,
    k: int,
    p: int,
    nugget_support: int | float | str,
    sensitive: Iterable[str | int] | None = None,
    sensitive_random: int | None = None,
    engine: Literal["counting", "border-edges", "enumerate"] = "counting",
    max_itemsets: int = 1_000_000_000_000,
    progress: Progress = None,
    seed: int | None = None,
    format: str | None = None,
    tid_column: str | None = None,
    item_column: str | None = None,
) -> Publication:
    """(h,k,p)-coherence: public items suppressed until no attacker knowing ``p`` of them
    narrows a person to fewer than ``k`` transactions or infers a private item above ``h``,
    keeping as many nuggets (itemsets at least ``nugget_support`` frequent) as it can.

    ``sensitive`` names the private items (the paper's word); or ``sensitive_random`` draws
    that many. ``nugget_support`` is a count (``50``), a fraction (``0.001``) or a percentage
    (``"0.1%"``), as the CLI's ``--nugget-support``. ``engine``: ``counting`` (the default),
    ``border-edges`` (the paper's) or ``enumerate`` (the reference). Publishes ``published`` and
    ``suppressed.json``.
    """
    with watching(progress) as callback:
        return _txanon.anonymize_coherence(
            arrow_or_path(data),
            h=h,
            k=k,
            p=p,
            nugget_support=nugget_support,
            sensitive_=labels(sensitive),
            sensitive_random=sensitive_random,
            engine=engine,
            max_itemsets=max_itemsets,
            progress=callback,
            seed_=seed,
            format=format,
            tid_column=tid_column,
            item_column=item_column,
        )


def anatomy(
    data: Data,
    *,
    columns: int,
    l: int,  # noqa: E741 (the paper's and the CLI's name)
    diversity: Literal["frequency", "distinct"] = "frequency",
    partitioning: Literal["repaired", "clustered", "diverse"] | None = None,
    headroom: float | None = None,
    item_columns: Sequence[Sequence[str | int]] | None = None,
    progress: Progress = None,
    seed: int | None = None,
    format: str | None = None,
    tid_column: str | None = None,
    item_column: str | None = None,
) -> Publication:
    """Multi-dimension anatomy with l-diversity: items clustered into ``columns`` columns,
    records into l-diverse buckets, columns permuted within buckets.

    ``diversity``: ``frequency`` (no value above 1/l of a bucket and column, Definition 5) or
    ``distinct``. ``partitioning``: ``repaired`` (the default: k-medoids repaired so every
    column admits l, aiming ``headroom``, default 0.25, below the bound), ``clustered`` (the
    paper's k-medoids alone) or ``diverse``. Or ``item_columns``: the partition to publish
    under, one list of item labels per column (a published ``table.json``'s columns, say);
    every item of the data must be in one, labels the data lacks are passed over, and
    ``partitioning`` and ``headroom`` are then refused. Publishes ``table.json`` and the
    flattened records ``anonymized``.
    """
    with watching(progress) as callback:
        return _txanon.anonymize_anatomy(
            arrow_or_path(data),
            columns=columns,
            l=l,
            diversity=diversity,
            partitioning=partitioning,
            headroom=headroom,
            item_columns=_item_columns(item_columns),
            progress=callback,
            seed_=seed,
            format=format,
            tid_column=tid_column,
            item_column=item_column,
        )


def _item_columns(columns: Sequence[Sequence[str | int]] | None) -> list[list[str]] | None:
    """The given columns as lists of labels (integer items are labelled by their number)."""
    if columns is None:
        return None
    if isinstance(columns, (str, bytes)) or not all(
        isinstance(c, Sequence) and not isinstance(c, (str, bytes)) for c in columns
    ):
        raise BadInput("item_columns: give one list of item labels per column")
    return [labels(c) or [] for c in columns]


def swap(
    data: Data,
    *,
    method: Literal[
        "partswap", "fullswap", "both", "randswap", "partsupp", "splitperson"
    ] = "partswap",
    categories: str | os.PathLike[str] | None = None,
    random_categories: int | None = None,
    max_exposed: int = 0,
    ties: Literal["first", "all"] = "first",
    window: int | None = None,
    key_out: str | os.PathLike[str] | None = None,
    progress: Progress = None,
    seed: int | None = None,
    format: str | None = None,
    tid_column: str | None = None,
    item_column: str | None = None,
) -> Publication:
    """Hiding personal tendency: each record's dominant category swapped with a dissimilar
    record's (``partswap``, ``fullswap``, ``both``) or a baseline (``randswap``, ``partsupp``,
    ``splitperson``).

    ``categories`` is a file of ``item category`` lines; or ``random_categories`` draws that
    many (published as ``categories.txt``). ``window`` bounds partial swapping's search.
    ``key_out`` writes the key (the input record of every published record; secret, mode 0600,
    never inside a publication), which ``txanon audit swap --key`` reads.
    """
    with watching(progress) as callback:
        return _txanon.anonymize_swap(
            arrow_or_path(data),
            method=method,
            categories=categories,
            random_categories=random_categories,
            max_exposed=max_exposed,
            ties=ties,
            window=window,
            key_out=key_out,
            progress=callback,
            seed_=seed,
            format=format,
            tid_column=tid_column,
            item_column=item_column,
        )


def slicing(
    data: str | os.PathLike[str],
    *,
    schema: str | os.PathLike[str],
    l: int,  # noqa: E741 (the paper's and the CLI's name)
    method: Literal["slicing", "mondrian", "anatomy"] = "slicing",
    k: int | None = None,
    columns: int | None = None,
    sensitive_alone: bool = False,
    column_spec: str | None = None,
    generalize: int | None = None,
    cut: Literal["first", "any"] = "first",
    bins: int = 10,
    attributes: Iterable[str] | None = None,
    progress: Progress = None,
    seed: int | None = None,
) -> Publication:
    """Slicing of relational microdata (a CSV file and its JSON ``schema``, exactly one
    attribute sensitive): attributes grouped into columns, tuples into buckets in which every
    column is permuted, so that no tuple's sensitive value is inferred above 1/l; or a
    baseline, ``mondrian`` (generalization to k-anonymity and l-diversity) or ``anatomy``.

    Slicing's columns are ``columns`` (k-medoids on 1 − φ², ``sensitive_alone`` keeping the
    sensitive attribute in a column of its own) or ``column_spec`` (``"Age,Sex;Zipcode,Disease"``);
    ``generalize`` makes every column value occur at least that many times; ``cut`` is what a
    failed bucket cut does (``first``: the paper's, the bucket is final; ``any``: try the next
    attribute); ``bins`` the intervals of a numeric attribute for φ². ``attributes`` publishes a
    subset. Options a method does not use are refused. Publishes ``sliced.csv`` and
    ``sliced.json`` (or the baselines' tables) as documents.
    """
    with watching(progress) as callback:
        return _txanon.anonymize_slicing(
            data,
            schema=schema,
            l=l,
            method=method,
            k=k,
            columns=columns,
            sensitive_alone=sensitive_alone,
            column_spec=column_spec,
            generalize=generalize,
            cut=cut,
            bins=bins,
            attributes=None if attributes is None else list(attributes),
            progress=callback,
            seed_=seed,
        )
