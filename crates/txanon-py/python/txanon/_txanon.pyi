# The native module's signatures, checked against the compiled module by
# python/tests/test_stubs.py (every public name and every parameter).
import os
from typing import Any, Callable, Sequence

__version__: str

def read(
    data_: Any,
    *,
    format: str | None = None,
    tid_column: str | None = None,
    item_column: str | None = None,
) -> Any: ...
def draw_items(
    labels: list[str], *, count: int, name: str, seed_: int | None = None
) -> list[str]: ...
def draw_categories(labels: list[str], *, count: int, seed_: int | None = None) -> list[str]: ...
def km_sharded_cut(
    *,
    supports: list[tuple[str, int]],
    transactions: int,
    k: int,
    m: int,
    rare_itemsets: Callable[[str], bytes],
    supports_of: Callable[[str], list[int]],
    hierarchy_text: str | None = None,
    universe: list[str] | None = None,
    fanout: int | None = None,
    algorithm: str = "aa",
    max_combinations: int | None = None,
) -> tuple[list[str], list[list[str]], int]: ...
def km_count_shard(
    data_: Any,
    *,
    request: str,
    parts: int | None = None,
    hierarchy_text: str | None = None,
    universe: list[str] | None = None,
    fanout: int | None = None,
) -> Any: ...
def km_rare_in_union(pieces: list[bytes], *, k: int) -> bytes: ...
def km_rare_count(rare: bytes) -> int: ...
def km_release_shard(
    data_: Any,
    *,
    cut: list[str],
    generalizations: int,
    shards: int,
    k: int,
    m: int,
    described: str,
    hierarchy_text: str | None = None,
    universe: list[str] | None = None,
    fanout: int | None = None,
    algorithm: str = "aa",
    seed_: int | None = None,
) -> Publication: ...
def audit_km_shard(
    dir: str | os.PathLike[str],
    *,
    k: int,
    m: int,
    hierarchy: str | os.PathLike[str] | None = None,
    original_: Any = None,
    parts: int | None = None,
) -> tuple[dict[str, Any], Any]: ...
def km_union_part(pieces: list[bytes], *, k: int) -> tuple[int, int | None, bytes]: ...
def km_itemset_labels(rare: bytes, *, hierarchy_text: str) -> list[tuple[list[str], int]]: ...
def coherence_sharded_suppression(
    *,
    supports: list[tuple[str, int]],
    transactions: int,
    private: list[str],
    h: float,
    k: int,
    p: int,
    nugget_support: int | float | str,
    lengths: Callable[[str], tuple[int, list[int]]],
    itemsets: Callable[[str], Any],
    candidates: Callable[[str], list[list[int]]],
    supports_of: Callable[[str], list[int]],
    max_itemsets: int | None = None,
) -> str: ...
def coherence_count_shard(data_: Any, *, request: str, parts: int | None = None) -> Any: ...
def coherence_itemsets_in_union(pieces: list[bytes]) -> bytes: ...
def coherence_release_shard(
    data_: Any,
    *,
    suppression: str,
    private: list[str],
    shards: int,
    h: float,
    k: int,
    p: int,
    nugget_support: int | float | str,
    seed_: int | None = None,
) -> Publication: ...
def audit_coherence_shard(
    dir: str | os.PathLike[str],
    *,
    h: float,
    k: int,
    p: int,
    sensitive: list[str],
    parts: int,
    original_: Any = None,
) -> tuple[dict[str, Any], Any, list[str]]: ...
def coherence_union_part(
    pieces: list[bytes],
    *,
    h: float,
    k: int,
    p: int,
    sensitive: list[str],
) -> dict[str, Any]: ...
def anonymize_cahd(
    data_: Any,
    *,
    p: int,
    sensitive_: list[str] | None = None,
    sensitive_random: int | None = None,
    alpha: int | None = None,
    band: str = "aat",
    progress: Any = None,
    seed_: int | None = None,
    format: str | None = None,
    tid_column: str | None = None,
    item_column: str | None = None,
) -> Publication: ...
def anonymize_km(
    data_: Any,
    *,
    k: int,
    m: int,
    hierarchy: str | os.PathLike[str] | None = None,
    fanout: int | None = None,
    build: str = "order",
    algorithm: str = "aa",
    max_cuts: int | None = None,
    max_combinations: int | None = None,
    progress: Any = None,
    seed_: int | None = None,
    format: str | None = None,
    tid_column: str | None = None,
    item_column: str | None = None,
) -> Publication: ...
def anonymize_coherence(
    data_: Any,
    *,
    h: float,
    k: int,
    p: int,
    nugget_support: int | float | str,
    sensitive_: list[str] | None = None,
    sensitive_random: int | None = None,
    engine: str = "counting",
    max_itemsets: int | None = None,
    progress: Any = None,
    seed_: int | None = None,
    format: str | None = None,
    tid_column: str | None = None,
    item_column: str | None = None,
) -> Publication: ...
def anonymize_anatomy(
    data_: Any,
    *,
    columns: int,
    l: int,
    diversity: str = "frequency",
    partitioning: str | None = None,
    headroom: float | None = None,
    item_columns: Sequence[Sequence[str]] | None = None,
    progress: Any = None,
    seed_: int | None = None,
    format: str | None = None,
    tid_column: str | None = None,
    item_column: str | None = None,
) -> Publication: ...
def anatomy_item_columns(
    data_: Any,
    *,
    columns: int,
    l: int,
    supports: Sequence[tuple[str, int]],
    diversity: str = "frequency",
    partitioning: str | None = None,
    headroom: float | None = None,
    seed_: int | None = None,
) -> list[list[str]]: ...
def generate_quest(
    *,
    transactions: int,
    avg_len: float = 40.0,
    pattern_len: float = 10.0,
    items: int | None = None,
    patterns: int | None = None,
    correlation: float = 0.25,
    confidence: float = 0.75,
    confidence_var: float = 0.1,
    seed_: int | None = None,
    part: int | None = None,
) -> Any: ...
def anonymize_swap(
    data_: Any,
    *,
    method: str = "partswap",
    categories: str | os.PathLike[str] | None = None,
    random_categories: int | None = None,
    max_exposed: int | None = None,
    ties: str = "first",
    window: int | None = None,
    key_out: str | os.PathLike[str] | None = None,
    progress: Any = None,
    seed_: int | None = None,
    format: str | None = None,
    tid_column: str | None = None,
    item_column: str | None = None,
) -> Publication: ...
def anonymize_slicing(
    data_: Any,
    *,
    schema: str | os.PathLike[str],
    l: int,
    method: str = "slicing",
    k: int | None = None,
    columns: int | None = None,
    sensitive_alone: bool = False,
    column_spec: str | None = None,
    generalize: int | None = None,
    cut: str = "first",
    bins: int | None = None,
    attributes: list[str] | None = None,
    progress: Any = None,
    seed_: int | None = None,
) -> Publication: ...
def audit_slicing(
    dir: str | os.PathLike[str],
    *,
    original_: str | os.PathLike[str],
    schema: str | os.PathLike[str],
    l: int,
    k: int | None = None,
) -> dict[str, Any]: ...
def audit_cahd(
    dir: str | os.PathLike[str], *, p: int, sensitive: list[str], original_: Any = None
) -> dict[str, Any]: ...
def audit_km(
    dir: str | os.PathLike[str],
    *,
    k: int,
    m: int,
    hierarchy: str | os.PathLike[str] | None = None,
    original_: Any = None,
) -> dict[str, Any]: ...
def audit_coherence(
    dir: str | os.PathLike[str],
    *,
    h: float,
    k: int,
    p: int,
    sensitive: list[str],
    original_: Any = None,
) -> dict[str, Any]: ...
def audit_anatomy(
    dir: str | os.PathLike[str], *, l: int, diversity: str = "frequency", original_: Any = None
) -> dict[str, Any]: ...
def audit_swap(
    dir: str | os.PathLike[str],
    *,
    original_: Any,
    categories: str | os.PathLike[str],
    key: str | os.PathLike[str],
    method: str = "partswap",
    max_exposed: int | None = None,
    ties: str = "first",
) -> dict[str, Any]: ...

