"""txanon on Apache Spark: a DataFrame of transactions anonymized shard by shard on Spark's own
engine, and audited the same way.

``anonymize(df, method, ...)`` splits the transactions into shards (at random, keyed with a
secret salt, or by a column of the caller's), hands each shard to the family as Arrow data in
a task of its own (``repartitionById`` + ``mapInArrow``), and returns a
:class:`SparkPublication`: per shard, the files of exactly the publication directory ``txanon
anonymize`` writes (its manifest, its audit passed against the shard), as a DataFrame
``(shard, name, content)``. ``audit(publication, method,
...)`` runs the family's independent audit on every shard's files, and the original's shard
when given, and sums the violations.

Only DataFrame operations are used (no RDD), so it runs on Spark Connect and shared clusters;
the driver collects statistics only: each shard's counts, the distinct items with their
supports, each shard's ``summary.json`` and ``manifest.json``, and the violations an audit
finds. pyspark is an optional dependency, imported when a function here is called.

What holds for the union of the shards' publications, family by family, is in docs/SPARK.md:
anatomy, CAHD and swap publish groups that are local to a shard (anatomy's shards under one item
partition, built on the driver from a sample); coherence suppresses per shard
(each shard's publication meets the guarantee, so their union does), with the utility cost the
report states; kᵐ-anonymity generalizes every shard by one cut, the one the single machine finds
over the whole table, searched on the driver by the km crate from the shards' capped counts,
and is audited over the union.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import secrets
import tempfile
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Literal, Mapping

import pyarrow as pa
import pyarrow.compute  # noqa: F401 (pa.compute)

from .errors import AuditFailed, BadInput, Infeasible, InternalError, TxanonError, Violation

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = [
    "FAMILIES",
    "MAX_SHARD_BYTES",
    "SparkPublication",
    "anonymize",
    "audit",
    "generate_quest",
]

#: The families ``txanon.spark`` runs (slicing publishes relational microdata, not transactions).
FAMILIES = ("anatomy", "cahd", "coherence", "km", "swap")

#: The most bytes of item labels one shard may hold: a shard reaches its worker as Arrow data and
#: its published file comes back as one binary value, and an Arrow column holds at most 2 GiB in
#: one batch. Half of that leaves room for the file's separators and the manifest's rewrite.
MAX_SHARD_BYTES = 1 << 30

#: The largest integer item: txanon reads integer labels as 32-bit unsigned.
MAX_ITEM = (1 << 32) - 1

#: Coherence's suppression sets: one per shard (each shard's own greedy algorithm), or one over
#: every shard (the single machine's, decided on the driver from the shards' counts).
SUPPRESSIONS = ("per-shard", "global")

#: The transactions per shard when ``shards`` is not given.
DEFAULT_SHARD_RECORDS = 2_000_000

#: The columns of a Spark publication: per shard, every file of its publication directory.
FILES_SCHEMA = "shard int, name string, content binary"

#: Where a Spark publication says how it is sharded (beside each shard's directory, not in it).
SHARDS_FILE = "shards.json"

_AUDIT_SCHEMA = "shard int, kind string, details string"

# The published transaction file of each family, by the table name `Publication.tables` uses.
_PUBLISHED = {
    "anatomy": "anonymized",
    "cahd": "qid",
    "coherence": "published",
    "km": "published",
    "swap": "published",
}

# Each family's figure of what sharding costs, pooled over the shards: how the scaling
# experiment's `scaling-shards` table states it.
_UTILITY = {
    "anatomy": "ln_faked_records",
    "cahd": "reconstruction_error_r4",
    "coherence": "occurrences_suppressed_percent",
    "km": "ncp",
    "swap": "unmatched",
}


def _spark() -> tuple[Any, Any]:
    try:
        from pyspark.sql import DataFrame, functions, types
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(
            "txanon.spark needs pyspark (pip install 'pyspark>=4.1'); the rest of txanon does not"
        ) from error
    if not hasattr(DataFrame, "repartitionById"):  # pragma: no cover - depends on the environment
        # Every shard's rows reach one task by their shard's place (repartitionById, 4.1).
        import pyspark

        raise ImportError(
            f"txanon.spark needs pyspark 4.1 or newer (pip install 'pyspark>=4.1'); this is "
            f"pyspark {pyspark.__version__}"
        )
    return functions, types


@dataclass
class SparkPublication:
    """A publication made on Spark: every shard's publication directory as rows of ``files``.

    ``files`` is a DataFrame ``(shard, name, content)``: for each shard every file of the
    directory ``txanon anonymize`` writes (the published data, the family's documents,
    ``summary.json`` and ``manifest.json``), plus ``shards.json`` naming every shard. It is
    computed once (checkpointed): reading it again never reruns the anonymization. ``report``
    is a dict: the method, the shard count and how the shards were made, the records in and
    published, each shard's summary and audit, and the utility figure pooled over the shards.
    ``sharded`` is the input with its ``shard`` column (the original as the audit takes it:
    the data holder's, never published).
    """

    method: str
    files: DataFrame
    report: dict[str, Any]
    sharded: DataFrame
    _table: str = field(repr=False, default="published")

    def transactions(self) -> DataFrame:
        """The published transactions as a DataFrame ``(shard, items: array<string>)``, read back
        from each shard's published file (CAHD's QID items, anatomy's flattened records)."""
        stem = self._table

        def read(table: pa.Table) -> pa.Table:
            import txanon

            rows = table.to_pylist()
            shard = rows[0]["shard"]
            chosen = [r for r in rows if os.path.splitext(r["name"])[0] == stem]
            if len(chosen) != 1:
                raise BadInput(f"shard {shard}: no published file {stem}.* among its files")
            with tempfile.TemporaryDirectory(prefix="txanon-spark-") as scratch:
                path = os.path.join(scratch, chosen[0]["name"])
                with open(path, "wb") as out:
                    out.write(chosen[0]["content"])
                items = txanon.read(path).column("items").cast(pa.list_(pa.string()))
            return pa.table({"shard": pa.array([shard] * len(items), pa.int32()), "items": items})

        return self.files.groupBy("shard").applyInArrow(read, "shard int, items array<string>")

    def write(self, path: str, *, mode: Literal["error", "overwrite"] = "error") -> None:
        """Writes ``files`` as Parquet at ``path`` (any Spark path). ``mode="error"`` (the
        default) refuses a path that exists; a reader audits it with :func:`audit` on
        ``spark.read.parquet(path)``."""
        _word("mode", mode, ("error", "overwrite"))
        try:
            self.files.write.mode("errorifexists" if mode == "error" else "overwrite").parquet(path)
        except Exception as error:
            if "PATH_ALREADY_EXISTS" in str(error):
                raise BadInput(f"path: {path} exists; mode='overwrite' replaces it") from None
            raise


def anonymize(
    df: DataFrame,
    method: str,
    *,
    items: str = "items",
    tid: str | None = None,
    shards: int | str | None = None,
    seed: int | None = None,
    max_shard_bytes: int = MAX_SHARD_BYTES,
    **params: Any,
) -> SparkPublication:
    """Anonymizes the transactions of ``df`` with ``method`` (one of :data:`FAMILIES`), shard by
    shard, and returns the :class:`SparkPublication`.

    The data is in the list shape (``items`` names a column of ``array<int>``, ``array<bigint>``
    or ``array<string>``, one row per transaction) or, with ``tid``, the long shape (``tid`` and
    ``items`` name a transaction id column and a column of one item per row).

    ``shards``: a count (the transactions dealt to that many shards at random by a keyed hash
    of their id, the key a secret drawn for the run, or from ``seed``), or the name of an
    integer column of ``df`` whose values are the shards (a key that keeps similar transactions
    together, for CAHD); by default about one shard per 2,000,000 transactions, rounded up to a
    multiple of the tasks the cluster runs at once (its default parallelism), so that every
    core works in every wave of the shards' tasks. A
    shard whose item labels take more than ``max_shard_bytes`` is refused before any work,
    with the advice to raise the shard count.

    ``params`` are the family's, named as :mod:`txanon.anonymize` names them. ``sensitive_random``
    (CAHD, coherence) and ``random_categories`` (swap) are drawn once on the driver from the
    data's distinct items, so that every shard protects the same items under the same
    categories; swap's ``categories`` may also be a mapping ``{item: category}``. ``seed``, as
    everywhere in txanon, is the data holder's secret: each shard's run is seeded from it and
    the shard's number, and nothing of it is published; without it, every shard draws from the
    operating system.

    ``anatomy`` publishes every shard under one item partition: ``item_columns`` (one list of
    labels per column, covering every item), or built on the driver, as
    ``txanon.anonymize.anatomy`` builds one, from a sample of about ``partition_sample``
    transactions (default 100,000) drawn by a keyed hash of their ids, then completed with the
    items the sample missed; ``report["item_columns"]`` says which.

    ``coherence`` suppresses per shard by default (``suppression="per-shard"``: each shard's
    greedy algorithm on its own data, the union coherent as docs/SPARK.md proves); with
    ``suppression="global"`` it suppresses one set of items everywhere, the set
    ``txanon.anonymize.coherence`` suppresses on the whole table (the greedy algorithm on the
    driver, over the moles and nuggets the shards' counts give, four jobs), and audits the union
    before returning; ``report["suppression"]`` says which.

    ``km`` generalizes every shard by one cut, the cut ``txanon.anonymize.km`` finds over the
    whole table (AA or DA, searched on the driver from the shards' counts, a job per pass and
    per batch of the fixes' candidate supports), and audits the union before returning;
    ``report["cut"]`` says how many jobs the search asked for.

    Raises :class:`txanon.BadInput` before any job runs on the data for a wrong column, type,
    method or parameter, and after counting the shards (one aggregation) for an empty table,
    null items or a shard too large; :class:`txanon.Infeasible` when a shard cannot meet the
    parameters (the message names the shard).
    """
    _spark()  # pyspark is there, or the ImportError says how to get it
    _word("method", method, FAMILIES)
    _bounded_int("max_shard_bytes", max_shard_bytes, 1, 1 << 31)
    for reserved in ("progress", "format", "tid_column", "item_column", "key_out"):
        if reserved in params:
            raise BadInput(f"{reserved}: not an option of txanon.spark.anonymize")
    if method != "km":  # km's options are checked by name below
        _known_options(method, params)
    if seed is not None:
        _bounded_int("seed", seed, 0, (1 << 64) - 1)
    # km's options are checked here, on the driver alone; the other families' by a dry run
    # once the data's items are known.
    km_options = _km_params(params) if method == "km" else None
    salt = _salt(seed)
    data = _shape(df, items, tid, shards if isinstance(shards, str) else None)
    data, sharding, statistics = _sharded(data, items, shards, salt, max_shard_bytes)
    if km_options is not None:
        return _km(data, km_options, statistics, sharding, seed)
    if method == "coherence":
        suppression = _word("suppression", params.pop("suppression", "per-shard"), SUPPRESSIONS)
        if suppression == "global":
            return _coherence_global(data, params, statistics, sharding, seed)
    sample_size = params.pop("partition_sample", None) if method == "anatomy" else None
    supports = _universe(data, method, params)
    params = _global_params(method, params, supports, seed)
    _dry_run(method, params, supports)
    columns_built = None
    if method == "anatomy":
        params, columns_built = _anatomy_columns(
            data, params, supports, statistics, sample_size, seed
        )
    shard_ids = sorted(statistics)
    seeds = None if seed is None else {s: _shard_seed(seed, s) for s in shard_ids}
    publish = _shard_publisher(method, params, seeds, shard_ids)
    files = _each_shard(_shard_pieces(data, shard_ids), publish, FILES_SCHEMA)
    try:
        # Computed once: without a seed a rerun would publish differently.
        files = _computed_once(files)
    except Exception as error:  # a worker's txanon error, wrapped by Spark
        raise _translated(error) from None
    report = _report(method, files, statistics, sharding, seed is not None)
    if columns_built is not None:
        report["item_columns"] = columns_built
    return SparkPublication(method, files, report, data, _PUBLISHED[method])


def audit(
    publication: SparkPublication | DataFrame,
    method: str,
    *,
    original: DataFrame | None = None,
    **claim: Any,
) -> dict[str, Any]:
    """Audits a Spark publication (a :class:`SparkPublication`, or its ``files`` read back,
    ``spark.read.parquet(path)``) under the auditor's ``claim``, named as :mod:`txanon.audit`
    names it (``p`` and ``sensitive`` for CAHD, ``k`` and ``m`` for kᵐ-anonymity, ...).

    Each shard's files are written to a scratch directory on its worker and audited there by
    the family's audit, which shares no code with its algorithm: the manifest first, then every
    published file; with ``original`` (a DataFrame ``(shard, items)``, such as
    :attr:`SparkPublication.sharded`) also against the shard's original transactions. A shard
    listed in ``shards.json`` but absent, or present but not listed, is a violation too.

    Coherence with ``suppression="global"`` in the claim is audited over the union: each
    shard's files checked on its worker (against its original when given) and its public
    itemsets of at most ``p`` items counted with their private items, the counts summed by
    Spark; an itemset below ``k`` (``rare-itemset``) or inferring a private item above ``h``
    (``breach``) is a violation, as is an item one shard publishes and another suppressed
    (``partly-suppressed``, with the original) and shards publishing different suppression sets
    (``documents-differ``). By default (``"per-shard"``) each shard is audited on its own, which
    a publication made with one suppression set need not pass.

    kᵐ-anonymity is audited over the union: each shard's files checked on its worker and its
    itemsets of at most ``m`` items counted, capped at ``k``, the counts summed by Spark; an
    itemset below ``k`` is a ``rare-itemset`` violation, shards publishing different cuts or
    hierarchies a ``documents-differ`` one.

    Returns the report: the shards audited and each shard's report. Raises
    :class:`txanon.AuditFailed` carrying the violations (at most a hundred as objects, each with
    its ``shard``; the message counts them all by kind).
    """
    functions, _ = _spark()
    _word("method", method, FAMILIES)
    if method == "swap":
        raise BadInput(
            "method: 'swap' is audited against its secret key, which a Spark publication does "
            "not keep; each shard's swap publication passed its audit on its worker"
        )
    claim = dict(claim)
    suppression = None
    if method == "coherence":
        suppression = _word("suppression", claim.pop("suppression", "per-shard"), SUPPRESSIONS)
    files = publication.files if isinstance(publication, SparkPublication) else publication
    names = set(files.columns)
    if not {"shard", "name", "content"} <= names:
        raise BadInput(
            f"publication: columns {sorted(names)}; a Spark publication has shard, name, content"
        )
    if method == "km":
        return _km_audit(files, claim, original)
    if suppression == "global":
        return _coherence_audit(files, claim, original)
    rows = _checked_shards(files, original, _auditor(method, claim), _AUDIT_SCHEMA)
    failed, by_kind, violations, present, missing = _shard_findings(method, files, rows)
    if by_kind:
        total = sum(by_kind.values())
        shards_failed = failed.select("shard").distinct().count() + len(missing)
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(by_kind.items()))
        raise AuditFailed(
            f"{method} audit failed on {shards_failed} of {len(present | set(missing))} "
            f"shards: {total} violations ({kinds})",
            violations,
        )
    reports = {
        r["shard"]: json.loads(r["details"])
        for r in rows.filter(functions.col("kind") == "passed").collect()
    }
    return {
        "method": method,
        "shards": len(reports),
        "passed": True,
        "per_shard": [dict(shard=s, **reports[s]) for s in sorted(reports)],
    }


