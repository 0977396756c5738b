"""txanon.spark in Spark's local mode: every family on 10⁵ generated transactions, read by Spark
from Parquet and split into shards; each shard's publication audited, a tampered one caught,
bad input refused before the work; kᵐ-anonymity's one cut over every shard equal to the
single-machine publication, and audited over the union.

One session for the whole run (local[2], UI off, four shuffle partitions, 2 GB for the driver).
Without pyspark or Java the tests skip with the reason, and fail when ``CI=true``.
"""

from __future__ import annotations

import collections
import itertools
import json
import os
import shutil
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import txanon
from conftest import run_cli, unavailable

N = 100_000
SHARDS = 4


@pytest.fixture(scope="session")
def spark():
    try:
        import pyspark  # noqa: F401
    except ImportError:
        unavailable("pyspark is not installed (pip install 'pyspark>=4')")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        unavailable("no Java runtime (Spark needs Java 17 or newer)")
    from pyspark.sql import SparkSession

    # The workers run this interpreter, which has txanon installed.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("txanon-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def baskets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """10⁵ Quest transactions over 500 items as Parquet (one list<int64> column)."""
    directory = tmp_path_factory.mktemp("spark")
    fimi = directory / "quest.dat"
    run_cli(
        "generate",
        "quest",
        "--transactions",
        str(N),
        "--avg-len",
        "8",
        "--pattern-len",
        "4",
        "--items",
        "500",
        "--seed",
        "7",
        "-o",
        fimi,
    )
    items = txanon.read(fimi).column("items").cast(pa.list_(pa.int64()))
    path = directory / "quest.parquet"
    pq.write_table(pa.table({"items": items}), path)
    return path


@pytest.fixture(scope="session")
def frame(spark, baskets):
    return spark.read.parquet(str(baskets))


SENSITIVE = ["3", "17", "101", "250", "499"]

RUNS = {
    "anatomy": (dict(columns=4, l=2), dict(l=2)),
    "cahd": (dict(p=4, sensitive=SENSITIVE), dict(p=4, sensitive=SENSITIVE)),
    "coherence": (
        dict(h=0.6, k=5, p=2, nugget_support=0.01, sensitive=SENSITIVE),
        dict(h=0.6, k=5, p=2, sensitive=SENSITIVE),
    ),
    "km": (dict(k=10, m=2), dict(k=10, m=2)),
    "swap": (dict(random_categories=20), None),
}


@pytest.fixture(scope="session")
def publications(frame):
    import txanon.spark as ts

    return {
        method: ts.anonymize(frame, method, shards=SHARDS, seed=11, **params)
        for method, (params, _) in RUNS.items()
    }


def shard_files(publication, shard: int) -> dict[str, bytes]:
    from pyspark.sql import functions as F

    rows = publication.files.filter(F.col("shard") == shard).collect()
    return {r["name"]: bytes(r["content"]) for r in rows}


@pytest.mark.parametrize("method", sorted(RUNS))
def test_every_shard_publishes_what_the_family_publishes_and_passes_its_audit(publications, method):
    import txanon.spark as ts

    publication = publications[method]
    report = publication.report
    assert report["shards"] == SHARDS and report["sharding"] == "random"
    assert report["records"] == N
    assert sum(s["records"] for s in report["per_shard"]) == N
    # Random shards of 10⁵: none is empty or far from a quarter.
    assert all(0.2 * N < s["records"] < 0.3 * N for s in report["per_shard"])
    assert all(s["audit"]["passed"] for s in report["per_shard"]), method
    assert report["utility"]["pooled"] is not None
    for shard in range(SHARDS):
        names = set(shard_files(publication, shard))
        assert {"manifest.json", "summary.json", ts.SHARDS_FILE} <= names, names
    published = publication.transactions()
    assert published.count() == report["published_records"]
    assert published.select("shard").distinct().count() == SHARDS
    claim = RUNS[method][1]
    if claim is not None:
        audited = ts.audit(publication, method, original=publication.sharded, **claim)
        assert audited["passed"] and audited["shards"] == SHARDS
        assert [s["shard"] for s in audited["per_shard"]] == list(range(SHARDS))


def test_a_shard_is_the_family_run_on_that_shard(publications, tmp_path):
    """What a worker publishes is what txanon.anonymize publishes for the shard's transactions:
    the adapter adds nothing to the family's run."""
    from pyspark.sql import functions as F

    import txanon.spark as ts

    publication = publications["cahd"]
    shard = 2
    rows = publication.sharded.filter(F.col("shard") == shard).orderBy("tid").select("items")
    table = pa.Table.from_pylist([r.asDict() for r in rows.collect()])
    direct = txanon.anonymize.cahd(table, p=4, sensitive=SENSITIVE, seed=ts._shard_seed(11, shard))
    written = Path(direct.write(tmp_path / "direct"))
    expected = {p.name: p.read_bytes() for p in written.iterdir()}
    got = shard_files(publication, shard)
    got.pop(ts.SHARDS_FILE)
    # The manifest names the input as the Arrow table it was handed; the rest is byte for byte.
    assert got.keys() == expected.keys()
    for name in expected:
        if name != "manifest.json":
            assert got[name] == expected[name], name
    assert (
        json.loads(got["manifest.json"])["files"] == json.loads(expected["manifest.json"])["files"]
    )


