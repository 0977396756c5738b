"""txanon.spark in Spark's local mode against the CLI, on the same Quest file in the same run.

    python crates/txanon-py/python/benches/spark.py [--transactions N] [--families F,...]
        [--shards S] [--memory 6g] [--repeat R] [--inside]

N Quest transactions (10⁷ by default: ``txanon generate quest --avg-len 10 --pattern-len 4
--items 5000 --seed 1``), as FIMI for the CLI and as Parquet (``txanon convert``) for Spark.
Per family, at the scaling experiment's settings: the CLI end to end on the file (read,
anonymize, audit, write the publication), against ``txanon.spark.anonymize`` on
``spark.read.parquet`` with ``local[2]`` (the shards' files computed and checkpointed: every
shard anonymized and audited), then ``SparkPublication.write`` as Parquet. The session's start
is timed apart. km's and ``coherence-global``'s ``anonymize`` audits the union before it
returns: for them the table also gives the CLI's run plus ``txanon audit`` of its publication
against the original (the same evidence), and Spark's time against that. ``coherence-global`` is coherence with ``suppression="global"``, given the
CLI run's private items: the bench says whether every shard's ``suppressed.json`` is the
CLI's, byte for byte. With ``--repeat R`` each family runs R times, the CLI and Spark alternating; the
table gives each side's median and every run's time (the session's first job is slower: its
JVM and Python workers are cold). Prints a Markdown table (docs/SPARK.md's "Measured").

With ``--requests`` the searches of km's one cut and coherence's one suppression set say how
long each request to the shards took (each is a job): one line per request after the table,
its kind, its size and its seconds; then the steps of the run around them, in order (the
shard statistics, the packing of the shards, the item supports, the whole search, the release of
the shards' files, the union's audit and, inside it, its per-shard checks, the write), each
step's seconds.

With ``--inside`` the data never exists outside Spark: ``txanon.spark.generate_quest`` makes
the N transactions (one part per partition, the same model) and writes them as Parquet, timed;
then each family runs on Spark alone (no CLI run: the point is data no single process reads),
and the table gives its time, shard count and pooled utility figure.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[4]
CLI = Path(os.environ.get("TXANON_BIN", REPO / "target" / "release" / "txanon"))

#: Coherence's settings, as CLI options and as keyword arguments.
COHERENCE = (
    ["--h", "0.4", "--k", "10", "--p", "2", "--nugget-support", "0.1%", "--sensitive-random", "10"],
    dict(h=0.4, k=10, p=2, nugget_support="0.1%", sensitive_random=10),
)

#: The scaling experiment's settings (docs/SCALE.md), as CLI options and as keyword arguments.
FAMILIES = {
    "anatomy": (["-c", "5", "-l", "4"], dict(columns=5, l=4)),
    "cahd": (["-p", "10", "--sensitive-random", "10"], dict(p=10, sensitive_random=10)),
    "coherence": COHERENCE,
    "km": (["--k", "100", "--m", "3"], dict(k=100, m=3)),
    "swap": (["--random-categories", "50"], dict(random_categories=50)),
    # Coherence with one suppression set over every shard: the CLI's publication, on Spark.
    "coherence-global": (COHERENCE[0], dict(COHERENCE[1], suppression="global")),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transactions", type=int, default=10_000_000)
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--shards", type=int, default=None)
    parser.add_argument("--memory", default="6g")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--inside", action="store_true")
    parser.add_argument("--requests", action="store_true")
    args = parser.parse_args()
    if args.requests:
        timed_requests()
    families = args.families.split(",")
    with tempfile.TemporaryDirectory(prefix="txanon-bench-spark-") as scratch:
        scratch = Path(scratch)
        fimi, parquet = scratch / "quest.dat", scratch / "quest.parquet"
        if args.inside:
            inside(args, families, parquet, scratch)
            return
        subprocess.run(
            [
                str(CLI),
                "generate",
                "quest",
                "--transactions",
                str(args.transactions),
                "--avg-len",
                "10",
                "--pattern-len",
                "4",
                "--items",
                "5000",
                "--seed",
                "1",
                "-o",
                str(fimi),
            ],
            check=True,
            capture_output=True,
        )
        subprocess.run(
            [str(CLI), "convert", str(fimi), str(parquet)], check=True, capture_output=True
        )

        os.environ["PYSPARK_PYTHON"] = sys.executable
        started = time.perf_counter()
        from pyspark.sql import SparkSession

        spark = (
            SparkSession.builder.master("local[2]")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.memory", args.memory)
            .config("spark.sql.shuffle.partitions", "8")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
        session = time.perf_counter() - started
        import txanon.spark as ts

        print(f"{args.transactions} Quest transactions; Spark session started in {session:.1f} s\n")
        print(
            "| family | CLI | Spark local[2] | shards | Spark / CLI | CLI + audit "
            "| Spark / (CLI + audit) | runs (CLI / Spark) |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---|")
        try:
            compare(args, families, fimi, scratch, spark, ts)
        finally:
            print_requests()
        spark.stop()


def compare(args, families, fimi, scratch, spark, ts) -> None:
    """Each family through the CLI and through Spark, a row of the table each."""
    parquet = fimi.with_suffix(".parquet")
    notes: list[str] = []
    for family in families:
        options, params = FAMILIES[family]
        clis, sparks, audits = [], [], []
        same: list[bool] = []
        for run in range(args.repeat):
            out = scratch / f"cli-{family}-{run}"
            t = time.perf_counter()
            subprocess.run(
                [
                    str(CLI),
                    "anonymize",
                    family.removesuffix("-global"),
                    str(fimi),
                    *options,
                    "--seed",
                    "1",
                    "-o",
                    str(out),
                ],
                check=True,
                capture_output=True,
            )
            clis.append(time.perf_counter() - t)
            if family in AUDITED:
                audits.append(cli_audit(family, out, fimi, options))
            given = params
            if family == "coherence-global":
                # The CLI's private items, so that both publish the same suppressions.
                private = json.loads((out / "summary.json").read_text())["private_items"]
                given = {k: v for k, v in params.items() if k != "sensitive_random"}
                given["sensitive"] = private
            t = time.perf_counter()
            frame = spark.read.parquet(str(parquet))
            publication = ts.anonymize(
                frame, family.removesuffix("-global"), shards=args.shards, seed=1, **given
            )
            publication.write(str(scratch / f"spark-{family}-{run}"))
            sparks.append(time.perf_counter() - t)
            if family == "coherence-global":
                steps = {
                    bytes(r["content"])
                    for r in publication.files.filter("name = 'suppressed.json'").collect()
                }
                same.append(steps == {(out / "suppressed.json").read_bytes()})
        cli, on_spark = statistics.median(clis), statistics.median(sparks)
        runs = " ".join(f"{c:.1f}/{s:.1f}" for c, s in zip(clis, sparks))
        if audits:
            audited = statistics.median(c + a for c, a in zip(clis, audits))
            with_audit = f"{audited:.1f} s | {on_spark / audited:.2f}×"
        else:
            with_audit = "— | —"
        print(
            f"| {family} | {cli:.1f} s | {on_spark:.1f} s | {publication.report['shards']} "
            f"| {on_spark / cli:.2f}× | {with_audit} | {runs} |",
            flush=True,
        )
        if same:
            verdict = "byte-equal" if all(same) else "DIFFERENT"
            notes.append(f"{family}: every shard's suppressed.json and the CLI's: {verdict}")
    print("\n".join(["", *notes]) if notes else "", flush=True)


#: The families whose ``txanon.spark.anonymize`` audits the union before it returns (the
#: guarantee is the union's, not each shard's): their CLI side is also timed with the CLI's
#: audit of its publication against the original, the same evidence.
AUDITED = ("km", "coherence-global")


def cli_audit(family: str, out: Path, fimi: Path, options: list[str]) -> float:
    """Seconds of ``txanon audit <family>`` on the CLI's publication ``out``, with the
    original ``fimi`` and the run's own setting."""
    published = next(out.glob("published.*"))
    if family == "km":
        audit = ["km", str(published), "--hierarchy", str(out / "hierarchy.txt")]
        audit += ["--cut", str(out / "cut.txt"), *options]
    else:
        # Beside the publication, not in it: its manifest lists every file it holds.
        private = out.with_name(f"{out.name}-private.txt")
        summary = json.loads((out / "summary.json").read_text())
        private.write_text("".join(f"{item}\n" for item in summary["private_items"]))
        setting = options[: options.index("--nugget-support")]
        audit = ["coherence", str(published), "--sensitive", str(private), *setting]
    t = time.perf_counter()
    subprocess.run(
        [str(CLI), "audit", *audit, "--original", str(fimi)], check=True, capture_output=True
    )
    return time.perf_counter() - t


