"""The Flower ClientApp of `jupiter federated client` (the `clientapp` component of the
Flower App). Each train message: client.py's round, under two mods (outermost first):
keep a copy of what was received and sent when the client asked for it, and clip the
update with Flower's fixedclipping_mod when the server runs client-side DP clipping."""

from __future__ import annotations

from pathlib import Path

from flwr.app import Context, Message
from flwr.clientapp import ClientApp
from flwr.clientapp.mod import fixedclipping_mod
from flwr.clientapp.typing import ClientAppCallable

CLIP_KEY = "clipping_norm"  # where the server puts C (Flower's key)

app = ClientApp()


def keep_copies(msg: Message, context: Context, call_next: ClientAppCallable) -> Message:
    reply = call_next(msg, context)
    keep = str(context.node_config.get("keep-dir", ""))
    if keep and not reply.has_error():
        from jupiter.federated.client import keep_copy

        keep_copy(Path(keep), msg, reply)
    return reply


def clip_when_asked(msg: Message, context: Context, call_next: ClientAppCallable) -> Message:
    """Client-side clipping: Flower's mod clips (reply − global) to norm C; the server
    checks the norms it receives and clips again, so a client that skips it gains nothing."""
    config = msg.content.config_records.get("config")
    if config is not None and CLIP_KEY in config:
        return fixedclipping_mod(msg, context, call_next)
    return call_next(msg, context)


@app.train(mods=[keep_copies, clip_when_asked])
def train(msg: Message, context: Context) -> Message:
    from jupiter.federated.client import client_round

    return client_round(msg, context)
