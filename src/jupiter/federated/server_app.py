"""The Flower ServerApp of `jupiter federated server` (the `serverapp` component of the
Flower App that deploy.py writes). Light on imports: `flwr run` imports it to check it."""

from __future__ import annotations

from pathlib import Path

from flwr.app import Context
from flwr.serverapp import Grid, ServerApp

app = ServerApp()


@app.main()
def main(grid: Grid, context: Context) -> None:
    from jupiter.federated.server import serve

    # offline and quiet: the environment comes from the `jupiter` command that started it
    serve(grid, Path(str(context.run_config["spec"])))