#: Each request of a search over the shards, as ``(family, kind, size, seconds)``, when timed.
REQUESTS: list[tuple[str, str, str, float]] = []
#: The steps of a run around the requests, with ``--requests``: (step, seconds).
STEPS: list[tuple[str, float]] = []


def timed_requests() -> None:
    """Wraps the searches' callbacks (the jobs that answer each request) to time them."""
    from txanon import _txanon

    def timing(family: str, kind: str, callback, size):
        def timed(request: str):
            started = time.perf_counter()
            answer = callback(request)
            REQUESTS.append((family, kind, size(request, answer), time.perf_counter() - started))
            return answer

        return timed

    def asked(request: str, _answer) -> str:
        return f"{len(json.loads(request)['itemsets'])} itemsets asked"

    def rare(request: str, answer: bytes) -> str:
        asked = json.loads(request)
        scope = "all" if asked["fresh"] is None else f"holding {len(asked['fresh'])} fresh ranks"
        return f"{asked['smallest']} to {asked['largest']} items, {scope}: {_txanon.km_rare_count(answer)} rare"

    km_cut = _txanon.km_sharded_cut

    def km_sharded_cut(**kwargs):
        kwargs["rare_itemsets"] = timing("km", "itemsets", kwargs["rare_itemsets"], rare)
        kwargs["supports_of"] = timing("km", "supports", kwargs["supports_of"], asked)
        return km_cut(**kwargs)

    coherence_set = _txanon.coherence_sharded_suppression

    def coherence_sharded_suppression(**kwargs):
        for kind in ("lengths", "itemsets", "candidates"):
            kwargs[kind] = timing("coherence-global", kind, kwargs[kind], lambda *_: "")
        kwargs["supports_of"] = timing("coherence-global", "supports", kwargs["supports_of"], asked)
        return coherence_set(**kwargs)

    _txanon.km_sharded_cut = km_sharded_cut
    _txanon.coherence_sharded_suppression = coherence_sharded_suppression

    import txanon.spark as ts

    def step(name: str, function):
        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                STEPS.append((name, time.perf_counter() - started))

        return timed

    # Looked up in the module at each call: wrapping the names times every call of them.
    # `_checked_shards` is the union audit's per-shard checks (each shard's files against its
    # original, its itemsets counted), timed inside `_km_audit` / `_coherence_audit`.
    steps = ("_sharded", "_packed", "_packed_supports", "_supports", "_computed_once", "_checked_shards")
    for name in steps + ("_km_audit", "_coherence_audit"):
        setattr(ts, name, step(name.lstrip("_"), getattr(ts, name)))
    ts.SparkPublication.write = step("write", ts.SparkPublication.write)
    _txanon.km_sharded_cut = step("search", _txanon.km_sharded_cut)
    _txanon.coherence_sharded_suppression = step(
        "search", _txanon.coherence_sharded_suppression
    )