def test_the_same_seed_publishes_the_same_files_and_no_seed_differs(frame):
    import txanon.spark as ts

    def files(publication):
        return sorted(
            (r["shard"], r["name"], bytes(r["content"])) for r in publication.files.collect()
        )

    small = frame.limit(5000)
    first = files(ts.anonymize(small, "km", shards=2, seed=5, k=5, m=2))
    assert first == files(ts.anonymize(small, "km", shards=2, seed=5, k=5, m=2))
    unseeded = files(ts.anonymize(small, "km", shards=2, k=5, m=2))
    assert unseeded != first
    # The seed is the data holder's secret: no published file holds a shard's seed (the seed
    # itself, 5, is too short to look for), and no manifest records one.
    shard_seeds = [str(ts._shard_seed(5, s)).encode() for s in (0, 1)]
    for _, name, content in first:
        for secret in shard_seeds:
            assert secret not in content, name
        if name == "manifest.json":
            assert b'"seed"' not in content


def under(published, columns) -> bool:
    """Whether a shard's published columns are ``columns`` cut to the items the shard holds:
    each inside its own given column."""
    given = [set(c) for c in columns]
    homes = [[j for j, g in enumerate(given) if set(c) <= g] for c in published]
    return len(published) == len(columns) and sorted(h[0] for h in homes if len(h) == 1) == list(
        range(len(columns))
    )


def test_anatomy_shards_share_one_item_partition(frame, publications, tmp_path):
    """Every shard publishes under the one partition the driver built from a sample and
    completed with every item: each shard's table has those columns, and each shard is the
    family given those columns on the shard's transactions."""
    from pyspark.sql import functions as F

    import txanon.spark as ts

    publication = publications["anatomy"]
    built = publication.report["item_columns"]
    # 10⁵ transactions, under the default sample: the whole table is the sample.
    assert built["from"] == "sample" and built["sample"] == N and built["completed"] == 0
    columns = built["columns"]
    assert len(columns) == RUNS["anatomy"][0]["columns"]
    labels = [label for column in columns for label in column]
    assert len(labels) == len(set(labels)) == frame.select(F.explode("items")).distinct().count()
    for shard in range(SHARDS):
        table = json.loads(shard_files(publication, shard)["table.json"])
        assert under(table["columns"], columns), shard
    shard = 1
    rows = publication.sharded.filter(F.col("shard") == shard).orderBy("tid").select("items")
    data = pa.Table.from_pylist([r.asDict() for r in rows.collect()])
    direct = txanon.anonymize.anatomy(
        data, columns=4, l=2, item_columns=columns, seed=ts._shard_seed(11, shard)
    )
    written = Path(direct.write(tmp_path / "direct"))
    got = shard_files(publication, shard)
    for name in ("table.json", "anonymized.dat", "summary.json"):
        if name == "summary.json":
            assert json.loads(got[name]) | {"input": ""} == json.loads(
                (written / name).read_bytes()
            ) | {"input": ""}
        else:
            assert got[name] == (written / name).read_bytes(), name

    # A sample smaller than the table: drawn by a keyed hash (the same seed, the same sample
    # and columns), completed with the items it missed, and every shard still audited.
    small = frame.limit(20_000)
    runs = [
        ts.anonymize(small, "anatomy", shards=2, seed=seed, partition_sample=600, columns=4, l=2)
        for seed in (5, 5, 6)
    ]
    reports = [r.report["item_columns"] for r in runs]
    assert 450 < reports[0]["sample"] < 750
    assert reports[0] == reports[1] and reports[0]["columns"] != reports[2]["columns"]
    assert reports[0]["completed"] > 0
    assert sum(len(c) for c in reports[0]["columns"]) == small.select(
        F.explode("items")
    ).distinct().count()
    assert ts.audit(runs[0], "anatomy", l=2, original=runs[0].sharded)["passed"]

    # The caller's own columns: every shard publishes under them, checked to cover every item
    # before any job.
    given = ts.anonymize(small, "anatomy", shards=2, seed=5, item_columns=columns, columns=4, l=2)
    assert given.report["item_columns"] == {"from": "given", "columns": columns}
    table = json.loads(shard_files(given, 0)["table.json"])
    assert under(table["columns"], columns)
    assert not under(table["columns"], reports[2]["columns"])
    cases = [
        (dict(item_columns=[c[1:] for c in columns]), "item(s) of the data are in no given column"),
        (dict(item_columns=columns, partition_sample=10), "item_columns and partition_sample"),
        (dict(item_columns=columns, partitioning="diverse"), "item_columns and partitioning"),
        (dict(partition_sample=0), "partition_sample = 0: out of range, allowed 1 to"),
    ]
    for options, message in cases:
        with pytest.raises(txanon.BadInput) as raised:
            ts.anonymize(small, "anatomy", shards=2, columns=4, l=2, **options)
        assert message in str(raised.value), (message, str(raised.value))