def evaluate(
    data_: Any,
    *,
    sensitive_: list[str] | None = None,
    sensitive_random: int | None = None,
    categories: str | os.PathLike[str] | None = None,
    random_categories: int | None = None,
    methods: list[str] | None = None,
    levels: list[int] | None = None,
    known: list[int] | None = None,
    draws: int | None = None,
    targets: int | None = None,
    supports: list[float] | None = None,
    queries: int | None = None,
    anatomy_columns: int | None = None,
    coherence_p: int | None = None,
    km_m: int | None = None,
    threat: list[str] | None = None,
    max_risk: float | None = None,
    progress: Any = None,
    seed_: int | None = None,
    format: str | None = None,
    tid_column: str | None = None,
    item_column: str | None = None,
) -> Evaluation: ...

def attack(
    publication: Publication,
    *,
    sensitive: list[str] | None = None,
    known: list[int] | None = None,
    draws: int | None = None,
    targets: int | None = None,
    seed_: int | None = None,
) -> Any: ...

class Evaluation:
    """An evaluation in memory: what ``txanon evaluate`` writes."""

    @property
    def html(self) -> str: ...
    @property
    def points(self) -> Any: ...
    @property
    def frontier(self) -> Any: ...
    @property
    def guarantees(self) -> Any: ...
    @property
    def results(self) -> dict[str, Any]: ...
    @property
    def decision(self) -> dict[str, Any] | None: ...
    def write(self, out: str | os.PathLike[str], *, force: bool = False) -> str: ...

class Publication:
    """A publication made in memory, audited against its data; ``write`` puts it on disk."""

    @property
    def method(self) -> str: ...
    @property
    def summary(self) -> dict[str, Any]: ...
    @property
    def audit(self) -> dict[str, Any]: ...
    @property
    def parameters(self) -> dict[str, Any]: ...
    @property
    def outcome(self) -> dict[str, Any]: ...
    @property
    def tables(self) -> dict[str, Any]: ...
    def file_names(self, to: str | None = None) -> list[str]: ...
    def document(self, name: str) -> Any: ...
    def write(
        self, out: str | os.PathLike[str], *, force: bool = False, to: str | None = None
    ) -> str: ...
