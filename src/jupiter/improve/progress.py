"""The progress bar every stage shows: done/total, a rate, elapsed time and ETA; drawn only
when the console is a terminal."""

from __future__ import annotations

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from jupiter.improve.workspace import Workspace


def progress_bar(ws: Workspace) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=ws.console,
        transient=False,
        disable=not ws.console.is_terminal,
    )