def test_quest_generated_inside_spark_is_the_parts(spark):
    """Each partition makes its part: the rows are the parts' in partition order, the same
    arguments give the same rows, and bad options are refused before any job."""
    import txanon.spark as ts

    options = dict(avg_len=6, pattern_len=3, items=200, seed=4)
    frame = ts.generate_quest(spark, 10_001, partitions=4, **options)
    assert frame.schema.simpleString() == "struct<items:array<bigint>>"
    rows = [r["items"] for r in frame.collect()]
    parts = [
        txanon.generate.quest(transactions=2501 if j == 0 else 2500, part=j, **options)
        for j in range(4)
    ]
    assert rows == [t for p in parts for t in p.column("items").to_pylist()]
    assert rows == [r["items"] for r in ts.generate_quest(spark, 10_001, partitions=4, **options).collect()]
    # It is data like any other: anonymized and audited on Spark.
    publication = ts.anonymize(frame, "swap", shards=2, seed=1, random_categories=5)
    assert publication.report["records"] == 10_001
    for options, message in [
        (dict(partitions=0), "partitions = 0: out of range, allowed 1 to 10"),
        (dict(partitions=11), "partitions = 11: out of range, allowed 1 to 10"),
        (dict(items=0), "items = 0: out of range"),
        (dict(part=2), "part: not an option"),
    ]:
        with pytest.raises(txanon.BadInput) as raised:
            ts.generate_quest(spark, 10, **options)
        assert message in str(raised.value), (message, str(raised.value))


def test_a_tampered_shard_fails_its_audit_and_names_the_shard(spark, publications, tmp_path):
    from pyspark.sql import functions as F

    import txanon.spark as ts

    publication = publications["cahd"]
    path = str(tmp_path / "cahd-published")
    publication.write(path)
    with pytest.raises(txanon.BadInput):
        publication.write(path)  # never replaced unless asked
    read_back = spark.read.parquet(path)
    claim = RUNS["cahd"][1]
    assert ts.audit(read_back, "cahd", **claim)["passed"]

    # One published transaction of shard 1 changed: its manifest no longer verifies.
    def tamper(content):
        lines = bytes(content).split(b"\n")
        lines[0] = b"1 2 3"
        return bytearray(b"\n".join(lines))

    tamper_udf = F.udf(tamper, "binary")
    tampered = read_back.withColumn(
        "content",
        F.when(
            (F.col("shard") == 1) & (F.col("name") == "qid.dat"), tamper_udf("content")
        ).otherwise(F.col("content")),
    )
    with pytest.raises(txanon.AuditFailed) as failed:
        ts.audit(tampered, "cahd", **claim)
    assert {v["shard"] for v in failed.value.violations} == {1}
    assert "manifest" in failed.value.kinds
    assert "1 of 4 shards" in failed.value.message

    # A shard dropped: the others still list it.
    dropped = read_back.filter(F.col("shard") != 3)
    with pytest.raises(txanon.AuditFailed) as failed:
        ts.audit(dropped, "cahd", **claim)
    assert failed.value.kinds == ["shard-missing"] and failed.value.violations[0]["shard"] == 3

    # A stronger claim than the publication meets fails on every shard, counted per shard.
    with pytest.raises(txanon.AuditFailed) as failed:
        ts.audit(read_back, "cahd", p=40, sensitive=SENSITIVE)
    assert {v["shard"] for v in failed.value.violations} == set(range(SHARDS))


def test_the_long_shape_and_a_shard_column(spark):
    import txanon.spark as ts

    long = spark.createDataFrame(
        [(t, f"i{(t * 7 + j) % 40}") for t in range(3000) for j in range(1 + t % 4)],
        "order long, product string",
    )
    publication = ts.anonymize(long, "km", items="product", tid="order", shards=3, seed=2, k=4, m=2)
    assert publication.report["records"] == 3000
    assert ts.audit(publication, "km", k=4, m=2, original=publication.sharded)["passed"]
    # String labels: the hierarchy every shard builds is the one built over the whole table.
    whole = pa.table(
        {"items": [sorted({f"i{(t * 7 + j) % 40}" for j in range(1 + t % 4)}) for t in range(3000)]}
    )
    one = txanon.anonymize.km(whole, k=4, m=2, seed=2)
    assert shard_files(publication, 0)["cut.txt"] == one.document("cut.txt").encode()
    published = [r["items"] for r in publication.transactions().collect()]
    assert published_multiset(published) == published_multiset(
        one.tables["published"].column("items").to_pylist()
    )

    keyed = spark.createDataFrame(
        [([j % 30, (j * 3) % 30 + 30], j % 2) for j in range(4000)], "items array<int>, region int"
    )
    publication = ts.anonymize(keyed, "anatomy", shards="region", seed=3, columns=2, l=2)
    assert publication.report["sharding"] == "column region"
    assert sorted(s["shard"] for s in publication.report["per_shard"]) == [0, 1]
    assert [s["records"] for s in publication.report["per_shard"]] == [2000, 2000]