# --- the driver's steps ------------------------------------------------------------------------


def generate_quest(
    spark: Any,
    transactions: int,
    *,
    partitions: int | None = None,
    **options: Any,
) -> DataFrame:
    """``transactions`` Quest transactions made inside Spark, one part per partition, as a
    DataFrame ``(items: array<bigint>)``: for data larger than the driver (10⁸ baskets) that
    never passes through it. Partition ``j`` of ``P`` is
    ``txanon.generate.quest(part=j, transactions=⌊N/P⌋ or one more)``: the same model (the
    seed's item weights and patterns) in every part, a random stream of each part's own; the
    same arguments give the same rows. ``options`` are ``txanon.generate.quest``'s (``avg_len``,
    ``items``, ``seed``, ...); ``partitions`` defaults to one per 1,000,000 transactions and at
    least the cluster's parallelism."""
    _spark()
    _bounded_int("transactions", transactions, 1, 1 << 40)
    for reserved in ("part",):
        if reserved in options:
            raise BadInput(f"{reserved}: not an option of txanon.spark.generate_quest")
    if partitions is None:
        try:
            parallel = max(1, int(spark.sparkContext.defaultParallelism))
        except Exception:
            parallel = 1
        partitions = min(transactions, max(parallel, math.ceil(transactions / 1_000_000)))
    _bounded_int("partitions", partitions, 1, min(transactions, 1 << 20))
    import txanon

    # The options' own checks, on the driver, before any job.
    txanon.generate.quest(transactions=1, **options, part=0)
    size, extra = divmod(transactions, partitions)

    def parts(batches: Iterable[pa.RecordBatch]) -> Iterable[pa.RecordBatch]:
        import txanon

        _limit_threads()
        for batch in batches:
            for part in batch.column("id").to_pylist():
                count = size + (1 if part < extra else 0)
                table = txanon.generate.quest(transactions=count, part=part, **options)
                items = table.column("items").cast(pa.list_(pa.int64()))
                yield from pa.table({"items": items}).to_batches()

    return spark.range(partitions, numPartitions=partitions).mapInArrow(
        parts, "items array<bigint>"
    )


#: Transactions per chunk of a packed shard (``_packed``): an Arrow IPC stream of 2²⁰ Quest
#: baskets is some 100 MB, well inside a binary value's 2 GiB.
PACKED_ROWS = 1 << 20


def _ipc(table: pa.Table) -> bytes:
    """``table`` as one Arrow IPC stream."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def _narrowed(table: pa.Table) -> pa.Table:
    """``table`` with its integer ``items`` as 32-bit unsigned where every one fits (the same
    labels): a shard's pieces are shuffled once and the packed shards read by every request of
    a search, and Spark's ``bigint`` doubles their bytes."""
    items = table.column("items")
    if not pa.types.is_integer(items.type.value_type) or items.type.value_type == pa.uint32():
        return table
    values = pa.compute.list_flatten(items)
    if len(values) > 0:
        low, high = pa.compute.min_max(values).values()
        if low.as_py() < 0 or high.as_py() > MAX_ITEM:
            return table
    narrow = items.cast(pa.list_(pa.field("item", pa.uint32(), nullable=False)))
    return table.set_column(table.schema.get_field_index("items"), "items", narrow)


def _shard_pieces(data: DataFrame, shard_ids: list[int]) -> DataFrame:
    """The rows ``(shard, tid, items)`` of ``data`` as binary pieces, each shard's in the
    partition of its index among ``shard_ids``: each input partition's rows of a shard become
    Arrow IPC streams of ``(tid, items)`` (a row ``(shard, data)`` per :data:`PACKED_ROWS` rows
    of a partition, about), and only these few large values are shuffled, to exactly one
    partition per shard. The packing of the searches grouped the rows by shard
    (``groupBy(shard)``) and then ranged one shard per partition, and the range partitioning's
    sample ran the packing a second time: twice this way's time at 10⁷ (docs/SPARK.md,
    "Searches read packed shards"); for the per-shard families' single pass the two ways take
    the same time, and a hash partitioning put two shards in one task when their hashes met."""
    functions, _ = _spark()
    index = {shard: j for j, shard in enumerate(shard_ids)}

    def pieces(batches: Iterable[pa.RecordBatch]) -> Iterable[pa.RecordBatch]:
        held: list[pa.RecordBatch] = []
        rows = 0

        def flushed() -> Iterable[pa.RecordBatch]:
            table = _narrowed(pa.Table.from_batches(held))
            shards = table.column("shard")
            for shard in pa.compute.unique(shards).to_pylist():
                of_shard = table.filter(pa.compute.equal(shards, shard)).select(["tid", "items"])
                yield pa.record_batch(
                    [
                        pa.array([shard], pa.int32()),
                        pa.array([index[shard]], pa.int32()),
                        pa.array([_ipc(of_shard)], pa.binary()),
                    ],
                    names=["shard", "place", "data"],
                )

        for batch in batches:
            if batch.num_rows == 0:
                continue
            held.append(batch)
            rows += batch.num_rows
            if rows >= PACKED_ROWS:
                yield from flushed()
                held, rows = [], 0
        if held:
            yield from flushed()

    return (
        data.select("shard", "tid", "items")
        .mapInArrow(pieces, "shard int, place int, data binary")
        .repartitionById(max(len(shard_ids), 1), functions.col("place"))
    )


