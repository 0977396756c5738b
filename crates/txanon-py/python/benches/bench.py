"""The Python package against the CLI, on the same input in the same run.

    python crates/txanon-py/python/benches/bench.py [--quest N] [--repeat R]

1. CAHD on BMS-WebView-1 at p = 4 (10 sensitive items drawn, seed 1): the CLI on the file,
   end to end (read, anonymize, write the publication), against Python from a polars frame
   (anonymize, write); the median of R runs each.
2. N Quest transactions (10⁷ by default) as a ``list<int32>`` column: the peak memory of a
   Python process that holds the table and anonymizes it (CAHD, p = 10, 10 sensitive items),
   against the CLI's peak on the same data from a Parquet file; each in its own process,
   measured by the kernel (``ru_maxrss`` of the child).

Prints a Markdown table (docs/PYTHON.md's "Measured").
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[4]
CLI = Path(os.environ.get("TXANON_BIN", REPO / "target" / "release" / "txanon"))


def dataset(name: str) -> Path:
    for place in (os.environ.get("TXANON_DATA"), REPO / "datasets", REPO.parent / "shared" / "datasets"):
        if place and (Path(place) / name).is_file():
            return Path(place) / name
    sys.exit(f"{name} not found in $TXANON_DATA, datasets/ or ../shared/datasets/")


def timed(work) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def cahd_bms1(repeat: int, scratch: Path) -> list[str]:
    import polars as pl

    import txanon

    data = dataset("BMS1.dat")
    frame = pl.from_arrow(txanon.read(data))
    cli_args = ["anonymize", "cahd", str(data), "-p", "4", "--sensitive-random", "10", "--seed", "1", "--force"]
    cli_times, py_times = [], []
    for r in range(repeat):
        out = scratch / f"cli-{r}"
        cli_times.append(timed(lambda: subprocess.run(
            [str(CLI), *cli_args, "-o", str(out)], check=True, capture_output=True
        )))
        out = scratch / f"py-{r}"
        py_times.append(timed(lambda: txanon.anonymize.cahd(
            frame, p=4, sensitive_random=10, seed=1
        ).write(out, force=True)))
    cli, py = statistics.median(cli_times), statistics.median(py_times)
    return [
        f"| CAHD, BMS-WebView-1, p = 4 | CLI from BMS1.dat: {cli:.2f} s | Python from a polars frame: "
        f"{py:.2f} s | {py / cli:.2f}× |"
    ]


CHILD = """
import sys, pyarrow as pa, pyarrow.parquet as pq, txanon
table = pq.read_table(sys.argv[1])
table = table.cast(pa.schema([("items", pa.list_(pa.int32()))]))
if sys.argv[3] == "released":
    # What pyarrow's allocator kept of reading and casting, given back before the call.
    pa.default_memory_pool().release_unused()
# Resident memory as the call starts: the table, and what pyarrow's pool kept of reading it.
print("held", int(open("/proc/self/statm").read().split()[1]) * 4)
txanon.anonymize.cahd(table, p=10, sensitive_random=10, seed=1).write(sys.argv[2], force=True)
"""


def quest_memory(transactions: int, scratch: Path) -> list[str]:
    parquet = scratch / "quest.parquet"
    subprocess.run(
        [str(CLI), "generate", "quest", "--transactions", str(transactions), "--avg-len", "10",
         "--pattern-len", "4", "--items", "5000", "--seed", "1", "-o", str(parquet)],
        check=True, capture_output=True,
    )
    rows = []
    # Each measurement in a fresh interpreter, so that RUSAGE_CHILDREN's maximum is that child's.
    for who in ("python", "cli", "released"):
        if who != "cli":
            mode = "released" if who == "released" else "as-read"
            command = [sys.executable, "-c", CHILD, str(parquet), str(scratch / "py-out"), mode]
        else:
            command = [str(CLI), "anonymize", "cahd", str(parquet), "-p", "10", "--sensitive-random",
                       "10", "--seed", "1", "--force", "-o", str(scratch / "cli-out")]
        wrapper = [sys.executable, "-c",
                   "import resource, subprocess, sys, time; t = time.perf_counter(); "
                   "out = subprocess.run(sys.argv[1:], check=True, capture_output=True, text=True).stdout; "
                   "held = [l.split()[1] for l in out.splitlines() if l.startswith('held ')]; "
                   "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, time.perf_counter() - t, "
                   "held[0] if held else 0)",
                   *command]
        out = subprocess.run(wrapper, check=True, capture_output=True, text=True).stdout.split()
        rows.append((who, int(out[0]), float(out[1]), int(out[2])))
    (_, py_kib, py_s, held_kib), (_, cli_kib, cli_s, _), (_, rel_kib, rel_s, rel_held) = rows
    return [
        f"| CAHD, {transactions:,} Quest transactions, p = 10, peak memory | CLI from Parquet: "
        f"{cli_kib / 2**20:.2f} GiB, {cli_s:.0f} s | Python from a `list<int32>` table: "
        f"{py_kib / 2**20:.2f} GiB, {py_s:.0f} s | {py_kib / cli_kib:.2f}× |",
        f"| … of which resident before the call (the table, pyarrow's pool) | | "
        f"{held_kib / 2**20:.2f} GiB | |",
        f"| … added by the call | {cli_kib / 2**20:.2f} GiB | {(py_kib - held_kib) / 2**20:.2f} GiB | "
        f"{(py_kib - held_kib) / cli_kib:.2f}× |",
        f"| the same, pyarrow's unused memory released before the call | | "
        f"{rel_kib / 2**20:.2f} GiB ({rel_held / 2**20:.2f} GiB resident before), {rel_s:.0f} s | "
        f"{rel_kib / cli_kib:.3f}× |",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quest", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="txanon-bench-") as scratch:
        rows = cahd_bms1(args.repeat, Path(scratch))
        rows += quest_memory(args.quest, Path(scratch))
    print("| run | CLI | Python | Python / CLI |")
    print("|---|---|---|---:|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