def test_each_shard_of_a_shard_column_reaches_one_task_of_its_own(spark):
    """Shard numbers of any integers (negative, sparse) each land in a partition of their own,
    their transactions whole and in the order of their ids."""
    from pyspark.sql import functions as F

    import txanon.spark as ts

    regions = [-7, 3, 1000, 1001]
    rows = [([j % 50, 50 + (j * 7) % 50], regions[(j * 5) % 4]) for j in range(6000)]
    keyed = spark.createDataFrame(rows, "items array<int>, region int").repartition(3)
    data = ts._shape(keyed, "items", None, "region")
    pieces = ts._shard_pieces(data, sorted(regions))
    placed = pieces.select("shard", F.spark_partition_id().alias("partition")).distinct().collect()
    assert sorted((r["shard"], r["partition"]) for r in placed) == [
        (s, j) for j, s in enumerate(sorted(regions))
    ]
    by_shard: dict[int, list[tuple[int, list[int]]]] = {}
    for r in data.select("tid", "items", "shard").collect():
        by_shard.setdefault(r["shard"], []).append((r["tid"], r["items"]))

    def seen(shard: int, items: pa.Table) -> pa.Table:
        nested = pa.array([items.column(0).to_pylist()], pa.list_(pa.list_(pa.int64())))
        return pa.table({"shard": pa.array([shard], pa.int32()), "items": nested})

    got = ts._each_shard(pieces, seen, "shard int, items array<array<bigint>>").collect()
    assert sorted(r["shard"] for r in got) == sorted(regions)
    for r in got:
        assert r["items"] == [items for _, items in sorted(by_shard[r["shard"]])]


def test_integer_items_travel_as_32_bits_only_where_every_label_fits():
    import txanon.spark as ts

    wide_type = pa.list_(pa.int64())
    fits = pa.table({"tid": [1, 2], "items": pa.array([[0, 5], [0xFFFF_FFFF]], wide_type)})
    assert ts._narrowed(fits).column("items").type.value_type == pa.uint32()
    assert ts._narrowed(fits).column("items").to_pylist() == fits.column("items").to_pylist()
    for items in ([[-1, 5], [2]], [[1 << 32], [2]]):
        wide = pa.table({"tid": [1, 2], "items": pa.array(items, pa.list_(pa.int64()))})
        assert ts._narrowed(wide).column("items").type.value_type == pa.int64()
    text = pa.table({"tid": [1], "items": pa.array([["a", "b"]], pa.list_(pa.string()))})
    assert ts._narrowed(text).equals(text)


def test_integer_labels_at_the_ends_of_32_bits_publish_and_beyond_them_are_refused(spark):
    import txanon.spark as ts

    def frame(labels: list[int]):
        rows = [([labels[j % 6], labels[(j + 1) % 6]],) for j in range(600)]
        return spark.createDataFrame(rows, "items array<bigint>")

    labels = [0, 1, (1 << 32) - 1, 7, 8, 9]
    publication = ts.anonymize(frame(labels), "km", shards=2, seed=1, k=2, m=2)
    published = {i for r in publication.transactions().collect() for i in r["items"]}
    assert published == {str(v) for v in labels}
    for bad in (-3, 1 << 32):
        with pytest.raises(txanon.BadInput, match=rf"^items: item {bad} is out of range 0\.\.="):
            ts.anonymize(frame([bad, 1, 2, 7, 8, 9]), "swap", shards=2, random_categories=2)


def test_the_default_shards_are_a_multiple_of_the_tasks_run_at_once(spark, monkeypatch):
    import txanon.spark as ts

    small = spark.createDataFrame([([t % 50, 50 + t % 7],) for t in range(900)], "items array<int>")
    shaped = ts._shape(small, "items", None, None)
    # 900 transactions at 200 a shard: five shards by the records, six on two cores.
    monkeypatch.setattr(ts, "DEFAULT_SHARD_RECORDS", 200)
    _, sharding, statistics = ts._sharded(shaped, "items", None, 5, ts.MAX_SHARD_BYTES)
    assert spark.sparkContext.defaultParallelism == 2
    assert sharding["requested"] == 6
    assert sorted(statistics) == list(range(6))
    assert sum(s["records"] for s in statistics.values()) == 900
    # Fewer records than a shard: still one shard per task run at once.
    monkeypatch.setattr(ts, "DEFAULT_SHARD_RECORDS", 10_000)
    _, sharding, _ = ts._sharded(shaped, "items", None, 5, ts.MAX_SHARD_BYTES)
    assert sharding["requested"] == 2
    # Given, the count is the caller's.
    _, sharding, _ = ts._sharded(shaped, "items", 5, 5, ts.MAX_SHARD_BYTES)
    assert sharding["requested"] == 5