def _each_shard(
    pieces: DataFrame, answer: Callable[[int, pa.Table], pa.Table], schema: str
) -> DataFrame:
    """``answer(shard, items)`` for every shard of ``pieces`` (``_shard_pieces``), ``items``
    in the order of the transactions' ids: one task per shard, which holds that shard's
    answer alone (a task of several shards' files ran Java's heap out at 10⁸ transactions in
    50 shards over 8 partitions)."""

    def run(batches: Iterable[pa.RecordBatch]) -> Iterable[pa.RecordBatch]:
        held: dict[int, list[Any]] = {}
        for batch in batches:
            data = batch.column("data")
            for j, shard in enumerate(batch.column("shard").to_pylist()):
                held.setdefault(shard, []).append(data[j].as_buffer())
        for shard in sorted(held):
            table = pa.concat_tables([pa.ipc.open_stream(b).read_all() for b in held.pop(shard)])
            # In the order of the ids, not the order Spark delivers the pieces in: a seed then
            # repeats a shard's publication byte for byte.
            yield from answer(shard, table.sort_by("tid").select(["items"])).to_batches()

    return pieces.mapInArrow(run, schema)


def _packed(data: DataFrame, shard_ids: list[int]) -> DataFrame:
    """Each shard's transactions (``items``, in the order of their ids) as Arrow IPC streams of
    at most :data:`PACKED_ROWS` rows, a row ``(shard, chunk, data)`` each, one shard per
    partition, checkpointed: a search's requests each read every shard again, and a job over
    these reads a few large binary values with no shuffle, where one over the rows regrouped
    them by shard and turned each row into Arrow again (docs/SPARK.md, "Measured")."""

    def pack(shard: int, items: pa.Table) -> pa.Table:
        chunks = [
            _ipc(items.slice(start, PACKED_ROWS))
            for start in range(0, max(items.num_rows, 1), PACKED_ROWS)
        ]
        return pa.table(
            {
                "shard": pa.array([shard] * len(chunks), pa.int32()),
                "chunk": pa.array(range(len(chunks)), pa.int32()),
                "data": pa.array(chunks, pa.binary()),
            }
        )

    from pyspark import StorageLevel

    packed = _each_shard(_shard_pieces(data, shard_ids), pack, "shard int, chunk int, data binary")
    try:
        # On the workers' disks, as the publication's files: a copy of the data that the JVM's
        # heap need not hold (at 10⁷ transactions in memory, the union's audit then ran out).
        return packed.localCheckpoint(eager=True, storageLevel=StorageLevel.DISK_ONLY)
    except Exception as error:
        raise _translated(error) from None


def _packed_supports(packed: DataFrame) -> dict[str, int]:
    """Each distinct item of the packed shards (``_packed``) with its support, the
    transactions holding it: each shard's counted by txanon's own reading (every transaction a
    set of labels), summed by Spark. One job over the packed shards, where ``explode`` +
    ``groupBy`` over the rows needed the rows kept on disk for it."""
    functions, _ = _spark()

    def count(_shard: int, items: pa.Table) -> pa.Table:
        import txanon

        counted = pa.compute.value_counts(pa.compute.list_flatten(txanon.read(items).column(0)))
        return pa.table(
            {
                "item": counted.field("values").cast(pa.string()),
                "support": counted.field("counts").cast(pa.int64()),
            }
        )

    try:
        rows = (
            _each_packed_shard(packed, count, "item string, support long")
            .groupBy("item")
            .agg(functions.sum("support").alias("support"))
            .collect()
        )
    except Exception as error:
        raise _translated(error) from None
    return {r["item"]: int(r["support"]) for r in rows}


def _each_packed_shard(
    packed: DataFrame, answer: Callable[[int, pa.Table], pa.Table], schema: str
) -> DataFrame:
    """``answer(shard, items)`` for every shard of ``packed`` (``_packed``), its tables' rows in
    turn: one job reading the packed shards where they lie."""

    def run(batches: Iterable[pa.RecordBatch]) -> Iterable[pa.RecordBatch]:
        chunks: dict[int, list[tuple[int, Any]]] = {}
        for batch in batches:
            data = batch.column("data")
            for j, (shard, chunk) in enumerate(
                zip(batch.column("shard").to_pylist(), batch.column("chunk").to_pylist())
            ):
                chunks.setdefault(shard, []).append((chunk, data[j].as_buffer()))
        for shard in sorted(chunks):
            yield from answer(shard, _unpacked_items(chunks[shard])).to_batches()

    return packed.mapInArrow(run, schema)


def _unpacked_items(chunks: list[tuple[int, Any]]) -> pa.Table:
    """A packed shard's ``items`` in the order of their ids, from its ``(chunk, data)`` rows
    in any order."""
    return pa.concat_tables([pa.ipc.open_stream(blob).read_all() for _, blob in sorted(chunks)])


#: Options of ``txanon.spark.anonymize`` beyond the family's own, by method.
_SPARK_OPTIONS = {"anatomy": {"partition_sample"}, "coherence": {"suppression"}}


def _known_options(method: str, params: Mapping[str, Any]) -> None:
    """Every option in ``params`` is the family's (as ``txanon.anonymize.<method>`` names it)
    or Spark's own: a misspelt one is refused by name, before any job."""
    import inspect

    import txanon

    own = set(inspect.signature(getattr(txanon.anonymize, method)).parameters)
    # The reading options and the progress are refused above: Spark reads, Spark shows.
    reading = {"data", "seed", "progress", "format", "tid_column", "item_column", "key_out"}
    allowed = (own - reading) | _SPARK_OPTIONS.get(method, set())
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise BadInput(
            f"{unknown[0]}: not an option of {method} (its options: {', '.join(sorted(allowed))})"
        )


def _computed_once(files: DataFrame) -> DataFrame:
    """``files`` computed now and kept on the workers' local disks, not in their memory:
    reading them again never reruns the anonymization, and a publication's files are the size
    of its data."""
    from pyspark import StorageLevel

    return files.localCheckpoint(eager=True, storageLevel=StorageLevel.DISK_ONLY)


def _bounded_int(name: str, value: Any, low: int, high: int) -> int:
    """A whole-number option, refused as the native module refuses one."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(f"{name} = {value!r}: not a whole number, allowed {low} to {high}")
    if not low <= value <= high:
        raise BadInput(f"{name} = {value}: out of range, allowed {low} to {high}")
    return value


def _word(name: str, value: Any, allowed: Iterable[str]) -> str:
    """A word option among ``allowed``, refused as the native module refuses one."""
    allowed = list(allowed)
    if value not in allowed:
        raise BadInput(f"{name} = {value!r}: not allowed; one of {', '.join(allowed)}")
    return value


def _derived(seed: int, what: str) -> int:
    digest = hashlib.sha256(f"txanon.spark/{what}/{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def _salt(seed: int | None) -> int:
    """The key of the shards' hash: secret, from the seed or the operating system."""
    return (secrets.randbits(63) if seed is None else _derived(seed, "salt")) >> 1


def _shard_seed(seed: int, shard: int) -> int:
    return _derived(seed, f"shard/{shard}")


def _shape(df: DataFrame, items: str, tid: str | None, shard_column: str | None) -> DataFrame:
    """``df`` as ``(tid, items[, shard])``, the items an array of bigint or string; checked on
    the schema alone, before any job."""
    functions, types = _spark()
    columns = df.schema.fieldNames()

    def column(name: str, option: str) -> Any:
        if name not in columns:
            raise BadInput(
                f"{option}: no column {name!r} in the DataFrame (columns: {', '.join(columns)})"
            )
        return df.schema[name].dataType

    integral = (types.ByteType, types.ShortType, types.IntegerType, types.LongType)

    def item_type(t: Any) -> str | None:
        if isinstance(t, integral):
            return "bigint"
        if isinstance(t, types.StringType):
            return "string"
        return None

    shard: list[Any] = []
    if shard_column is not None:
        shard_type = column(shard_column, "shards")
        if not isinstance(shard_type, (types.ByteType, types.ShortType, types.IntegerType)):
            raise BadInput(
                f"shards: column {shard_column!r} is {shard_type.simpleString()}; a shard column "
                "holds each transaction's shard as an int"
            )
    if tid is None:
        dtype = column(items, "items")
        element = item_type(dtype.elementType) if isinstance(dtype, types.ArrayType) else None
        if element is None:
            raise BadInput(
                f"items: column {items!r} is {dtype.simpleString()}; the list shape needs "
                "array<int>, array<bigint> or array<string> (or name tid= for the long shape)"
            )
        if shard_column is not None:
            shard = [functions.col(shard_column).cast("int").alias("shard")]
        return df.select(
            functions.monotonically_increasing_id().alias("tid"),
            functions.col(items).cast(f"array<{element}>").alias("items"),
            *shard,
        )
    tid_type = column(tid, "tid")
    if item_type(tid_type) is None:
        raise BadInput(
            f"tid: column {tid!r} is {tid_type.simpleString()}; a transaction id is an integer "
            "or a string"
        )
    dtype = column(items, "items")
    element = item_type(dtype)
    if element is None:
        raise BadInput(
            f"items: column {items!r} is {dtype.simpleString()}; the long shape needs one "
            "integer or string item per row"
        )
    if shard_column is not None:
        # Every row of a transaction names its shard; the smallest decides (one, in sane data).
        shard = [functions.min(functions.col(shard_column)).cast("int").alias("shard")]
    return df.groupBy(functions.col(tid).alias("tid")).agg(
        # Nulls are counted before they are dropped: collect_list skips them.
        functions.collect_list(functions.col(items).cast(element)).alias("items"),
        functions.count_if(functions.col(items).isNull()).alias("null_items"),
        *shard,
    )


#: The random shards are made from this many buckets of the keyed hash: the statistics are
#: counted per bucket in one pass, before the shard count is known.
BUCKETS = 1 << 16


