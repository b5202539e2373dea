"""The cluster file's nodes, through `jupiter cluster check`'s own probe (cluster/check.py):
one doctor line per node."""

from __future__ import annotations

import re

from jupiter.doctor.result import Check, Context, fail, ok, warn
from jupiter.errors import JupiterError

# cluster/check.py writes "node NAME (HOST): what is wrong: what to do"; the fix starts at
# the first ": " followed by one of its imperative verbs
_FIX = re.compile(
    r": (?=(?:set|check|install|pip|connect|turn|free|use|reinstall|update|point|lower)\b)"
)
_PREFIX = re.compile(r"^node [^:]+?(?: \([^)]*\))?: ")


def split_fix(message: str) -> tuple[str, str]:
    """(what is wrong, the fix) of a cluster-check message; the fix is empty when none is
    found."""
    body = _PREFIX.sub("", message, count=1)
    m = _FIX.search(body)
    if m is None:
        return body, ""
    return body[: m.start()], body[m.end() :]


def _node_line(report: object, path: str) -> Check:
    from jupiter.cluster.check import NodeReport

    assert isinstance(report, NodeReport)
    name = f"node {report.name} ({report.host})"
    recheck = f"then `jupiter cluster check --cluster-file {path}`"
    for status, messages in (("fail", report.problems), ("warn", report.warnings)):
        if not messages:
            continue
        parts = [split_fix(m) for m in messages]
        detail = "; ".join(what for what, _ in parts)
        fix = "; ".join(f for _, f in parts if f) or recheck
        return (fail if status == "fail" else warn)("cluster", name, detail, fix)
    free = "" if report.free_gb is None else f", {report.free_gb:.1f} GiB free"
    skew = "" if report.skew_s is None else f", clock {report.skew_s:+.3f} s"
    return ok(
        "cluster",
        name,
        f"{report.device}, Python {report.python}, Jupiter {report.jupiter}{free}{skew}",
    )


def cluster_checks(ctx: Context) -> list[Check]:
    """Each node of --cluster-file: reachable, the same Python and Jupiter, its device,
    free memory and clock; nothing without --cluster-file."""
    if ctx.cluster_file is None:
        return []
    from jupiter.cluster.check import check_cluster
    from jupiter.config import load_cluster

    try:
        cluster = load_cluster(ctx.cluster_file)
    except JupiterError as err:
        return [
            fail(
                "cluster",
                "cluster file",
                str(err),
                f"fix {ctx.cluster_file} (see config/cluster.yaml for the keys)",
            )
        ]
    return [_node_line(r, ctx.cluster_file) for r in check_cluster(cluster, ctx.timeout)]