def test_bad_input_is_refused_before_the_work(spark, frame):
    import txanon.spark as ts

    cases = [
        (
            lambda: ts.anonymize(frame, "mondrian", k=2),
            "method = 'mondrian': not allowed; one of anatomy, cahd",
        ),
        (lambda: ts.anonymize(frame, "km", items="basket", k=2, m=2), "items: no column 'basket'"),
        (
            lambda: ts.anonymize(frame.selectExpr("items[0] as items"), "km", k=2, m=2),
            "the list shape needs array<int>",
        ),
        (
            lambda: ts.anonymize(frame, "cahd", p=1, sensitive=SENSITIVE, shards=2),
            "p = 1: out of range, allowed 2 to",
        ),
        (
            lambda: ts.anonymize(frame, "cahd", p=4, sensitive=["nope"], shards=2),
            "not in the data: nope",
        ),
        (
            lambda: ts.anonymize(frame, "km", k=2, m=2, shards=0),
            "shards = 0: out of range, allowed 1 to 1048576",
        ),
        (
            lambda: ts.anonymize(frame, "km", k=2, m=2, seed=-1),
            "seed = -1: out of range, allowed 0 to 18446744073709551615",
        ),
        (
            lambda: ts.anonymize(frame, "km", k=2, m=2, seed=2**64),
            "seed = 18446744073709551616: out of range",
        ),
        (lambda: ts.anonymize(frame, "km", k=2, m=2, progress=True), "progress: not an option"),
        (
            lambda: ts.anonymize(frame, "cahd", p=4, sensitive=SENSITIVE, partition_sample=10),
            "partition_sample: not an option of cahd (its options: alpha, band, p, sensitive, "
            "sensitive_random)",
        ),
        (lambda: ts.anonymize(frame, "swap", random_categorie=5), "random_categorie: not an option of swap"),
        (lambda: ts.anonymize(frame, "km", k=2, m=5), "m = 5: out of range, allowed 1 to 4"),
        (lambda: ts.anonymize(frame, "km", k=1, m=2), "k = 1: out of range, allowed 2 to"),
        (lambda: ts.anonymize(frame, "km", m=2), "k: km needs k and m"),
        (lambda: ts.anonymize(frame, "km", k=2, m=2, l=3), "l: not an option of km"),
        (
            lambda: ts.anonymize(frame, "km", k=2, m=2, build="cooccurrence"),
            "build = 'cooccurrence': the co-occurrence hierarchy",
        ),
        (
            lambda: ts.anonymize(frame, "km", k=2, m=2, algorithm="oa"),
            "algorithm = 'oa': the optimal search",
        ),
        (
            lambda: ts.anonymize(frame, "km", k=2, m=2, max_combinations=500_000_001),
            "max_combinations = 500000001: out of range, allowed 1 to 500000000",
        ),
        (
            lambda: ts.anonymize(frame, "km", k=2, m=2, hierarchy="/nonexistent/h.txt"),
            "hierarchy: /nonexistent/h.txt: No such file",
        ),
        (lambda: ts.audit(frame, "km", k=2), "publication: columns"),
        (
            lambda: ts.anonymize(frame, "km", k=2, m=2, shards=2, max_shard_bytes=1000),
            "raise the shard count (now 2)",
        ),
        (
            lambda: ts.anonymize(frame.filter("size(items) > 1000"), "km", k=2, m=2, shards=2),
            "holds no transaction",
        ),
        (
            lambda: ts.anonymize(
                spark.createDataFrame([([1, None],), ([2],)], "items array<int>"), "km", k=2, m=2
            ),
            "1 null items",
        ),
        (
            lambda: ts.anonymize(frame, "km", k=2, m=2, shards="items"),
            "shards: column 'items' is array<bigint>",
        ),
    ]
    for call, message in cases:
        with pytest.raises(txanon.BadInput) as raised:
            call()
        assert message in str(raised.value), (message, str(raised.value))
        assert "\n" not in str(raised.value)


def test_a_shard_that_cannot_meet_the_parameters_is_named(frame):
    import txanon.spark as ts

    with pytest.raises(txanon.Infeasible) as raised:
        ts.anonymize(frame.limit(300), "cahd", shards=2, seed=1, p=200, sensitive=SENSITIVE)
    assert raised.value.args[0].startswith("shard ")
    # A shard that could count more itemsets in a pass than allowed stops the search.
    with pytest.raises(txanon.Infeasible) as raised:
        ts.anonymize(frame.limit(2000), "km", shards=2, seed=1, k=5, m=3, max_combinations=10)
    assert "max_combinations" in str(raised.value) or "combinations" in str(raised.value)
    assert "\n" not in str(raised.value)
    # km's cut is one for every shard: its refusal is the whole data's, before any shard works.
    with pytest.raises(txanon.Infeasible) as raised:
        ts.anonymize(frame.limit(300), "km", shards=2, seed=1, k=400, m=2)
    assert "300 transactions, fewer than k = 400" in str(raised.value)


def published_multiset(rows) -> dict[tuple[str, ...], int]:
    counts: dict[tuple[str, ...], int] = {}
    for row in rows:
        key = tuple(sorted(str(i) for i in row))
        counts[key] = counts.get(key, 0) + 1
    return counts