def _sharded(
    data: DataFrame, items: str, shards: int | str | None, salt: int, max_shard_bytes: int
) -> tuple[DataFrame, dict[str, Any], dict[int, dict[str, int]]]:
    """``data`` with its ``shard`` column, how it was sharded, and each shard's transactions
    and item occurrences, counted and checked in one aggregation."""
    functions, _ = _spark()
    if isinstance(shards, str):
        sharding: dict[str, Any] = {"sharding": f"column {shards}"}
        rows = _counts(data, "shard")
        return data, sharding, _checked(rows, items, sharding, max_shard_bytes)
    if shards is not None:
        _bounded_int("shards", shards, 1, 1 << 20)
    # A keyed hash: the shard says nothing of the input order without the secret key.
    bucket = functions.pmod(
        functions.xxhash64(functions.col("tid"), functions.lit(salt)), functions.lit(BUCKETS)
    ).cast("int")
    keyed = data.withColumn("shard", bucket)
    rows = _counts(keyed, "shard")
    records = sum(r["records"] for r in rows)
    number = shards
    if number is None:
        # A multiple of the tasks run at once: five shards on two cores run in three waves,
        # the last with one core idle, where six smaller ones take two and a half waves' time.
        parallel = _parallelism(data)
        number = parallel * max(1, math.ceil(records / DEFAULT_SHARD_RECORDS / parallel))
    pooled: dict[int, dict[str, Any]] = {}
    for r in rows:
        shard = None if r["shard"] is None else r["shard"] % number
        into = pooled.setdefault(
            shard, {"shard": shard, "records": 0, "occurrences": 0, "bytes": 0, "nulls": 0}
        )
        for key in ("records", "occurrences", "bytes", "nulls"):
            into[key] += r[key] or 0
        for key, pick in (("lowest", min), ("highest", max)):
            if r.get(key) is not None:
                into[key] = r[key] if into.get(key) is None else pick(into[key], r[key])
    sharding = {"sharding": "random", "requested": number}
    statistics = _checked(list(pooled.values()), items, sharding, max_shard_bytes)
    sharded = keyed.withColumn(
        "shard", (functions.col("shard") % functions.lit(number)).cast("int")
    )
    return sharded, sharding, statistics


def _parallelism(data: DataFrame) -> int:
    """How many tasks the cluster runs at once (Spark's default parallelism), or 1 where the
    session does not say (Spark Connect)."""
    try:
        return max(1, int(data.sparkSession.sparkContext.defaultParallelism))
    except Exception:
        return 1


def _counts(data: DataFrame, by: str) -> list[dict[str, Any]]:
    """Per value of ``by``: the transactions, item occurrences, label bytes and nulls."""
    functions, _ = _spark()
    # Bytes of the labels as a file holds them: a string's own, an integer's at most 20 digits.
    if data.schema["items"].dataType.elementType.simpleString() == "string":
        labels = functions.length(functions.array_join("items", " ")) + 1
    else:
        labels = functions.size("items") * 21
    nulls = functions.when(
        functions.col("items").isNull()
        | (functions.size("items") != functions.size(functions.array_compact("items"))),
        1,
    ).otherwise(0)
    if "null_items" in data.columns:
        nulls = nulls + functions.col("null_items")
    # Integer items are labels of 32 bits, as txanon reads them everywhere: the smallest and
    # largest are checked here, before the work, not by the first shard that meets one.
    bounds = []
    if data.schema["items"].dataType.elementType.simpleString() != "string":
        bounds = [
            functions.min(functions.array_min("items")).alias("lowest"),
            functions.max(functions.array_max("items")).alias("highest"),
        ]
    rows = (
        data.groupBy(by)
        .agg(
            functions.count(functions.lit(1)).alias("records"),
            functions.sum(functions.coalesce(functions.size("items"), functions.lit(0))).alias(
                "occurrences"
            ),
            functions.sum(labels).alias("bytes"),
            functions.sum(nulls).alias("nulls"),
            *bounds,
        )
        .collect()
    )
    return [r.asDict() for r in rows]


def _checked(
    rows: list[dict[str, Any]], items: str, sharding: dict[str, Any], max_shard_bytes: int
) -> dict[int, dict[str, int]]:
    if not rows:
        raise BadInput("df: the DataFrame holds no transaction")
    nulls_total = sum(r["nulls"] or 0 for r in rows)
    if nulls_total:
        raise BadInput(
            f"{items}: {nulls_total} null items or item lists: drop or fill them before publishing"
        )
    if any(r["shard"] is None for r in rows):
        raise BadInput(f"shards: a transaction without a shard (null in {sharding['sharding']})")
    for bound in ("lowest", "highest"):
        values = [r[bound] for r in rows if r.get(bound) is not None]
        value = (min if bound == "lowest" else max)(values, default=0)
        if not 0 <= value <= MAX_ITEM:
            raise BadInput(
                f"{items}: item {value} is out of range 0..={MAX_ITEM} (integer items are 32-bit "
                "labels; cast the column to array<string> for others)"
            )
    largest = max(rows, key=lambda r: r["bytes"] or 0)
    if (largest["bytes"] or 0) > max_shard_bytes:
        raise BadInput(
            f"shard {largest['shard']}: {largest['records']} transactions with {largest['bytes']} "
            f"bytes of item labels, more than max_shard_bytes = {max_shard_bytes} (a shard is "
            f"one Arrow batch): raise the shard count (now {len(rows)})"
        )
    return {
        r["shard"]: {"records": int(r["records"]), "occurrences": int(r["occurrences"] or 0)}
        for r in rows
    }


def _universe(data: DataFrame, method: str, params: dict[str, Any]) -> dict[str, int]:
    """The items the driver needs, with their supports: every distinct item when something is
    drawn from them, only the named sensitive items otherwise, and a few items of a sample for
    the parameters' check."""
    functions, _ = _spark()
    # Anatomy's one item partition covers every item of the data.
    drawn = (
        method == "anatomy"
        or params.get("sensitive_random") is not None
        or params.get("random_categories") is not None
    )
    exploded = data.select(functions.explode(functions.array_distinct("items")).alias("item"))
    if drawn:
        return _supports(exploded)
    named = params.get("sensitive") if method in ("cahd", "coherence") else None
    found: dict[str, int] = {}
    if named is not None and not isinstance(named, (str, bytes)):
        wanted = sorted({str(s) for s in named})
        matched = exploded.filter(functions.col("item").cast("string").isin(wanted))
        found = _supports(matched)
    sample = data.select("items").limit(64).collect()
    for row in sample:
        for item in row["items"] or []:
            found.setdefault(str(item), 0)
    return found


def _supports(exploded: DataFrame) -> dict[str, int]:
    """Each distinct item of ``exploded`` (one ``item`` per row) with its support."""
    rows = exploded.groupBy("item").count().collect()
    return {str(r["item"]): int(r["count"]) for r in rows}


def _global_params(
    method: str, params: dict[str, Any], supports: dict[str, int], seed: int | None
) -> dict[str, Any]:
    """The parameters every shard runs with: the sensitive items and the categories drawn or
    checked once, from the data's distinct items."""
    from . import _txanon
    from ._data import labels

    params = dict(params)
    universe = sorted(supports)
    if method in ("cahd", "coherence"):
        named, drawn = params.pop("sensitive", None), params.pop("sensitive_random", None)
        if named is not None and drawn is not None:
            raise BadInput("sensitive and sensitive_random: name the items, or draw them, not both")
        if drawn is not None:
            seed_ = None if seed is None else _derived(seed, "sensitive")
            named = _txanon.draw_items(universe, count=drawn, name="sensitive_random", seed_=seed_)
        if named is None:
            raise BadInput(
                "sensitive: name the sensitive items (a list of labels), or draw them with "
                "sensitive_random"
            )
        named = labels(named) or []
        unknown = [s for s in named if s not in supports]
        if unknown:
            raise BadInput(
                f"sensitive: {len(unknown)} label(s) not in the data: {' '.join(unknown[:10])}"
            )
        if not named:
            raise BadInput(
                "sensitive: no sensitive item: name at least one, the method protects them"
            )
        params["sensitive"] = named
    if method == "swap":
        given, drawn = params.pop("categories", None), params.pop("random_categories", None)
        if given is not None and drawn is not None:
            raise BadInput(
                "categories and random_categories: give the categories, or draw them, not both"
            )
        if drawn is not None:
            seed_ = None if seed is None else _derived(seed, "categories")
            drawn_of = _txanon.draw_categories(universe, count=drawn, seed_=seed_)
            params["categories_text"] = "".join(f"{i} {c}\n" for i, c in zip(universe, drawn_of))
        elif isinstance(given, Mapping):
            params["categories_text"] = "".join(f"{i} {c}\n" for i, c in given.items())
        elif given is not None:
            with open(given, encoding="utf-8") as text:
                params["categories_text"] = text.read()
        else:
            raise BadInput(
                "categories: give the items' categories (a file of `item category` lines or a "
                "mapping), or draw them with random_categories"
            )
    return params


#: The transactions anatomy's item partition is built from on the driver, by default.
DEFAULT_PARTITION_SAMPLE = 100_000

#: The resolution of the sample's keyed hash: a transaction is drawn when its hash falls below
#: the sampled share of this range.
_SAMPLE_RANGE = 1 << 30