def print_requests() -> None:
    if REQUESTS:
        print("\n| family | request | size | seconds |\n|---|---|---|---:|")
        for family, kind, size, seconds in REQUESTS:
            print(f"| {family} | {kind} | {size} | {seconds:.1f} |")
        REQUESTS.clear()
    if STEPS:
        print("\n| step | seconds |\n|---|---:|")
        for name, seconds in STEPS:
            print(f"| {name} | {seconds:.1f} |")
        STEPS.clear()


def session(memory: str) -> tuple[object, float]:
    os.environ["PYSPARK_PYTHON"] = sys.executable
    started = time.perf_counter()
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", memory)
        .config("spark.sql.shuffle.partitions", "8")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark, time.perf_counter() - started


def inside(args: argparse.Namespace, families: list[str], parquet: Path, scratch: Path) -> None:
    spark, started = session(args.memory)
    import txanon.spark as ts

    t = time.perf_counter()
    frame = ts.generate_quest(
        spark, args.transactions, avg_len=10, pattern_len=4, items=5000, seed=1
    )
    frame.write.parquet(str(parquet))
    made = time.perf_counter() - t
    print(
        f"{args.transactions} Quest transactions generated inside Spark and written as Parquet "
        f"in {made:.1f} s; session started in {started:.1f} s\n"
    )
    print("| family | Spark local[2] | shards | utility (pooled) |")
    print("|---|---:|---:|---|")
    for family in families:
        _, params = FAMILIES[family]
        t = time.perf_counter()
        publication = ts.anonymize(
            spark.read.parquet(str(parquet)),
            family.removesuffix("-global"),
            shards=args.shards,
            seed=1,
            **params,
        )
        publication.write(str(scratch / f"spark-{family}"))
        took = time.perf_counter() - t
        utility = publication.report["utility"]
        print(
            f"| {family} | {took:.1f} s | {publication.report['shards']} "
            f"| {utility['figure']} {utility['pooled']} |",
            flush=True,
        )
    spark.stop()


if __name__ == "__main__":
    main()