def test_km_over_shards_is_the_single_machine_publication(frame, baskets, publications, tmp_path):
    """One cut over every shard: the cut, the hierarchy and the raises are the single-machine
    run's on the whole table, and the shards' published transactions are its published
    transactions (as a multiset: each shard shuffles its own)."""
    publication = publications["km"]
    params = RUNS["km"][0]
    whole = pq.read_table(baskets)
    one = txanon.anonymize.km(whole, seed=11, **params)
    written = Path(one.write(tmp_path / "one"))
    shard = shard_files(publication, 0)
    assert shard["cut.txt"] == (written / "cut.txt").read_bytes()
    assert shard["hierarchy.txt"] == (written / "hierarchy.txt").read_bytes()
    summary = json.loads(shard["summary.json"])
    assert summary["generalizations"] == one.summary["generalizations"] > 0
    assert summary["shards"] == SHARDS
    assert publication.report["cut"]["generalizations"] == one.summary["generalizations"]
    published = [r["items"] for r in publication.transactions().collect()]
    expected = one.tables["published"].column("items").to_pylist()
    assert published_multiset(published) == published_multiset(expected)
    # The pooled NCP is the whole's: each shard's weighted by its occurrences.
    assert publication.report["utility"]["pooled"] == pytest.approx(one.summary["ncp"])


def test_km_is_audited_over_the_union_and_a_tampered_union_fails(frame, publications, tmp_path):
    from pyspark.sql import functions as F

    import txanon.spark as ts

    publication = publications["km"]
    k = RUNS["km"][1]["k"]
    audited = ts.audit(publication, "km", original=publication.sharded, **RUNS["km"][1])
    assert audited["passed"] and audited["smallest_support"] >= k
    assert publication.report["audit"]["smallest_support"] == audited["smallest_support"]
    # The sums part by part are the union's supports by definition, counted here over the
    # published transactions: every itemset of at most two items, the smallest support.
    assert RUNS["km"][1]["m"] == 2
    supports = collections.Counter()
    for row in publication.transactions().collect():
        items = sorted(set(row["items"]))
        supports.update((a,) for a in items)
        supports.update(itertools.combinations(items, 2))
    assert audited["itemsets"] == len(supports) > 1000
    # Below k a sum of capped supports is the support itself; at k and above, at least k.
    assert min(supports.values()) >= k
    # A claim whose k some itemsets miss: exactly those are rare, each with its support.
    above = sorted(set(supports.values()))[2]
    with pytest.raises(txanon.AuditFailed) as failed:
        ts.audit(publication, "km", k=above, m=2)
    below = {s: c for s, c in supports.items() if c < above}
    assert f"{len(below)} rare-itemset" in failed.value.message
    listed = [v for v in failed.value.violations if v.kind == "rare-itemset"]
    assert len(listed) == min(100, len(below))
    assert all(below[tuple(v["itemset"])] == v["support"] for v in listed)
    # The union is what holds: some shard alone has an itemset below k.
    failing = 0
    for shard in range(SHARDS):
        directory = tmp_path / f"shard-{shard}"
        directory.mkdir()
        for name, content in shard_files(publication, shard).items():
            if name != ts.SHARDS_FILE:
                (directory / name).write_bytes(content)
        try:
            txanon.audit.km(directory, **RUNS["km"][1])
        except txanon.AuditFailed as failed:
            assert "rare-itemset" in failed.kinds
            failing += 1
    assert failing > 0

    # A claim one above the smallest support fails on the summed counts.
    with pytest.raises(txanon.AuditFailed) as failed:
        ts.audit(publication, "km", k=audited["smallest_support"] + 1, m=2)
    assert set(failed.value.kinds) == {"rare-itemset"}
    assert all(v["support"] == audited["smallest_support"] for v in failed.value.violations)

    # A shard dropped: listed but missing, and the union lost its transactions.
    dropped = publication.files.filter(F.col("shard") != 2)
    with pytest.raises(txanon.AuditFailed) as failed:
        ts.audit(dropped, "km", **RUNS["km"][1])
    assert "shard-missing" in failed.value.kinds

    # One shard's files taken from a run with another k: its cut is another cut.
    other = ts.anonymize(frame, "km", shards=SHARDS, seed=11, k=3, m=2)
    swapped = publication.files.filter(F.col("shard") != 1).unionByName(
        other.files.filter(F.col("shard") == 1)
    )
    with pytest.raises(txanon.AuditFailed) as failed:
        ts.audit(swapped, "km", **RUNS["km"][1])
    assert "documents-differ" in failed.value.kinds

    # A shard's published transaction changed: its manifest no longer verifies.
    def tamper(content):
        # Spark may call a UDF on rows its condition excludes: those are returned as they are.
        lines = bytes(content).split(b"\n")
        if len(lines) > 1:
            lines[0] = lines[1]
        return bytearray(b"\n".join(lines))

    tampered = publication.files.withColumn(
        "content",
        F.when(
            (F.col("shard") == 3) & F.col("name").startswith("published"),
            F.udf(tamper, "binary")("content"),
        ).otherwise(F.col("content")),
    )
    with pytest.raises(txanon.AuditFailed) as failed:
        ts.audit(tampered, "km", **RUNS["km"][1])
    assert {v["shard"] for v in failed.value.violations} == {3}
    assert "manifest" in failed.value.kinds