def _anatomy_columns(
    data: DataFrame,
    params: dict[str, Any],
    supports: dict[str, int],
    statistics: dict[int, dict[str, int]],
    sample_size: int | None,
    seed: int | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Anatomy's one item partition, which every shard publishes under: the caller's
    ``item_columns``, checked to cover every item, or built on the driver from a sample of
    about ``sample_size`` transactions (drawn by a keyed hash of their ids, in their order) as
    a single machine builds it, then completed with the items the sample missed (each to the
    column with the fewest occurrences: ``txanon_anatomy::complete_partition``). Returns the
    shards' parameters and what the report says of the partition."""
    from . import _txanon

    params = dict(params)
    given = params.get("item_columns")
    if given is not None:
        if sample_size is not None:
            raise BadInput(
                "item_columns and partition_sample: give the columns, or the sample to build "
                "them from, not both"
            )
        from .anonymize import _item_columns

        columns = _item_columns(given) or []
        held = {label for column in columns for label in column}
        missing = sorted(item for item in supports if item not in held)
        if missing:
            raise BadInput(
                f"item_columns: {len(missing)} item(s) of the data are in no given column "
                f"(the first: {missing[0]}); every item must be in one"
            )
        params["item_columns"] = columns
        return params, {"from": "given", "columns": columns}
    size = _bounded_int(
        "partition_sample",
        DEFAULT_PARTITION_SAMPLE if sample_size is None else sample_size,
        1,
        1 << 31,
    )
    functions, _ = _spark()
    records = sum(s["records"] for s in statistics.values())
    share = min(1.0, size / records)
    key = _derived(seed, "anatomy-sample") >> 1 if seed is not None else secrets.randbits(62)
    drawn = functions.pmod(
        functions.xxhash64(functions.col("tid"), functions.lit(key)),
        functions.lit(_SAMPLE_RANGE),
    ) < functions.lit(math.ceil(share * _SAMPLE_RANGE))
    sample = data.filter(drawn).select("tid", "items").toArrow().sort_by("tid").select(["items"])
    if sample.num_rows == 0:
        raise BadInput(
            f"partition_sample = {size}: drew no transaction of {records}; raise it"
        )
    building = {
        k: params[k] for k in ("columns", "l", "diversity", "partitioning", "headroom") if k in params
    }
    try:
        columns = _txanon.anatomy_item_columns(
            sample,
            supports=sorted(supports.items()),
            seed_=None if seed is None else _derived(seed, "anatomy-columns"),
            **building,
        )
    except TxanonError as error:
        raise type(error)(f"anatomy's item partition, on a sample of {sample.num_rows}: {error}")
    sampled = len(pa.compute.unique(pa.compute.list_flatten(sample.column(0))))
    # The shards publish under these columns; how they were built is not the shards' to repeat.
    for k in ("partitioning", "headroom"):
        params.pop(k, None)
    params["item_columns"] = columns
    return params, {
        "from": "sample",
        "sample": sample.num_rows,
        "completed": sum(len(c) for c in columns) - sampled,
        "columns": columns,
    }


def _dry_run(method: str, params: dict[str, Any], supports: dict[str, int]) -> None:
    """The family's own checks of ``params``, on the driver, before any job: the family run on
    a few transactions made of the data's items. A bad parameter raises its ``BadInput`` here;
    that these few transactions cannot meet the parameters says nothing of the shards."""
    universe = sorted(supports, key=lambda i: (-supports[i], i))[:64]
    for s in params.get("sensitive", []):
        if s not in universe:
            universe.append(s)
    rows = [universe[j : j + 4] or universe[:1] for j in range(0, len(universe), 4)] * 4
    table = pa.table({"items": pa.array(rows, pa.list_(pa.string()))})
    try:
        _run_family(method, table, params, seed=0)
    except Infeasible:
        pass  # these few transactions, not the shards


def _run_family(method: str, table: pa.Table, params: dict[str, Any], seed: int | None) -> Any:
    """``txanon.anonymize.<method>`` on ``table``, the broadcast texts written to files."""
    import txanon

    kwargs = dict(params)
    with tempfile.TemporaryDirectory(prefix="txanon-spark-") as scratch:
        if "categories_text" in kwargs:
            path = os.path.join(scratch, "categories.txt")
            with open(path, "w", encoding="utf-8") as out:
                out.write(kwargs.pop("categories_text"))
            kwargs["categories"] = path
        return getattr(txanon.anonymize, method)(table, seed=seed, **kwargs)


def _limit_threads() -> None:
    """Rayon in this worker uses the task's cores (``spark.task.cpus``), set before txanon's
    pool starts."""
    if "RAYON_NUM_THREADS" not in os.environ:
        from pyspark import TaskContext

        context = TaskContext.get()
        cpus = context.cpus() if context is not None else 1
        os.environ["RAYON_NUM_THREADS"] = str(max(1, cpus))


def _shard_publisher(
    method: str,
    params: dict[str, Any],
    seeds: dict[int, int] | None,
    shard_ids: list[int],
    release: Callable[[int, pa.Table, int | None], Any] | None = None,
) -> Callable[[int, pa.Table], pa.Table]:
    """``publish(shard, items)``: the shard's publication as rows of files, ``items`` in the
    order of their ids: ``txanon.anonymize.<method>`` on the shard, or ``release(shard, items,
    seed)`` when given (km's shards under the one cut, coherence's under the one set)."""
    listed = json.dumps({"method": method, "shards": shard_ids}).encode()

    def publish(shard: int, data: pa.Table) -> pa.Table:
        _limit_threads()
        kwargs = dict(params)
        if "sensitive" in kwargs:
            # A sensitive item a shard does not hold is not this shard's to protect.
            present = set(
                str(x)
                for x in pa.compute.unique(pa.compute.list_flatten(data.column(0))).to_pylist()
            )
            kwargs["sensitive"] = [s for s in kwargs["sensitive"] if s in present]
            if not kwargs["sensitive"]:
                raise Infeasible(
                    f"shard {shard}: holds none of the sensitive items; use fewer shards"
                )
        shard_seed = None if seeds is None else seeds[shard]
        try:
            if release is not None:
                publication = release(shard, data, shard_seed)
            else:
                publication = _run_family(method, data, kwargs, shard_seed)
        except TxanonError as error:
            raise type(error)(f"shard {shard}: {error}") from None
        with tempfile.TemporaryDirectory(prefix="txanon-spark-") as scratch:
            out = publication.write(os.path.join(scratch, "publication"))
            names = sorted(os.listdir(out))
            contents = []
            for name in names:
                with open(os.path.join(out, name), "rb") as f:
                    contents.append(f.read())
        names.append(SHARDS_FILE)
        contents.append(listed)
        return pa.table(
            {
                "shard": pa.array([shard] * len(names), pa.int32()),
                "name": pa.array(names, pa.string()),
                "content": pa.array(contents, pa.binary()),
            }
        )

    return publish


def _auditor(method: str, claim: dict[str, Any]) -> Callable[[pa.Table, pa.Table | None], pa.Table]:
    """Each shard's check by ``txanon.audit.<method>`` under the auditor's ``claim``."""
    claim = dict(claim)

    def audit_one(directory: str, scratch: str, original: pa.Table | None) -> tuple[Any, None]:
        import txanon

        kwargs = dict(claim)
        if original is not None:
            kwargs["original"] = original
        return getattr(txanon.audit, method)(directory, **kwargs), None

    return _shard_checker(audit_one, itemsets=None)


def _shard_checker(
    audit_one: Callable[[str, str, pa.Table | None], tuple[Any, pa.Table | None]],
    itemsets: Mapping[str, pa.DataType] | None,
) -> Callable[[pa.Table, pa.Table | None], pa.Table]:
    """The check run on a worker for each shard: its files written to a scratch directory and
    audited there by ``audit_one(directory, scratch, original)``, which returns the report and,
    for the families audited over the union, the shard's itemsets counted (the columns
    ``itemsets`` names); the result as rows ``(shard, kind, details)`` (with those columns):
    ``passed`` with the report, or one row per violation."""

    def check(files: pa.Table, original: pa.Table | None) -> pa.Table:
        _limit_threads()
        if files.num_rows == 0:
            # A shard of the original without any published file.
            shard = int(original.column("shard")[0].as_py()) if original is not None else -1
            return _audit_rows(shard, [("shard-missing", {})], itemsets)
        shard = int(files.column("shard")[0].as_py())
        with tempfile.TemporaryDirectory(prefix="txanon-spark-audit-") as scratch:
            directory = _unpacked(files, scratch)
            if isinstance(directory, tuple):
                return _audit_rows(shard, [directory], itemsets)
            try:
                report, counted = audit_one(directory, scratch, _original_items(original))
            except AuditFailed as failed:
                return _audit_rows(
                    shard,
                    [(v.kind, v.details) for v in failed.violations]
                    or [("audit", {"message": failed.message})],
                    itemsets,
                )
            except TxanonError as error:
                raise type(error)(f"shard {shard}: {error}") from None
        rows = _audit_rows(shard, [("passed", report)], itemsets)
        if counted is None:
            return rows
        found = pa.table(
            {
                "shard": pa.array([shard] * counted.num_rows, pa.int32()),
                "kind": pa.array(["itemset"] * counted.num_rows, pa.string()),
                "details": pa.array([None] * counted.num_rows, pa.string()),
                **{name: counted.column(name) for name in itemsets or {}},
            }
        )
        return pa.concat_tables([rows, found.cast(rows.schema)])

    return check


def _original_items(original: pa.Table | None) -> pa.Table | None:
    """A shard's original ``items``: its rows as the caller's DataFrame holds them, or its
    packed chunks (``_packed``, the searches' copy of the data, which ``anonymize`` audits
    against without shuffling the rows again)."""
    if original is None:
        return None
    if "items" in original.column_names:
        return original.select(["items"])
    data = original.column("data")
    chunks = [(c, data[j].as_buffer()) for j, c in enumerate(original.column("chunk").to_pylist())]
    return _unpacked_items(chunks)


def _shard_findings(
    method: str, files: DataFrame, rows: DataFrame
) -> tuple[DataFrame, dict[str, int], list[Violation], set[int], list[int]]:
    """What the shards' checks found: the failed rows, the violations counted by kind, up to a
    hundred as objects (each with its shard), the shards present, and those ``shards.json``
    lists but that are missing."""
    functions, _ = _spark()
    failed = rows.filter(~functions.col("kind").isin("passed", "itemset"))
    by_kind = {r["kind"]: r["count"] for r in failed.groupBy("kind").count().collect()}
    listed = _listed_shards(files)
    present = {r["shard"] for r in rows.select("shard").distinct().collect()}
    missing = sorted(set(listed) - present)
    violations: list[Violation] = [
        Violation(method, "shard-missing", {"shard": s}) for s in missing[:100]
    ]
    if missing:
        by_kind["shard-missing"] = len(missing)
    for r in failed.limit(100 - len(violations)).collect():
        details = json.loads(r["details"])
        details["shard"] = r["shard"]
        violations.append(Violation(method, r["kind"], details))
    return failed, by_kind, violations, present, missing


def _checked_shards(
    files: DataFrame,
    original: DataFrame | None,
    check: Callable[[pa.Table, pa.Table | None], pa.Table],
    schema: str,
) -> DataFrame:
    """``check`` run on each shard's files (with the shard's original when given), its rows
    computed once."""
    if original is None:
        rows = files.groupBy("shard").applyInArrow(lambda t: check(t, None), schema)
    else:
        if {"shard", "items"} <= set(original.columns):
            original = original.select("shard", "items")
        elif {"shard", "chunk", "data"} <= set(original.columns):
            original = original.select("shard", "chunk", "data")  # packed, by anonymize
        else:
            raise BadInput("original: a DataFrame of shard and items, as SparkPublication.sharded")
        rows = (
            files.groupBy("shard")
            .cogroup(original.groupBy("shard"))
            .applyInArrow(check, schema)
        )
    try:
        return rows.localCheckpoint(eager=True)
    except Exception as error:
        raise _translated(error) from None


def _audit_rows(
    shard: int,
    rows: list[tuple[str, dict[str, Any]]],
    itemsets: Mapping[str, pa.DataType] | None = None,
) -> pa.Table:
    table = pa.table(
        {
            "shard": pa.array([shard] * len(rows), pa.int32()),
            "kind": pa.array([k for k, _ in rows], pa.string()),
            "details": pa.array([json.dumps(d, default=str) for _, d in rows], pa.string()),
        }
    )
    for name, kind in (itemsets or {}).items():
        table = table.append_column(name, pa.array([None] * len(rows), kind))
    return table


def _listed_shards(files: DataFrame) -> list[int]:
    """The shards the publication says it has (every shard's shards.json, which must agree)."""
    functions, _ = _spark()
    texts = {
        bytes(r["content"])
        for r in files.filter(functions.col("name") == SHARDS_FILE)
        .select("content")
        .distinct()
        .collect()
    }
    listed: set[int] = set()
    for text in texts:
        try:
            listed.update(int(s) for s in json.loads(text)["shards"])
        except (ValueError, KeyError, TypeError):
            continue
    return sorted(listed)


# --- (h,k,p)-coherence: one suppression set over every shard ------------------------------------

_LENGTHS_SCHEMA = "longest long, length long, count long"
_CANDIDATES_SCHEMA = "itemset array<int>"


def _coherence_global(
    data: DataFrame,
    params: dict[str, Any],
    statistics: dict[int, dict[str, int]],
    sharding: dict[str, Any],
    seed: int | None,
) -> SparkPublication:
    """(h,k,p)-coherence with one suppression set over every shard: the greedy algorithm (the
    coherence crate's over shards, the one a single process runs) on the driver, over the moles
    and nuggets the shards' counts give (four jobs); then every shard publishes its transactions
    less the suppressed items, and the union is audited."""
    from . import _txanon

    functions, _ = _spark()
    if params.get("engine", "counting") != "counting":
        raise BadInput(
            "engine: with suppression='global' the driver lists the moles and nuggets (the "
            "enumeration engine's way); the engines choose how one process counts them"
        )
    params.pop("engine", None)
    for name in ("h", "k", "p", "nugget_support"):
        if name not in params:
            raise BadInput(f"{name}: coherence needs h, k, p and nugget_support")
    # Read once: every request of the search is a job over the same shards, packed, and so
    # are the item supports.
    packed = _packed(data, sorted(statistics))
    supports = _packed_supports(packed)
    params = _global_params("coherence", params, supports, seed)
    _dry_run("coherence", params, supports)
    private = list(params["sensitive"])
    numbers = {name: params[name] for name in ("h", "k", "p", "nugget_support")}

    # The itemsets are summed part by part of the key space, as km's counts are: each shard's
    # rows go out as one binary row per part, and each part's rows are summed in one task,
    # where a row per itemset, private item and shard (3.5·10⁶ a shard at 10⁷) went through
    # Spark's `groupBy`.
    parts = max(_parallelism(data), 2 * len(statistics))

    def answered(request: str, schema: str) -> DataFrame:
        def count(_shard: int, table: pa.Table) -> pa.Table:
            from . import _txanon

            _limit_threads()
            batch = _txanon.coherence_count_shard(table, request=request, parts=parts)
            answer = pa.Table.from_batches([batch])
            if "support" in answer.column_names:
                # One row per shard: its supports as 64-bit words, summed on the driver, where
                # a row per candidate and shard would be shuffled.
                words = answer.column("support").cast(pa.int64()).combine_chunks()
                answer = pa.table({"supports": pa.array([words.buffers()[1].to_pybytes()])})
            elif "counts" in answer.column_names:
                answer = _by_part(batch)
            return answer

        return _each_packed_shard(packed, count, schema)

    def summed_part(table: pa.Table) -> pa.Table:
        from . import _txanon

        _limit_threads()
        pieces = table.column("counts").to_pylist()
        return pa.table(
            {"summed": pa.array([_txanon.coherence_itemsets_in_union(pieces)], pa.binary())}
        )

    def jobs(run: Callable[[], Any]) -> Any:
        try:
            return run()
        except Exception as error:  # a worker's txanon error, wrapped by Spark
            raise _translated(error) from None

    def lengths(request: str) -> tuple[int, list[int]]:
        rows = jobs(
            lambda: answered(request, _LENGTHS_SCHEMA)
            .groupBy("length")
            .agg(
                functions.max("longest").alias("longest"), functions.sum("count").alias("count")
            )
            .collect()
        )
        histogram = [0] * (max((r["length"] for r in rows), default=0) + 1)
        for r in rows:
            histogram[r["length"]] = int(r["count"])
        return max((int(r["longest"]) for r in rows), default=0), histogram

    def itemsets(request: str) -> bytes:
        # Summed by itemset and private item here; each itemset's support and largest private
        # count are taken on the driver, where a second aggregation would shuffle again.
        summed = (
            answered(request, _COUNTS_SCHEMA)
            .groupBy("part")
            .applyInArrow(summed_part, "summed binary")
        )
        return b"".join(jobs(summed.toArrow).column("summed").to_pylist())

    def candidates(request: str) -> list[list[int]]:
        table = jobs(answered(request, _CANDIDATES_SCHEMA).distinct().toArrow)
        return table.column("itemset").to_pylist()

    def supports_of(request: str) -> list[int]:
        asked = len(json.loads(request)["itemsets"])
        shards = jobs(answered(request, _SUPPORTS_SCHEMA).toArrow).column("supports").to_pylist()
        total = pa.array([0] * asked, pa.int64())
        for words in shards:
            shard = pa.Array.from_buffers(pa.int64(), asked, [None, pa.py_buffer(words)])
            total = pa.compute.add(total, shard)
        return total.to_pylist()

    records = sum(s["records"] for s in statistics.values())
    suppression = _txanon.coherence_sharded_suppression(
        supports=sorted(supports.items()),
        transactions=records,
        private=private,
        lengths=lengths,
        itemsets=itemsets,
        candidates=candidates,
        supports_of=supports_of,
        max_itemsets=params.get("max_itemsets"),
        **numbers,
    )
    shard_ids = sorted(statistics)
    seeds = None if seed is None else {s: _shard_seed(seed, s) for s in shard_ids}

    def release(shard: int, table: pa.Table, shard_seed: int | None) -> Any:
        return _txanon.coherence_release_shard(
            table,
            suppression=suppression,
            private=private,
            shards=len(shard_ids),
            seed_=shard_seed,
            **numbers,
        )

    # From the packed shards, in the order of their ids already: no shuffle of the rows.
    publish = _shard_publisher("coherence", {}, seeds, shard_ids, release=release)
    files = _each_packed_shard(packed, publish, FILES_SCHEMA)
    try:
        files = _computed_once(files)
    except Exception as error:
        raise _translated(error) from None
    claim = {"h": numbers["h"], "k": numbers["k"], "p": numbers["p"], "sensitive": private}
    audited = _coherence_audit(files, claim, packed)
    report = _report("coherence", files, statistics, sharding, seed is not None)
    decided = json.loads(suppression)
    greedy = sum(1 for _, step in decided["suppressed"] if "Greedy" in step)
    report["suppression"] = {
        "scope": "one suppression set over every shard (the single-machine greedy algorithm)",
        "suppressed": len(decided["suppressed"]),
        "suppressed_greedy": greedy,
        "moles": decided["moles"],
        "minimal_moles": decided["minimal_moles"],
        "nuggets_before": decided["nuggets_before"],
        "nuggets_after": decided["nuggets_after"],
        "listed": decided["listed"],
        "requests": decided["requests"],
    }
    report["audit"] = {key: audited[key] for key in ("guarantee", "itemsets", "worst_breach")}
    return SparkPublication(
        "coherence", files, report, data.select("shard", "tid", "items"), "published"
    )


def _coherence_audit(
    files: DataFrame, claim: dict[str, Any], original: DataFrame | None
) -> dict[str, Any]:
    """(h,k,p)-coherence audited over the union of the shards: each shard's files checked by
    the family's audit (the manifest, the published transactions against the shard's original
    when given) with its public itemsets of at most ``p`` items counted, with each private
    item; the counts summed over the shards part by part and decided by the audit's own rule
    (``txanon_coherence::union_part``); every
    shard publishing the same suppressions, and no item published by one shard and suppressed
    by another."""
    from . import _txanon

    functions, _ = _spark()
    claim = dict(claim)
    unknown = sorted(set(claim) - {"h", "k", "p", "sensitive"})
    if unknown:
        raise BadInput(
            f"{unknown[0]}: not a claim of the coherence audit (h, k, p, sensitive, suppression)"
        )
    for name in ("h", "k", "p", "sensitive"):
        if name not in claim:
            raise BadInput(f"{name}: the coherence audit needs h, k, p and sensitive")
    from ._data import labels

    sensitive = labels(claim["sensitive"]) or []
    numbers = {"h": claim["h"], "k": claim["k"], "p": claim["p"], "sensitive": sensitive}
    # The claim checked on the driver, before any job: an empty part breaks no bound.
    _txanon.coherence_union_part([], **numbers)

    # Each shard's itemsets go out keyed by its own ids, as one binary row per part (routed by
    # their labels, alike in every shard); each part's rows are summed and decided in one task.
    # A row of labels per itemset and shard, summed by Spark's `groupBy`, took 230 s of
    # coherence's 508 s at 10⁷ transactions (docs/SPARK.md, "Measured").
    parts = max(2 * _parallelism(files), 8)

    def audit_one(directory: str, scratch: str, original: pa.Table | None) -> tuple[Any, Any]:
        from . import _txanon

        kwargs: dict[str, Any] = dict(numbers, parts=parts)
        if original is not None:
            kwargs["original_"] = original
        report, counted, items = _txanon.audit_coherence_shard(directory, **kwargs)
        # The shard's items travel with its report, for the check across shards below.
        report["published_items"] = items
        return report, pa.table(
            {"part": counted.column("part"), "counts": counted.column("counts").cast(pa.binary())}
        )

    schema = _AUDIT_SCHEMA + ", part int, counts binary"
    counted = {"part": pa.int32(), "counts": pa.binary()}
    rows = _checked_shards(files, original, _shard_checker(audit_one, counted), schema)
    kind = functions.col("kind")
    _, by_kind, violations, present, missing = _shard_findings("coherence", files, rows)
    versions = (
        files.filter(functions.col("name") == "suppressed.json").select("content").distinct().count()
    )
    if versions > 1:
        by_kind["documents-differ"] = by_kind.get("documents-differ", 0) + 1
        violations.append(
            Violation(
                "coherence", "documents-differ", {"file": "suppressed.json", "versions": versions}
            )
        )
    reports = {
        r["shard"]: json.loads(r["details"]) for r in rows.filter(kind == "passed").collect()
    }
    published = {label for r in reports.values() for label in r.pop("published_items", [])}
    # An item one shard publishes and another suppressed is not suppressed everywhere.
    gone = {label for r in reports.values() for label in (r.get("suppressed") or [])}
    for label in sorted(gone & published):
        by_kind["partly-suppressed"] = by_kind.get("partly-suppressed", 0) + 1
        violations.append(
            Violation("coherence", "partly-suppressed", {"item": label, "across": "shards"})
        )

    def decide_part(table: pa.Table) -> pa.Table:
        from . import _txanon

        _limit_threads()
        part = _txanon.coherence_union_part(table.column("counts").to_pylist(), **numbers)
        kinds = {
            "too-few-transactions": int(part["too_few_transactions"]),
            "rare-itemset": part["rare_itemsets"],
            "breach": part["breaches"],
        }
        return pa.table(
            {
                "itemsets": pa.array([part["itemsets"]], pa.int64()),
                "worst": pa.array([part["worst_breach"]], pa.float64()),
                "kinds": pa.array([json.dumps(kinds)], pa.string()),
                "violations": pa.array([json.dumps(part["violations"])], pa.string()),
            }
        )

    # The union's itemsets, its worst share and its violations, from one job.
    decided = (
        rows.filter(kind == "itemset")
        .select("part", "counts")
        .groupBy("part")
        .applyInArrow(decide_part, "itemsets long, worst double, kinds string, violations string")
        .toArrow()
        .to_pylist()
    )
    h, k = float(claim["h"]), int(claim["k"])
    # The summed supports mean something once every shard is there and passed its own checks:
    # a missing or failed shard's itemsets are not counted, and would only show as rare.
    if not by_kind:
        found: list[dict[str, Any]] = []
        for part in decided:
            for name, n in json.loads(part["kinds"]).items():
                if n:
                    by_kind[name] = by_kind.get(name, 0) + n
            found.extend(json.loads(part["violations"]))
        order = {"too-few-transactions": 0, "rare-itemset": 1, "breach": 2}
        # Too few transactions first, then the rarest itemsets, then the breaches.
        found.sort(
            key=lambda v: (
                order.get(v["kind"], 3),
                v.get("support", v.get("transactions", 0)),
                v.get("itemset", []),
            )
        )
        for v in found[:100]:
            name = v.pop("kind")
            violations.append(Violation("coherence", name, v))
    if by_kind:
        kinds = ", ".join(f"{n} {name}" for name, n in sorted(by_kind.items()))
        raise AuditFailed(
            f"coherence audit failed over the union of {len(present | set(missing))} shards: "
            f"{sum(by_kind.values())} violations ({kinds})",
            violations[:100],
        )
    stats = {
        "itemsets": sum(part["itemsets"] for part in decided),
        "worst": max((part["worst"] for part in decided), default=0.0),
    }
    transactions = sum(int(r.get("transactions", 0)) for r in reports.values())
    return {
        "method": "coherence",
        "guarantee": (
            f"(h,k,p)-coherence with h = {h}, k = {k}, p = {claim['p']} for {len(sensitive)} "
            "private items over the union of the shards"
        ),
        "shards": len(reports),
        "passed": True,
        "transactions": transactions,
        "itemsets": int(stats["itemsets"]),
        "worst_breach": float(stats["worst"] or 0.0),
        "per_shard": [dict(shard=s, **reports[s]) for s in sorted(reports)],
    }


# --- kᵐ-anonymity: one cut over every shard ---------------------------------------------------

#: The options of ``txanon.anonymize.km`` the global cut takes, as that function names them
#: (``max_cuts`` bounds OA's search, which needs the whole data and is refused here).
_KM_OPTIONS = (
    "k",
    "m",
    "hierarchy",
    "fanout",
    "build",
    "algorithm",
    "max_cuts",
    "max_combinations",
)

#: The largest ``max_combinations`` (``txanon_km::MAX_COUNTERS``: 5·10⁸ counters, some 18 GB).
MAX_COUNTERS = 500_000_000

#: A shard's itemset counts, one row per part of the key space (``km_count_shard``), and one
#: part's rare keys summed over the shards (``km_rare_in_union``).
_COUNTS_SCHEMA = "part int, counts binary"
_RARE_SCHEMA = "rare binary"
_SUPPORTS_SCHEMA = "supports binary"


def _by_part(batch: pa.RecordBatch) -> pa.Table:
    """A shard's ``(part, counts)`` answer as a batch per part, so that no batch's binary column
    passes Arrow's 2 GiB."""
    return pa.Table.from_batches(
        [
            pa.record_batch(
                [batch.column(0).slice(j, 1), batch.column(1).slice(j, 1).cast(pa.binary())],
                names=["part", "counts"],
            )
            for j in range(batch.num_rows)
        ],
        schema=pa.schema([("part", pa.int32()), ("counts", pa.binary())]),
    )


def _km_params(params: dict[str, Any]) -> dict[str, Any]:
    """kᵐ-anonymity's options, checked on the driver before any job."""
    unknown = sorted(set(params) - set(_KM_OPTIONS))
    if unknown:
        raise BadInput(f"{unknown[0]}: not an option of km (options: {', '.join(_KM_OPTIONS)})")
    for name in ("k", "m"):
        if name not in params:
            raise BadInput(f"{name}: km needs k and m")
    k = _bounded_int("k", params["k"], 2, (1 << 32) - 1)
    m = _bounded_int("m", params["m"], 1, 4)
    fanout = _bounded_int("fanout", params.get("fanout", 5), 2, 1_000_000)
    build = _word("build", params.get("build", "order"), ("order", "cooccurrence"))
    algorithm = _word("algorithm", params.get("algorithm", "aa"), ("aa", "da", "oa"))
    _bounded_int("max_cuts", params.get("max_cuts", 1_000_000), 1, (1 << 64) - 1)
    if build == "cooccurrence":
        raise BadInput(
            "build = 'cooccurrence': the co-occurrence hierarchy compares every pair of items over "
            "the whole data; on Spark give a hierarchy file, or build='order'"
        )
    if algorithm == "oa":
        raise BadInput(
            "algorithm = 'oa': the optimal search tries every cut over the whole data in one "
            "process; on Spark use 'aa' or 'da'"
        )
    max_combinations = _bounded_int(
        "max_combinations", params.get("max_combinations", 200_000_000), 1, MAX_COUNTERS
    )
    spec: dict[str, Any] = {}
    if params.get("hierarchy") is not None:
        path = os.fspath(params["hierarchy"])
        try:
            with open(path, encoding="utf-8") as text:
                spec["hierarchy_text"] = text.read()
        except OSError as error:
            raise BadInput(f"hierarchy: {path}: {error.strerror}") from None
        described = path
    else:
        spec["fanout"] = fanout
        described = f"balanced, fanout {fanout}"
    return {
        "k": k,
        "m": m,
        "algorithm": algorithm,
        "max_combinations": max_combinations,
        "spec": spec,
        "described": described,
    }


def _km(
    data: DataFrame,
    options: dict[str, Any],
    statistics: dict[int, dict[str, int]],
    sharding: dict[str, Any],
    seed: int | None,
) -> SparkPublication:
    """kᵐ-anonymity with one cut over every shard: the driver's search (the km crate's, the
    one a single process runs) asks the shards for their capped counts, each request one job;
    then every shard publishes its transactions under the cut, and the union is audited."""
    from . import _txanon

    k = options["k"]
    # Read once: every request of the search is a job over the same shards, packed, and so
    # are the item supports.
    packed = _packed(data, sorted(statistics))
    supports = _packed_supports(packed)
    spec = dict(options["spec"])
    if "hierarchy_text" not in spec:
        # Every shard builds the hierarchy one process builds over the whole data: the
        # balanced one over every item, in the order a read ranks them.
        spec["universe"] = sorted(supports)

    # A pass's itemset counts are summed part by part of the key space: each shard's counts go
    # out as one binary row per part, and each part's rows are summed in one task, where a row
    # per itemset and shard made Spark move and aggregate some 10⁸ rows at 10⁷ transactions.
    parts = max(_parallelism(data), 2 * len(statistics))

    def counted(request: str, schema: str) -> DataFrame:
        def count(_shard: int, table: pa.Table) -> pa.Table:
            from . import _txanon

            _limit_threads()
            batch = _txanon.km_count_shard(table, request=request, parts=parts, **spec)
            answer = pa.Table.from_batches([batch])
            if "support" in answer.column_names:
                # One row per shard: its supports (each at most k) as 32-bit words, summed on
                # the driver, where a row per itemset and shard would be shuffled.
                words = answer.column("support").cast(pa.uint32()).combine_chunks()
                return pa.table({"supports": pa.array([words.buffers()[1].to_pybytes()])})
            return _by_part(batch)

        return _each_packed_shard(packed, count, schema)

    def rare_in_part(table: pa.Table) -> pa.Table:
        from . import _txanon

        _limit_threads()
        pieces = table.column("counts").to_pylist()
        return pa.table({"rare": pa.array([_txanon.km_rare_in_union(pieces, k=k)], pa.binary())})

    def rare_itemsets(request: str) -> bytes:
        try:
            rare = (
                counted(request, _COUNTS_SCHEMA)
                .groupBy("part")
                .applyInArrow(rare_in_part, _RARE_SCHEMA)
                .toArrow()
            )
        except Exception as error:
            raise _translated(error) from None
        return b"".join(rare.column("rare").to_pylist())

    def supports_of(request: str) -> list[int]:
        asked = len(json.loads(request)["itemsets"])
        try:
            shards = counted(request, _SUPPORTS_SCHEMA).toArrow().column("supports").to_pylist()
        except Exception as error:
            raise _translated(error) from None
        total = pa.array([0] * asked, pa.uint64())
        for words in shards:
            shard = pa.Array.from_buffers(pa.uint32(), asked, [None, pa.py_buffer(words)])
            total = pa.compute.add(total, shard.cast(pa.uint64()))
        return total.to_pylist()

    records = sum(s["records"] for s in statistics.values())
    cut, generalizations, requests = _txanon.km_sharded_cut(
        supports=sorted(supports.items()),
        transactions=records,
        k=k,
        m=options["m"],
        rare_itemsets=rare_itemsets,
        supports_of=supports_of,
        algorithm=options["algorithm"],
        max_combinations=options["max_combinations"],
        **spec,
    )
    shard_ids = sorted(statistics)
    seeds = None if seed is None else {s: _shard_seed(seed, s) for s in shard_ids}

    def release(shard: int, table: pa.Table, shard_seed: int | None) -> Any:
        return _txanon.km_release_shard(
            table,
            cut=cut,
            generalizations=len(generalizations),
            shards=len(shard_ids),
            k=k,
            m=options["m"],
            described=options["described"],
            algorithm=options["algorithm"],
            seed_=shard_seed,
            **spec,
        )

    # From the packed shards, in the order of their ids already: no shuffle of the rows.
    publish = _shard_publisher("km", {}, seeds, shard_ids, release=release)
    files = _each_packed_shard(packed, publish, FILES_SCHEMA)
    try:
        files = _computed_once(files)
    except Exception as error:
        raise _translated(error) from None
    # Against the packed shards: the original's rows need no shuffle by shard again.
    audited = _km_audit(files, {"k": k, "m": options["m"]}, packed)
    report = _report("km", files, statistics, sharding, seed is not None)
    report["cut"] = {
        "scope": "one cut over every shard (the single-machine search)",
        "nodes": len(cut),
        "generalizations": len(generalizations),
        "requests": requests,
    }
    report["audit"] = {key: audited[key] for key in ("guarantee", "itemsets", "smallest_support")}
    return SparkPublication("km", files, report, data.select("shard", "tid", "items"), "published")


#: The bytes of one itemset in ``km_union_part``'s rare itemsets: a 16-byte key, an 8-byte
#: support.
_AUDIT_COUNTED_BYTES = 24


def _km_audit(
    files: DataFrame, claim: dict[str, Any], original: DataFrame | None
) -> dict[str, Any]:
    """kᵐ-anonymity audited over the union of the shards: each shard's files checked by the
    family's audit (the manifest, the published items against the hierarchy and the cut, the
    shard's original when given) with its itemsets of at most ``m`` items counted, capped at
    ``k``; the counts summed over the shards by Spark, every itemset whose sum stays below ``k``
    a violation; and every shard publishing the same cut and hierarchy."""
    functions, _ = _spark()
    claim = dict(claim)
    for name in ("k", "m"):
        if name not in claim:
            raise BadInput(f"{name}: the km audit needs k and m")
    k = _bounded_int("k", claim["k"], 2, (1 << 63) - 1)
    _bounded_int("m", claim["m"], 1, 4)
    unknown = sorted(set(claim) - {"k", "m", "hierarchy"})
    if unknown:
        raise BadInput(f"{unknown[0]}: not a claim of the km audit (k, m, hierarchy)")
    hierarchy_text = None
    if claim.get("hierarchy") is not None:
        with open(claim.pop("hierarchy"), encoding="utf-8") as text:
            hierarchy_text = text.read()

    # Each shard's itemsets go out keyed by the hierarchy's nodes (one hierarchy for every
    # shard, checked below), as one binary row per part of the keys; each part's rows are
    # summed in one task. A row of labels per itemset and shard, summed by Spark's `groupBy`,
    # took 151 s of km's 523 s at 10⁷ transactions (docs/SPARK.md, "Measured").
    parts = max(2 * _parallelism(files), 8)

    def audit_one(directory: str, scratch: str, original: pa.Table | None) -> tuple[Any, Any]:
        from . import _txanon

        kwargs: dict[str, Any] = {"k": claim["k"], "m": claim["m"], "parts": parts}
        if hierarchy_text is not None:
            kwargs["hierarchy"] = os.path.join(scratch, "hierarchy.txt")
            with open(kwargs["hierarchy"], "w", encoding="utf-8") as out:
                out.write(hierarchy_text)
        if original is not None:
            kwargs["original_"] = original
        report, counted = _txanon.audit_km_shard(directory, **kwargs)
        return report, pa.table(
            {"part": counted.column("part"), "counts": counted.column("counts").cast(pa.binary())}
        )

    schema = _AUDIT_SCHEMA + ", part int, counts binary"
    counted = {"part": pa.int32(), "counts": pa.binary()}
    rows = _checked_shards(files, original, _shard_checker(audit_one, counted), schema)
    kind = functions.col("kind")
    _, by_kind, violations, present, missing = _shard_findings("km", files, rows)
    # One cut, one hierarchy: otherwise the shards' items are not one generalization. Both
    # documents' versions counted in one job.
    documents = ("cut.txt", "hierarchy.txt")
    versions_of = {
        r["name"]: r["versions"]
        for r in files.filter(functions.col("name").isin(*documents))
        .groupBy("name")
        .agg(functions.countDistinct("content").alias("versions"))
        .collect()
    }
    for name in documents:
        versions = versions_of.get(name, 0)
        if versions > 1:
            by_kind["documents-differ"] = by_kind.get("documents-differ", 0) + 1
            violations.append(
                Violation("km", "documents-differ", {"file": name, "versions": versions})
            )
    def sum_part(table: pa.Table) -> pa.Table:
        from . import _txanon

        _limit_threads()
        itemsets, smallest, rare = _txanon.km_union_part(table.column("counts").to_pylist(), k=k)
        return pa.table(
            {
                "itemsets": pa.array([itemsets], pa.int64()),
                "smallest": pa.array([smallest], pa.int64()),
                "rare": pa.array([rare], pa.binary()),
            }
        )

    # The union's itemsets, their smallest support and the rare ones, from one job.
    sums = (
        rows.filter(kind == "itemset")
        .select("part", "counts")
        .groupBy("part")
        .applyInArrow(sum_part, "itemsets long, smallest long, rare binary")
        .toArrow()
    )
    smallests = [s for s in sums.column("smallest").to_pylist() if s is not None]
    stats = {
        "itemsets": sum(sums.column("itemsets").to_pylist()),
        "smallest": min(smallests) if smallests else None,
    }
    rare = b"".join(sums.column("rare").to_pylist())
    # The union's supports mean something once every shard is there and passed its own checks:
    # a missing or failed shard's itemsets are not counted, and would only show as rare.
    rare_count = 0 if by_kind else len(rare) // _AUDIT_COUNTED_BYTES
    if rare_count:
        from . import _txanon

        by_kind["rare-itemset"] = rare_count
        if hierarchy_text is None:
            # The shards' one hierarchy (more than one version failed above).
            hierarchy_text = (
                files.filter(functions.col("name") == "hierarchy.txt")
                .select("content")
                .limit(1)
                .collect()[0]["content"]
                .decode("utf-8")
            )
        named = _txanon.km_itemset_labels(rare, hierarchy_text=hierarchy_text)
        for labels, support in sorted(named, key=lambda r: (r[1], r[0]))[:100]:
            violations.append(
                Violation("km", "rare-itemset", {"itemset": labels, "support": support, "k": k})
            )
    reports = {
        r["shard"]: json.loads(r["details"]) for r in rows.filter(kind == "passed").collect()
    }
    transactions = sum(int(r.get("transactions", 0)) for r in reports.values())
    if transactions < k and not by_kind:
        by_kind["too-few-transactions"] = 1
        violations.append(
            Violation("km", "too-few-transactions", {"transactions": transactions, "k": k})
        )
    if by_kind:
        total = sum(by_kind.values())
        kinds = ", ".join(f"{n} {name}" for name, n in sorted(by_kind.items()))
        raise AuditFailed(
            f"km audit failed over the union of {len(present | set(missing))} shards: "
            f"{total} violations ({kinds})",
            violations[:100],
        )
    return {
        "method": "km",
        "guarantee": f"k^m-anonymity with k = {k}, m = {claim['m']} over the union of the shards",
        "shards": len(reports),
        "passed": True,
        "transactions": transactions,
        "itemsets": int(stats["itemsets"]),
        "smallest_support": None if stats["smallest"] is None else int(stats["smallest"]),
        "per_shard": [dict(shard=s, **reports[s]) for s in sorted(reports)],
    }


def _unpacked(files: pa.Table, scratch: str) -> str | tuple[str, dict[str, Any]]:
    """A shard's files written into a directory under ``scratch`` (its path), or the violation
    of a file name that is not a plain name."""
    directory = os.path.join(scratch, "publication")
    os.mkdir(directory)
    for row in files.to_pylist():
        name = row["name"]
        if name == SHARDS_FILE:
            continue
        if os.path.basename(name) != name or name in ("", ".", ".."):
            return ("file-name", {"name": name})
        with open(os.path.join(directory, name), "wb") as out:
            out.write(row["content"] or b"")
    return directory


def _report(
    method: str,
    files: DataFrame,
    statistics: dict[int, dict[str, int]],
    sharding: dict[str, Any],
    seeded: bool,
) -> dict[str, Any]:
    functions, _ = _spark()
    documents: dict[int, dict[str, Any]] = {}
    for r in (
        files.filter(functions.col("name").isin("summary.json", "manifest.json"))
        .select("shard", "name", "content")
        .collect()
    ):
        documents.setdefault(r["shard"], {})[r["name"]] = json.loads(bytes(r["content"]))
    per_shard = []
    for shard in sorted(statistics):
        summary = documents.get(shard, {}).get("summary.json", {})
        manifest = documents.get(shard, {}).get("manifest.json", {})
        per_shard.append(
            {
                "shard": shard,
                **statistics[shard],
                "summary": summary,
                "audit": manifest.get("audit"),
            }
        )
    records = sum(s["records"] for s in statistics.values())
    published = sum(_published_records(method, s["summary"], s["records"]) for s in per_shard)
    return {
        "method": method,
        **sharding,
        "shards": len(per_shard),
        "records": records,
        "published_records": published,
        "randomness": "seeded (the seed is the data holder's secret)"
        if seeded
        else "operating system",
        "utility": _pooled_utility(method, per_shard),
        "per_shard": per_shard,
    }


def _published_records(method: str, summary: dict[str, Any], records: int) -> int:
    for key in ("published_records", "records_published"):
        if isinstance(summary.get(key), int):
            return summary[key]
    return records


def _pooled_utility(method: str, per_shard: list[dict[str, Any]]) -> dict[str, Any]:
    """The family's figure of what sharding costs, pooled over the shards as the scaling
    experiment pools it."""
    name = _UTILITY[method]
    values = [(s["summary"].get(name), s) for s in per_shard]
    if method == "anatomy":
        logs = [v for v, _ in values if isinstance(v, (int, float))]
        top = max(logs) if logs else 0.0
        pooled = top + math.log(sum(math.exp(v - top) for v in logs)) if logs else None
    elif method == "cahd":
        pairs = [(v["mean"], s["records"]) for v, s in values if isinstance(v, dict)]
        weight = sum(w for _, w in pairs)
        pooled = sum(v * w for v, w in pairs) / weight if weight else None
    elif method == "swap":
        pooled = sum(v for v, _ in values if isinstance(v, int))
    else:
        pairs = [(v, s["occurrences"]) for v, s in values if isinstance(v, (int, float))]
        weight = sum(w for _, w in pairs)
        pooled = sum(v * w for v, w in pairs) / weight if weight else None
    return {"figure": name, "pooled": pooled, "per_shard": [v for v, _ in values]}


_RAISED = re.compile(r"txanon\.errors\.(BadInput|Infeasible|AuditFailed|InternalError): ([^\n]*)")


def _translated(error: Exception) -> Exception:
    """A worker's txanon error, as Spark wraps it, raised again as itself."""
    found = _RAISED.search(str(error))
    if found is None:
        return error
    kind = {
        "BadInput": BadInput,
        "Infeasible": Infeasible,
        "AuditFailed": AuditFailed,
        "InternalError": InternalError,
    }[found.group(1)]
    return kind(found.group(2))
