"""The `jupiter` command: the app, its error policy and the wiring.

Each verb's package owns its commands (jupiter/<verb>/cli.py, a `commands` Typer merged in
below); this file keeps what is the app's alone: --debug, `jupiter version`, and `main`, which
turns a JupiterError into one red line and exit 1, Ctrl-C and SIGTERM into one line and
130 or 143, a bad flag into one line and click's exit code, and anything else into one
line with the traceback behind --debug. The command modules are light: a stage is
imported when its command runs, so `jupiter --help` starts fast."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from jupiter import __version__
from jupiter.batch.cli import commands as batch_commands
from jupiter.cli_context import STATE, console, err_console
from jupiter.cluster.cli import commands as cluster_commands
from jupiter.config.cli import commands as config_commands
from jupiter.dashboard.cli import commands as dashboard_commands
from jupiter.data.cli import commands as data_commands
from jupiter.doctor.cli import commands as doctor_commands
from jupiter.errors import JupiterError
from jupiter.eval.cli import commands as eval_commands
from jupiter.export.cli import commands as export_commands
from jupiter.federated.cli import commands as federated_commands
from jupiter.improve.cli import STAGE_COMMANDS
from jupiter.improve.cli import commands as improve_commands
from jupiter.merge.cli import commands as merge_commands
from jupiter.procs import quiet_libraries
from jupiter.serve.cli import commands as serve_commands
from jupiter.train.cli import commands as train_commands

app = typer.Typer(
    help="Jupiter: one domain YAML in, a domain-expert language model out.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,
)


@app.callback()
def root(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
) -> None:
    STATE["debug"] = debug


@app.command()
def version() -> None:
    """Print Jupiter's version."""
    console.print(f"jupiter {__version__}")


# the verbs in the order `jupiter --help` lists them (its groups come after its commands)
VERBS = [
    config_commands,  # init; config show | cluster | presets
    improve_commands,  # collect, generate, filter; start, status, generators, rollback
    train_commands,
    eval_commands,  # eval; score
    doctor_commands,
    serve_commands,  # chat, serve
    batch_commands,  # test
    dashboard_commands,
    export_commands,
    merge_commands,
    data_commands,  # data report | export
    cluster_commands,  # cluster plan | check
    federated_commands,  # federated server | client
]
for verb in VERBS:  # a Typer's commands and groups, as if declared on the app itself
    app.registered_commands += verb.registered_commands
    app.registered_groups += verb.registered_groups


def _usage_line(e: BaseException) -> str:
    """A click usage error (unknown option or command, a value of the wrong type or out of
    range, a missing option) as one line ending with where the help is; "" for others."""
    import click

    if not isinstance(e, click.UsageError) or isinstance(e, click.exceptions.NoArgsIsHelpError):
        return ""
    where = e.ctx.command_path if e.ctx is not None else "jupiter"
    text = " ".join(e.format_message().split())
    if text.count("Did you mean") > 1:  # typer's suggestion after click's own
        text = text[: text.rindex(" (Did you mean")]
    return f"{text} (see `{where} --help`)"


# the commands that go on from where an interrupted run stopped (the cycle's stages keep
# their progress in the store and checkpoints); the others start over
RESUMING = {"start", "train", *STAGE_COMMANDS}


_TERMINATED = False  # a SIGTERM arrived: the exit status is 143, not Ctrl-C's 130


def _terminated(signum: int, _frame: object) -> None:
    global _TERMINATED
    _TERMINATED = True
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends it at once
    raise KeyboardInterrupt


def _resume_hint() -> str:
    """'; it goes on …' for a command that resumes, '' for one that starts over."""
    words = [w for w in sys.argv[1:] if not w.startswith("-")]
    if words and words[0] in RESUMING:
        return f"; `jupiter {words[0]}` goes on from where it stopped"
    return ""


def main() -> None:
    """Entry point: JupiterError becomes one red line and exit 1 (tracebacks with --debug)."""
    debug = "--debug" in sys.argv
    quiet_libraries()
    # SIGTERM (a service manager, `kill`, a closed terminal's job control) unwinds like
    # Ctrl-C, so every `finally` runs: no .tmp-*-PID folder is left beside an --out
    signal.signal(signal.SIGTERM, _terminated)
    try:
        # without standalone mode click returns typer.Exit's code instead of exiting with it
        code = app(standalone_mode=False)
        if code == 130:  # typer turns Ctrl-C (and SIGTERM, below) into a bare exit code
            raise KeyboardInterrupt
        if isinstance(code, int) and code:
            sys.exit(code)
    except JupiterError as e:
        if debug:
            raise
        # the message may quote a server or a file: its brackets are text, not markup
        err_console.print(f"[bold red]error:[/] {escape(str(e))}", highlight=False, soft_wrap=True)
        sys.exit(1)
    except (typer.Abort, KeyboardInterrupt):
        err_console.print(f"interrupted{_resume_hint()}", highlight=False, soft_wrap=True)
        sys.exit(143 if _TERMINATED else 130)
    except Exception as e:  # noqa: BLE001 - last resort: one line, the traceback behind --debug
        show, code = getattr(e, "show", None), getattr(e, "exit_code", None)
        usage = _usage_line(e)
        if usage and isinstance(code, int):  # a bad flag or command: one line and the fix
            err_console.print(
                f"[bold red]error:[/] {escape(usage)}", highlight=False, soft_wrap=True
            )
            sys.exit(code)
        if callable(show) and isinstance(code, int):  # help for a bare group: click shows it
            show()
            sys.exit(code)
        if type(e).__name__ == "Exit" and isinstance(code, int):
            sys.exit(code)
        if debug:
            raise
        from jupiter.errors import disk_problem

        where = Path(getattr(e, "filename", None) or os.environ.get("JUPITER_HOME", "."))
        disk = disk_problem(e, where if where.is_dir() else where.parent)
        if disk:  # a full or read-only disk under any write: the place and the fix
            err_console.print(
                f"[bold red]error:[/] cannot write {escape(str(where))}: {disk} "
                f"({escape(str(e))}): make room or make it writable (or set JUPITER_HOME to "
                f"another disk), then run the command again{escape(_resume_hint())}",
                highlight=False,
                soft_wrap=True,
            )
            sys.exit(1)
        err_console.print(
            f"[bold red]error:[/] {type(e).__name__}: {e} (run with --debug for the traceback)",
            highlight=False,
            soft_wrap=True,
        )
        sys.exit(1)


if __name__ == "__main__":
    main()