def test_the_union_audit_reads_each_shards_original_from_the_packed_shards(publications):
    """``anonymize`` audits km's and coherence's one-set unions against the searches' packed
    copy of the data: each shard's chunks decoded are its original rows, and a shard checked
    against another shard's original fails."""
    from pyspark.sql import functions as F

    import txanon.spark as ts

    publication = publications["km"]
    packed = ts._packed(publication.sharded, list(range(SHARDS)))
    assert packed.select("shard").distinct().count() == SHARDS
    assert ts._km_audit(publication.files, dict(RUNS["km"][1]), packed)["passed"]
    shifted = packed.withColumn("shard", (F.col("shard") + 1) % SHARDS)
    with pytest.raises(txanon.AuditFailed) as failed:
        ts._km_audit(publication.files, dict(RUNS["km"][1]), shifted)
    kinds = set(failed.value.kinds)
    assert kinds <= {"record-count", "transactions-not-from-original"}
    # Every shard's count is another's (the seed's draw): each shard fails on its own.
    assert f"{SHARDS} record-count" in failed.value.message


@pytest.fixture(scope="session")
def coherence_global(frame):
    import txanon.spark as ts

    params = RUNS["coherence"][0]
    return ts.anonymize(frame, "coherence", shards=SHARDS, seed=11, suppression="global", **params)


def test_coherence_with_one_suppression_set_is_the_single_machine_publication(
    coherence_global, baskets, tmp_path
):
    """One suppression set over every shard: the suppressions (in order, with their mole and
    nugget counts) and the summary's figures are the single-machine run's on the whole table,
    and the shards' published transactions are its published transactions as a multiset."""
    publication = coherence_global
    params = RUNS["coherence"][0]
    whole = pq.read_table(baskets)
    one = txanon.anonymize.coherence(whole, seed=11, **params)
    written = Path(one.write(tmp_path / "one"))
    expected_steps = (written / "suppressed.json").read_bytes()
    for shard in range(SHARDS):
        files = shard_files(publication, shard)
        assert files["suppressed.json"] == expected_steps
        summary = json.loads(files["summary.json"])
        for figure in ("moles", "minimal_moles", "nuggets_before", "nuggets_after"):
            assert summary[figure] == one.summary[figure], figure
        assert summary["shards"] == SHARDS
    steps = json.loads(expected_steps)
    greedy = [s for s in steps if s["step"] == "greedy"]
    assert greedy, "the greedy algorithm suppressed something"
    assert publication.report["suppression"]["suppressed_greedy"] == len(greedy)
    published = [r["items"] for r in publication.transactions().collect()]
    expected = one.tables["published"].column("items").to_pylist()
    assert published_multiset(published) == published_multiset(expected)
    assert publication.report["utility"]["pooled"] == pytest.approx(
        one.summary["occurrences_suppressed_percent"]
    )


def test_coherence_with_one_suppression_set_is_audited_over_the_union(
    coherence_global, publications
):
    from pyspark.sql import functions as F

    import txanon.spark as ts

    publication = coherence_global
    claim = dict(RUNS["coherence"][1], suppression="global")
    audited = ts.audit(publication, "coherence", original=publication.sharded, **claim)
    assert audited["passed"] and audited["itemsets"] > 500
    assert audited["worst_breach"] <= claim["h"]
    assert publication.report["audit"]["itemsets"] == audited["itemsets"]
    # The parts' sums are the union's counts by definition, counted here over the published
    # transactions: every public itemset of at most two items (the empty one too), its support
    # and its count with each private item.
    assert claim["p"] == 2
    private = {str(s) for s in claim["sensitive"]}
    supports: collections.Counter = collections.Counter()
    together: collections.Counter = collections.Counter()
    for row in publication.transactions().collect():
        items = sorted(set(row["items"]))
        public = [i for i in items if i not in private]
        sets = [(), *((a,) for a in public), *itertools.combinations(public, 2)]
        supports.update(sets)
        together.update((s, q) for s in sets for q in items if q in private)
    assert audited["itemsets"] == len(supports)
    worst = max(c / supports[s] for (s, _), c in together.items())
    assert audited["worst_breach"] == pytest.approx(worst, rel=1e-12)
    # A k some itemsets miss: exactly those are rare, each with its support.
    above = sorted(set(supports.values()))[2]
    with pytest.raises(txanon.AuditFailed) as failed:
        ts.audit(publication, "coherence", **dict(claim, k=above))
    below = {s: c for s, c in supports.items() if c < above}
    assert f"{len(below)} rare-itemset" in failed.value.message
    listed = [v for v in failed.value.violations if v.kind == "rare-itemset"]
    assert listed and all(below[tuple(sorted(v["itemset"]))] == v["support"] for v in listed)

    # A stronger claim fails on the summed counts: an h below the worst inference met.
    stronger = dict(claim, h=audited["worst_breach"] / 2)
    with pytest.raises(txanon.AuditFailed) as failed:
        ts.audit(publication, "coherence", **stronger)
    assert set(failed.value.kinds) == {"breach"}
    # And a k above the table: every itemset is rare, the empty one too.
    with pytest.raises(txanon.AuditFailed) as failed:
        ts.audit(publication, "coherence", **dict(claim, k=N + 1))
    assert {"too-few-transactions", "rare-itemset"} <= set(failed.value.kinds)

    # The per-shard publication: each shard its own suppressions, so the union is not one set.
    per_shard = publications["coherence"]
    with pytest.raises(txanon.AuditFailed) as failed:
        ts.audit(per_shard, "coherence", original=per_shard.sharded, **claim)
    assert {"documents-differ", "partly-suppressed"} <= set(failed.value.kinds)

    # One shard's files from the per-shard run: another suppression set.
    swapped = publication.files.filter(F.col("shard") != 1).unionByName(
        per_shard.files.filter(F.col("shard") == 1)
    )
    with pytest.raises(txanon.AuditFailed) as failed:
        ts.audit(swapped, "coherence", **claim)
    assert "documents-differ" in failed.value.kinds

    # A shard's published transaction changed: its manifest no longer verifies.
    def tamper(content):
        lines = bytes(content).split(b"\n")
        if len(lines) > 1:
            lines[0] = lines[1]
        return bytearray(b"\n".join(lines))

    tampered = publication.files.withColumn(
        "content",
        F.when(
            (F.col("shard") == 2) & F.col("name").startswith("published"),
            F.udf(tamper, "binary")("content"),
        ).otherwise(F.col("content")),
    )
    with pytest.raises(txanon.AuditFailed) as failed:
        ts.audit(tampered, "coherence", **claim)
    assert {v["shard"] for v in failed.value.violations} == {2}

    # A shard dropped.
    with pytest.raises(txanon.AuditFailed) as failed:
        ts.audit(publication.files.filter(F.col("shard") != 0), "coherence", **claim)
    assert "shard-missing" in failed.value.kinds


