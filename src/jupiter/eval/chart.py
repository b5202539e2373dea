"""The eval's picture: multiple-choice accuracy of every model scored, on each exam, with its
95% bootstrap interval and the chance level (exams.png beside eval.json)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

ORDER = ("untrained", "student", "student+retriever", "generator")
COLORS = {
    "untrained": "#9e9e9e",
    "student": "#1f77b4",
    "student+retriever": "#2ca02c",
    "generator": "#ff7f0e",
}


def exam_panels(ev: dict[str, Any]) -> list[tuple[str, list[tuple[str, str, dict[str, Any]]]]]:
    """(exam title, [(role, model name, its summary)]) for the own exam and the user exam."""
    panels = []
    for title, got in (("own exam", ev), ("user exam", ev.get("user_exam"))):
        if not got:
            continue
        rows = [
            (role, str(got[role].get("model", role)), got[role])
            for role in ORDER
            if got.get(role) and got[role].get("mc_accuracy") is not None
        ]
        if rows:
            panels.append((title, rows))
    return panels


def exam_chart(ev: dict[str, Any], out: Path, title: str = "") -> Path | None:
    """Write the chart as a PNG; None when no model has an MC figure."""
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    panels = exam_panels(ev)
    if not panels:
        return None
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.2), squeeze=False)
    for ax, (name, rows) in zip(axes[0], panels, strict=True):
        values = [float(r["mc_accuracy"]) for _, _, r in rows]
        lows = [
            v - (r.get("mc_accuracy_ci") or [v, v])[0]
            for v, (_, _, r) in zip(values, rows, strict=True)
        ]
        highs = [
            (r.get("mc_accuracy_ci") or [v, v])[1] - v
            for v, (_, _, r) in zip(values, rows, strict=True)
        ]
        xs = range(len(rows))
        ax.bar(
            xs, values, yerr=[lows, highs], capsize=5, color=[COLORS[role] for role, _, _ in rows]
        )
        chance = rows[0][2].get("mc_chance")
        if chance is not None:
            ax.axhline(float(chance), color="black", linestyle="--", linewidth=1, label="chance")
            ax.legend(loc="upper left")
        n = rows[0][2].get("n_mc")
        ax.set_title(f"{name} ({n} items)" if n else name)
        # the untrained row is the base model when fine-tuning: named as the eval names it
        labels = [name if role == "untrained" else role for role, name, _ in rows]
        ax.set_xticks(list(xs), labels, rotation=15)
        ax.set_ylim(0, 1)
        ax.set_ylabel("multiple-choice accuracy (95% CI)")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
