"""Progress on a terminal (rate and ETA), silence elsewhere."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from graphsvc.indexing.summary import Progress as ProgressFn


@contextmanager
def terminal_progress(enabled: bool = True) -> Iterator[ProgressFn | None]:
    """Yield a progress callback that draws a bar on stderr when it is a terminal."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    # Imported only to draw: a run without a terminal (scripts, agents) does not pay for it.
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    class _RateColumn(TextColumn):
        def __init__(self) -> None:
            super().__init__("")

        def render(self, task):  # type: ignore[override]
            speed = task.finished_speed or task.speed
            unit = "rows" if task.description.startswith("writing") else "files"
            return f"{speed:,.0f} {unit}/s" if speed else ""

    console = Console(stderr=True)
    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _RateColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=True) as bar:
        tasks: dict[str, int] = {}

        def update(done: int, total: int | None, message: str) -> None:
            phase = message.split(":", 1)[0] if ":" in message else "scanning"
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase, total=total)
            bar.update(tasks[phase], completed=done, total=total)

        yield update