def test_coherence_options_of_one_suppression_set_are_checked(frame):
    import txanon.spark as ts

    params = RUNS["coherence"][0]
    with pytest.raises(txanon.BadInput, match="suppression"):
        ts.anonymize(frame, "coherence", suppression="both", **params)
    with pytest.raises(txanon.BadInput, match="engine"):
        ts.anonymize(frame, "coherence", suppression="global", engine="enumerate", **params)
    with pytest.raises(txanon.BadInput, match="suppression"):
        ts.audit(frame, "coherence", suppression="union", **RUNS["coherence"][1])


def test_a_worker_runs_txanon_on_the_task_cores(spark):
    """Rayon on a worker gets spark.task.cpus threads (1 here), set before txanon's pool starts."""
    import txanon.spark as ts

    def probe(table: pa.Table) -> pa.Table:
        os.environ.pop("RAYON_NUM_THREADS", None)
        ts._limit_threads()
        return pa.table({"threads": [os.environ["RAYON_NUM_THREADS"]]})

    frame = spark.createDataFrame([(1,), (2,)], "k int")
    rows = frame.groupBy("k").applyInArrow(probe, "threads string").collect()
    assert [r["threads"] for r in rows] == ["1", "1"]
    assert spark.conf.get("spark.task.cpus", "1") == "1"


def test_the_guide_runs_as_written(spark, baskets, tmp_path, monkeypatch):
    """docs/SPARK.md's example, on the generated baskets, its two paths in a scratch directory
    (Spark resolves a relative path against the JVM's directory, not Python's)."""
    from conftest import REPO

    text = (REPO / "docs" / "SPARK.md").read_text()
    blocks = text.split("```python\n")[1:]
    assert len(blocks) == 1
    code = blocks[0].split("```")[0]
    for name in ("baskets.parquet", "published-cahd"):
        assert f'"{name}"' in code
        code = code.replace(f'"{name}"', repr(str(tmp_path / name)))
    shutil.copy(baskets, tmp_path / "baskets.parquet")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/SPARK.md", "exec"), {"spark": spark})
    assert (tmp_path / "published-cahd").is_dir()


def test_the_draws_on_the_driver_are_the_families_own():
    """What the driver draws from the distinct items (no Spark needed): the crates' ChaCha8
    draws, repeated by a seed, bounded as the families bound them."""
    from collections import Counter

    from txanon import _txanon

    labels = [str(i) for i in range(100)]
    drawn = _txanon.draw_items(labels, count=10, name="sensitive_random", seed_=3)
    assert drawn == _txanon.draw_items(labels, count=10, name="sensitive_random", seed_=3)
    assert len(set(drawn)) == 10 and set(drawn) <= set(labels)
    assert drawn != _txanon.draw_items(labels, count=10, name="sensitive_random", seed_=4)
    categories = _txanon.draw_categories(labels, count=7, seed_=1)
    sizes = Counter(categories)
    assert len(sizes) == 7 and max(sizes.values()) - min(sizes.values()) <= 1
    assert categories != _txanon.draw_categories(labels, count=7, seed_=2)
    for call, message in [
        (
            lambda: _txanon.draw_items(labels, count=101, name="sensitive_random"),
            "sensitive_random = 101: out of range, allowed 1 to 100",
        ),
        (
            lambda: _txanon.draw_categories(labels, count=0),
            "random_categories = 0: out of range, allowed 1 to 100",
        ),
        (lambda: _txanon.draw_items(["7", "7"], count=1, name="n"), '"7" is listed twice'),
        (lambda: _txanon.draw_items([], count=1, name="n"), "no item to draw from"),
        (
            lambda: _txanon.draw_items(labels, count=1, name="n", seed_=2**64),
            "seed = 18446744073709551616: out of range",
        ),
    ]:
        with pytest.raises(txanon.BadInput) as raised:
            call()
        assert message in str(raised.value), (message, str(raised.value))
