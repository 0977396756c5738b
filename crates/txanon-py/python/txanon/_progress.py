"""What a run's ``progress=`` becomes: a callable the native module calls with
``(phase, done, total)`` every 50 ms while the phase moves (the phases the CLI's bars show),
``True`` for a tqdm bar per phase (plain lines on standard error without tqdm), or nothing."""

from __future__ import annotations

import contextlib
import sys
from typing import Callable, Iterator, Optional, Union

#: ``progress=``: a callable ``(phase, done, total)``, ``True`` for a bar, ``None`` for nothing.
Progress = Union[Callable[[str, int, int], None], bool, None]


class _Bar:
    """One tqdm bar per phase (``total`` 0: a phase of unknown length, a counter)."""

    def __init__(self) -> None:
        try:
            from tqdm.auto import tqdm
        except ImportError:
            tqdm = None
        self._tqdm = tqdm
        self._bar = None
        self._phase: Optional[str] = None

    def __call__(self, phase: str, done: int, total: int) -> None:
        if phase != self._phase:
            self.close()
            self._phase = phase
            if self._tqdm is None:
                print(f"txanon: {phase}", file=sys.stderr)
            else:
                self._bar = self._tqdm(desc=phase, total=total or None, leave=False)
        if self._bar is not None:
            self._bar.total = total or None
            self._bar.n = done
            self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


@contextlib.contextmanager
def watching(progress: Progress) -> Iterator[Optional[Callable[[str, int, int], None]]]:
    """The callback for ``progress``, closed (its bar removed) when the run ends."""
    if progress is None or progress is False:
        yield None
    elif progress is True:
        bar = _Bar()
        try:
            yield bar
        finally:
            bar.close()
    elif callable(progress):
        yield progress
    else:
        raise TypeError(f"progress: a callable (phase, done, total), True or None, not {progress!r}")
