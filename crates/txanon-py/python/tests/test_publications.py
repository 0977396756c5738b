"""Every family through Python publishes what the CLI publishes: the same bytes for the same
data, options and seed, from a path or from Arrow data (pyarrow, polars, pandas, DuckDB), in the
list shape or the long shape."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

import txanon
from conftest import EXAMPLES, files, label_list, real_dataset

# Each family: the CLI's arguments after the data, and the same run in Python.
CASES = {
    "cahd": (
        ["-p", "4", "--sensitive-random", "10"],
        lambda data, seed: txanon.anonymize.cahd(data, p=4, sensitive_random=10, seed=seed),
    ),
    "km": (
        ["--k", "5", "--m", "2"],
        lambda data, seed: txanon.anonymize.km(data, k=5, m=2, seed=seed),
    ),
    "coherence": (
        ["--h", "0.4", "--k", "3", "--p", "2", "--nugget-support", "1%", "--sensitive-random", "5"],
        lambda data, seed: txanon.anonymize.coherence(
            data, h=0.4, k=3, p=2, nugget_support="1%", sensitive_random=5, seed=seed
        ),
    ),
    "anatomy": (
        ["-c", "3", "-l", "2"],
        lambda data, seed: txanon.anonymize.anatomy(data, columns=3, l=2, seed=seed),
    ),
    "swap": (
        ["--random-categories", "5"],
        lambda data, seed: txanon.anonymize.swap(data, random_categories=5, seed=seed),
    ),
}

DATA_FILES = {"summary.json", "manifest.json"}


def cli_publication(cli, tmp_path: Path, family: str, data: Path, seed: int) -> Path:
    out = tmp_path / f"cli-{family}"
    cli("anonymize", family, data, *CASES[family][0], "--seed", str(seed), "-o", out)
    return out


@pytest.mark.parametrize("family", sorted(CASES))
def test_a_path_publishes_the_clis_bytes(cli, quest, tmp_path, family):
    expected = files(cli_publication(cli, tmp_path, family, quest, 7))
    publication = CASES[family][1](str(quest), 7)
    written = Path(publication.write(tmp_path / "py"))
    assert files(written) == expected
    # What the object says is what the files say.
    assert publication.summary == json.loads(expected["summary.json"])
    manifest = json.loads(expected["manifest.json"])
    assert publication.audit == manifest["audit"]["report"]
    assert publication.parameters == manifest["parameters"]
    assert sorted(publication.file_names()) == sorted(set(expected) - {"manifest.json"})


@pytest.mark.parametrize("family", sorted(CASES))
def test_arrow_data_publishes_the_same_files(cli, quest, tmp_path, family):
    expected = files(cli_publication(cli, tmp_path, family, quest, 11))
    table = txanon.read(quest)
    written = files(Path(CASES[family][1](table, 11).write(tmp_path / "py")))
    assert set(written) == set(expected)
    for name in set(expected) - DATA_FILES:
        assert written[name] == expected[name], name
    # The summary and the manifest name the input: a table in memory, not the file.
    summary, cli_summary = json.loads(written["summary.json"]), json.loads(expected["summary.json"])
    assert summary.pop("input") == "(pyarrow.lib.Table)"
    cli_summary.pop("input")
    assert summary == cli_summary
    manifest = json.loads(written["manifest.json"])
    assert manifest["inputs"] == [{"name": "(pyarrow.lib.Table in memory)", "records": 3000}]
    assert manifest["files"] == json.loads(expected["manifest.json"])["files"] | {
        "summary.json": manifest["files"]["summary.json"]
    }


def test_given_item_columns_publish_the_clis_bytes(cli, quest, tmp_path):
    """One partition for several runs: a published table's columns, given back by file to the
    CLI and as lists to Python, publish the same bytes, under those very columns."""
    first = Path(txanon.anonymize.anatomy(quest, columns=3, l=2, seed=4).write(tmp_path / "a"))
    columns = json.loads((first / "table.json").read_text())["columns"]
    given = tmp_path / "columns.txt"
    given.write_text("# one column per line\n" + "".join(" ".join(c) + "\n" for c in columns))
    out = tmp_path / "cli"
    cli("anonymize", "anatomy", quest, "-c", "3", "-l", "2", "--item-columns", given, "--seed", "9", "-o", out)
    expected = files(out)
    publication = txanon.anonymize.anatomy(str(quest), columns=3, l=2, item_columns=columns, seed=9)
    assert files(Path(publication.write(tmp_path / "py"))) == expected
    assert json.loads(expected["table.json"])["columns"] == columns
    assert publication.parameters["partitioning"] == "given"


def test_the_tables_are_the_published_files(quest, tmp_path):
    publication = txanon.anonymize.km(quest, k=5, m=2, seed=3)
    published = publication.tables["published"]
    assert published.column_names == ["items"]
    written = Path(publication.write(tmp_path / "out"))
    assert txanon.read(written / "published.csv").equals(published)
    assert publication.document("cut.txt") == (written / "cut.txt").read_text()


def frames(table: pa.Table):
    """The same data as each library hands it over."""
    yield "pyarrow.Table", table
    yield "pyarrow.RecordBatchReader", pa.RecordBatchReader.from_batches(
        table.schema, table.to_batches(max_chunksize=700)
    )
    polars = pytest.importorskip("polars")
    yield "polars", polars.from_arrow(table)
    pandas = pytest.importorskip("pandas")
    yield "pandas", table.to_pandas(types_mapper=pd_types(pandas))


def pd_types(pandas):
    # Lists stay Arrow lists in pandas (as a data holder's frame read from Parquet holds them).
    return lambda t: pandas.ArrowDtype(t)


def test_every_library_hands_over_the_same_data(quest, tmp_path):
    table = txanon.read(quest)
    expected = None
    for name, data in frames(table):
        publication = txanon.anonymize.cahd(data, p=4, sensitive_random=10, seed=5)
        published = files(Path(publication.write(tmp_path / name.replace(".", "-"))))
        got = {k: v for k, v in published.items() if k not in DATA_FILES}
        if expected is None:
            expected = got
        assert got == expected, name


def test_duckdb_relations_are_data(quest, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    baskets = txanon.read(quest)
    relation = duckdb.sql("SELECT * FROM baskets")
    from_duckdb = txanon.anonymize.km(relation, k=5, m=2, seed=2).tables["published"]
    assert from_duckdb.equals(txanon.anonymize.km(baskets, k=5, m=2, seed=2).tables["published"])


def test_the_long_shape_gives_the_same_publication(quest, tmp_path):
    table = txanon.read(quest)
    tids, items = [], []
    for t, row in enumerate(table.column("items").to_pylist()):
        for item in row:
            tids.append(t)
            items.append(item)
    long = pa.table({"basket": pa.array(tids, pa.int64()), "sku": pa.array(items, pa.uint32())})
    a = txanon.anonymize.coherence(
        long, h=0.4, k=3, p=2, nugget_support=30, sensitive_random=5, seed=4,
        tid_column="basket", item_column="sku",
    )
    b = txanon.anonymize.coherence(
        table, h=0.4, k=3, p=2, nugget_support=30, sensitive_random=5, seed=4
    )
    assert a.tables["published"].equals(b.tables["published"])
    assert a.document("suppressed.json") == b.document("suppressed.json")


def test_text_labels_from_the_worked_example(tmp_path, cli):
    data = EXAMPLES / "cahd-example.csv"
    sensitive = label_list(EXAMPLES / "cahd-example.sensitive")
    publication = txanon.anonymize.cahd(data, p=2, sensitive=sensitive, seed=1)
    assert publication.tables["qid"].schema.field("items").type.value_type == pa.string()
    out = tmp_path / "cli"
    cli("anonymize", "cahd", data, "-p", "2", "--sensitive", EXAMPLES / "cahd-example.sensitive",
        "--seed", "1", "-o", out)
    written = files(Path(publication.write(tmp_path / "py")))
    expected = files(out)
    for name in set(expected) - DATA_FILES:
        assert written[name] == expected[name], name


def test_a_real_dataset_through_polars(cli, tmp_path):
    polars = pytest.importorskip("polars")
    path = real_dataset("BMS1.dat")
    frame = polars.from_arrow(txanon.read(path))
    publication = txanon.anonymize.cahd(frame, p=4, sensitive_random=20, seed=9)
    expected = files(cli_publication_bms(cli, tmp_path, path))
    written = files(Path(publication.write(tmp_path / "py")))
    for name in set(expected) - DATA_FILES:
        assert written[name] == expected[name], name
    report = txanon.audit.cahd(
        tmp_path / "py", p=4, sensitive=publication.summary["sensitive_items"], original=path
    )
    assert report["manifest"]["status"] == "verified"


def cli_publication_bms(cli, tmp_path, path):
    out = tmp_path / "cli"
    cli("anonymize", "cahd", path, "-p", "4", "--sensitive-random", "20", "--seed", "9", "-o", out)
    return out


def test_write_refuses_a_directory_in_use_and_replaces_with_force(quest, tmp_path):
    publication = txanon.anonymize.km(quest, k=5, m=2, seed=1)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(txanon.BadInput, match="is not empty"):
        publication.write(out)
    assert (out / "keep.txt").read_text() == "mine"
    publication.write(out, force=True)
    assert not (out / "keep.txt").exists()
    assert (out / "manifest.json").is_file()


@pytest.mark.parametrize("to,name", [("parquet", "published.parquet"), ("arrow", "published.arrow")])
def test_write_in_columnar_formats(quest, tmp_path, to, name):
    publication = txanon.anonymize.km(quest, k=5, m=2, seed=1)
    out = Path(publication.write(tmp_path / to, to=to))
    assert txanon.read(out / name).equals(txanon.read(publication.tables["published"]))
    assert name in publication.file_names(to=to)


INTS = [["1", "3"], ["1", "2"], ["2", "3"]]
TEXTS = [["a", "c"], ["a", "b"], ["b", "c"]]


@pytest.mark.parametrize(
    "items,expected",
    [
        (pa.array([[3, 1], [1, 2], [2, 3]], pa.large_list(pa.int64())), INTS),
        (pa.array([[3, 1], [1, 2], [2, 3]], pa.list_(pa.uint16())), INTS),
        (pa.array([["c", "a"], ["a", "b"], ["b", "c"]], pa.large_list(pa.large_string())), TEXTS),
        (pa.array([["c", "a"], ["a", "b"], ["b", "c"]], pa.list_(pa.string_view())), TEXTS),
    ],
)
def test_any_offset_width_and_item_type_is_read(items, expected):
    table = txanon.read(pa.table({"items": items}))
    rows = [sorted(map(str, r)) for r in table.column("items").to_pylist()]
    assert rows == expected
