"""The exceptions of txanon, one per exit code of the CLI.

``BadInput`` (exit 2) is a ``ValueError``: the data, a parameter or a path is wrong; its message is
the CLI's one line, naming the argument, the value and what is allowed. ``Infeasible`` (also exit
2): valid parameters this data cannot meet. ``AuditFailed`` (exit 3): a publication fails the
guarantee its auditor names; it carries the violations as objects. ``InternalError`` (exit 1): a
bug in txanon, never the caller's input (a Rust panic arrives as this, never as anything else).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class TxanonError(Exception):
    """Every error txanon raises."""


class BadInput(TxanonError, ValueError):
    """The data, a parameter or a path is wrong (the CLI's exit 2)."""


class Infeasible(TxanonError):
    """Valid parameters that this data cannot meet (the CLI's exit 2)."""


class InternalError(TxanonError):
    """A failure inside txanon: a bug or the machine, never the caller's input (exit 1)."""


@dataclass(frozen=True)
class Violation:
    """One way a publication breaks the guarantee its auditor names.

    ``family`` is the family audited (``cahd``, ``km``, …); ``kind`` the violation's kind, in
    kebab-case (``degree-below``, ``rare-itemset``, ``manifest``); ``details`` its numbers and
    where it is (``group``, ``bucket``, ``itemset``, ``support``, …), as the audit found them.
    """

    family: str
    kind: str
    details: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return self.details[key]


class AuditFailed(TxanonError):
    """A publication failed its audit (the CLI's exit 3).

    ``violations`` lists what the audit found (at most a hundred; ``message`` says when there
    were more), each a :class:`Violation`.
    """

    def __init__(self, message: str, violations: list[Violation] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.violations: list[Violation] = list(violations or [])

    @classmethod
    def _from_native(
        cls, message: str, family: str | None, violations: list[dict[str, Any]]
    ) -> AuditFailed:
        typed = []
        for v in violations:
            details = dict(v)
            kind = str(details.pop("kind", "violation"))
            typed.append(Violation(family=family or "", kind=kind, details=details))
        return cls(message, typed)

    @property
    def kinds(self) -> list[str]:
        """The kinds of the violations, in the order found."""
        return [v.kind for v in self.violations]
