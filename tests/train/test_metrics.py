"""Metrics: FLOPs/MFU arithmetic, the device peak table, and the rank-0 logger's files
(metrics.jsonl, TensorBoard events, W&B and MLflow calls) and learning-curve PNG."""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

import pytest
import torch

from jupiter.errors import JupiterError
from jupiter.train.metrics import (
    MetricsLogger,
    flops_per_token,
    mfu,
    peak_flops,
    peak_flops_for_name,
    peak_memory_gb,
    plot_learning_curve,
    read_metrics,
    reset_peak_memory,
)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _train_row(step: int) -> dict[str, float | int | None]:
    return {
        "loss": 4.0 - 0.5 * step,
        "ppl": 2.0**step,
        "lr": 1e-3 * step,
        "grad_norm": 0.5,
        "tokens_per_s": 1000.0 + step,
        "mfu": None,  # unknown peak: dropped from the row
        "peak_mem_gb": 1.25,
        "epoch": 0,
        "elapsed": 0.1 * step,
    }


def _scalars(tb_dir: Path, tag: str) -> list[tuple[int, float]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(tb_dir))
    acc.Reload()
    return [(e.step, e.value) for e in acc.Scalars(tag)]


# ------------------------------------------------------------------------- arithmetic
def test_flops_per_token_palm_formula() -> None:
    # GPT-2 small shape: N = 124M, L 12, H 768, T 1024
    attention = 12 * 12 * 768 * 1024
    assert attention == 113_246_208
    assert flops_per_token(124_000_000, 12, 768, 1024) == 744_000_000 + attention
    lora = flops_per_token(124_000_000, 12, 768, 1024, trainable_fraction=0.01)
    assert lora == 4 * 124_000_000 + 2 * 1_240_000 + attention == 611_726_208
    assert lora < flops_per_token(124_000_000, 12, 768, 1024)
    assert flops_per_token(10, 1, 1, 1, trainable_fraction=0.0) == 40 + 12
    with pytest.raises(ValueError, match="trainable_fraction"):
        flops_per_token(10, 1, 1, 1, trainable_fraction=1.5)


def test_mfu_arithmetic() -> None:
    assert mfu(1000.0, 6e9, 1e13) == pytest.approx(0.6)
    assert mfu(2500.0, 4e8, 989.5e12) == pytest.approx(1e12 / 989.5e12)
    assert mfu(1000.0, 6e9, None) is None
    assert mfu(1000.0, 6e9, 0.0) is None


# ------------------------------------------------------------------------- peak table
@pytest.mark.parametrize(
    ("name", "dtype", "tflops"),
    [
        ("NVIDIA H100 80GB HBM3", torch.bfloat16, 989.5),  # the SXM part's name
        ("NVIDIA H100 80GB HBM3", torch.float16, 989.5),
        ("NVIDIA H100 PCIe", torch.bfloat16, 756.5),
        ("NVIDIA H100 NVL", torch.bfloat16, 835.5),
        ("NVIDIA H200", torch.bfloat16, 989.5),
        ("NVIDIA H200 NVL", torch.bfloat16, 835.5),
        ("NVIDIA A100-SXM4-80GB", torch.bfloat16, 312.0),
        ("NVIDIA A100 80GB PCIe", torch.float32, 19.5),
        ("NVIDIA A10G", torch.bfloat16, 125.0),
        ("NVIDIA L40S", torch.bfloat16, 362.05),
        ("NVIDIA L40", torch.bfloat16, 181.05),
        ("NVIDIA L4", torch.bfloat16, 121.0),
        ("NVIDIA GeForce RTX 4090", torch.bfloat16, 165.2),
        ("NVIDIA GeForce RTX 3090", torch.bfloat16, 71.0),
        ("NVIDIA GeForce RTX 3090 Ti", torch.bfloat16, 80.0),
        ("Tesla T4", torch.float16, 65.0),
    ],
)
def test_peak_flops_for_name(name: str, dtype: torch.dtype, tflops: float) -> None:
    assert peak_flops_for_name(name, dtype) == pytest.approx(tflops * 1e12)


def test_peak_flops_for_name_fp32_tf32_and_unknown() -> None:
    a100 = "NVIDIA A100-SXM4-40GB"
    assert peak_flops_for_name(a100, None) == pytest.approx(19.5e12)  # None: no autocast, fp32
    assert peak_flops_for_name(a100, torch.float32, tf32=True) == pytest.approx(156e12)
    assert peak_flops_for_name("NVIDIA H100 80GB HBM3", None, tf32=True) == pytest.approx(494.5e12)
    assert peak_flops_for_name("Tesla T4", torch.float32, tf32=True) == pytest.approx(8.1e12)
    assert peak_flops_for_name("Tesla T4", torch.bfloat16) is None  # no bf16 tensor cores
    assert peak_flops_for_name(a100, torch.float64) is None
    assert peak_flops_for_name("NVIDIA GeForce RTX 4090 Laptop GPU", torch.bfloat16) is None
    assert peak_flops_for_name("Radeon RX 7900", torch.bfloat16) is None
    assert peak_flops_for_name("", torch.bfloat16) is None


def test_peak_flops_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JUPITER_PEAK_TFLOPS", raising=False)
    assert peak_flops(torch.device("cpu"), torch.bfloat16) is None
    assert peak_flops(torch.device("cpu"), None) is None
    # only the name lookup is faked: the rest is the CUDA path as it runs on a GPU
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: "NVIDIA H100 PCIe")
    assert peak_flops(torch.device("cuda", 0), torch.bfloat16) == pytest.approx(756.5e12)


def test_peak_flops_env_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUPITER_PEAK_TFLOPS", "123.5")
    assert peak_flops(torch.device("cpu"), None) == pytest.approx(123.5e12)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: "NVIDIA H100 PCIe")
    assert peak_flops(torch.device("cuda"), torch.bfloat16) == pytest.approx(123.5e12)
    for bad in ("fast", "0", "-3", "inf"):
        monkeypatch.setenv("JUPITER_PEAK_TFLOPS", bad)
        with pytest.raises(JupiterError, match="JUPITER_PEAK_TFLOPS"):
            peak_flops(torch.device("cpu"), None)


def test_peak_memory_gb_cpu() -> None:
    gb = peak_memory_gb(torch.device("cpu"))
    assert 0.01 < gb < 4096  # this process holds torch: tens of MiB at least


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="Linux only")
def test_reset_peak_memory_forgets_an_earlier_spike() -> None:
    cpu = torch.device("cpu")
    spike = torch.ones(96 * 2**20)  # 384 MiB, touched
    during = peak_memory_gb(cpu)
    del spike
    reset_peak_memory(cpu)
    after = peak_memory_gb(cpu)
    # a training run started now reports its own peak, not the spike before it
    assert after < during - 0.3, (during, after)


# ---------------------------------------------------------------------------- logger
def test_logger_jsonl_and_tensorboard(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with MetricsLogger(out, ["tensorboard"], run_name="r", config={"lr": 1e-3}) as logger:
        for step in (1, 2, 3):
            logger.log(step, _train_row(step))
        logger.log(2, {"loss": 3.5, "ppl": 33.1}, kind="heldout")
    rows = read_metrics(out / "metrics.jsonl")
    assert len(rows) == 4
    assert [(r["step"], r["kind"]) for r in rows] == [
        (1, "train"),
        (2, "train"),
        (3, "train"),
        (2, "heldout"),
    ]
    expected = {k: v for k, v in _train_row(1).items() if v is not None}
    assert rows[0] == {"step": 1, "kind": "train", **expected}
    assert "mfu" not in rows[0]
    assert rows[3] == {"step": 2, "kind": "heldout", "loss": 3.5, "ppl": 33.1}

    tb = out / "tensorboard"
    assert list(tb.glob("events.out.tfevents.*"))
    loss = _scalars(tb, "train/loss")
    assert [s for s, _ in loss] == [1, 2, 3]
    assert [v for _, v in loss] == pytest.approx([3.5, 3.0, 2.5])
    lr = _scalars(tb, "train/lr")  # TensorBoard stores float32
    assert [s for s, _ in lr] == [1, 2, 3]
    assert [v for _, v in lr] == pytest.approx([1e-3, 2e-3, 3e-3], rel=1e-6)
    assert _scalars(tb, "heldout/loss") == [(2, 3.5)]


def test_logger_rejects_reserved_keys(tmp_path: Path) -> None:
    with MetricsLogger(tmp_path, [], run_name="r", config={}) as logger:
        with pytest.raises(ValueError, match="step"):
            logger.log(1, {"step": 5, "loss": 1.0})
    assert read_metrics(tmp_path / "metrics.jsonl") == []


def test_resume_truncates_jsonl_and_tensorboard(tmp_path: Path) -> None:
    with MetricsLogger(tmp_path, ["tensorboard"], run_name="r", config={}) as logger:
        for step in range(1, 6):
            logger.log(step, {"loss": float(step)})
        logger.log(4, {"loss": 9.0}, kind="heldout")
    with (tmp_path / "metrics.jsonl").open("a") as f:
        f.write('{"step": 6, "kind": "tr')  # a line torn by a kill

    logger = MetricsLogger(tmp_path, ["tensorboard"], run_name="r", config={}, resume_step=3)
    rows = read_metrics(tmp_path / "metrics.jsonl")
    assert [(r["step"], r["loss"]) for r in rows] == [(1, 1.0), (2, 2.0), (3, 3.0)]
    for step in (4, 5):
        logger.log(step, {"loss": 10.0 * step})
    logger.close()
    logger.close()  # twice is fine

    rows = read_metrics(tmp_path / "metrics.jsonl")
    assert [(r["step"], r["loss"]) for r in rows] == [(1, 1), (2, 2), (3, 3), (4, 40), (5, 50)]
    # TensorBoard's purge_step hides the first run's steps 4 and 5
    assert _scalars(tmp_path / "tensorboard", "train/loss") == [
        (1, 1.0),
        (2, 2.0),
        (3, 3.0),
        (4, 40.0),
        (5, 50.0),
    ]


def test_disabled_logger_creates_nothing(tmp_path: Path) -> None:
    out = tmp_path / "rank1"
    logger = MetricsLogger(
        out, ["tensorboard", "wandb", "mlflow", "bogus"], run_name="r", config={}, enabled=False
    )
    logger.log(1, {"loss": 1.0})
    logger.close()
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("backend", "module"),
    [("wandb", "wandb"), ("mlflow", "mlflow"), ("tensorboard", "torch.utils.tensorboard")],
)
def test_missing_package_names_pip_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: str, module: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # import fails even where it is installed
    out = tmp_path / "run"
    with pytest.raises(JupiterError, match=rf"pip install {backend} \(or remove it") as err:
        MetricsLogger(out, ["tensorboard", backend], run_name="r", config={})
    assert str(err.value).startswith(f"metrics: {backend} needs the {backend} package")
    assert not out.exists()  # checked before anything is written


def test_unknown_backend(tmp_path: Path) -> None:
    with pytest.raises(JupiterError, match="unknown backend 'neptune'"):
        MetricsLogger(tmp_path / "run", ["neptune"], run_name="r", config={})
    assert not (tmp_path / "run").exists()


# ------------------------------------------- W&B (offline) and MLflow (SQLite), real
def test_wandb_offline_run_receives_the_metrics(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("wandb")
    monkeypatch.setenv("WANDB_MODE", "offline")  # the real client, writing locally
    monkeypatch.setenv("WANDB_SILENT", "true")
    config = {"train": {"lr": 0.1}, "name": "py"}
    logger = MetricsLogger(
        tmp_path, ["wandb"], run_name="cycle-1", config=config, wandb_project="jup"
    )
    for step in (1, 2, 3):
        logger.log(step, {"loss": 4.0 / step, "mfu": None})
    logger.log(3, {"loss": 2.5}, kind="heldout")
    logger.close()
    run_id = (tmp_path / "wandb-run-id").read_text()
    (run_file,) = (tmp_path / "wandb").glob(f"offline-run-*-{run_id}/run-{run_id}.wandb")
    blob = run_file.read_bytes()  # protobuf records: the keys appear verbatim
    for key in (b"train/loss", b"heldout/loss", b"cycle-1", b"jup"):
        assert key in blob, key
    assert b"train/mfu" not in blob  # None values are not sent
    again = MetricsLogger(
        tmp_path, ["wandb"], run_name="cycle-1", config=config, wandb_project="jup", resume_step=3
    )
    again.close()
    assert (tmp_path / "wandb-run-id").read_text() == run_id  # a resumed run continues it


def test_mlflow_run_holds_params_and_metric_history(tmp_path: Path) -> None:
    pytest.importorskip("mlflow")
    pytest.importorskip("sqlalchemy")
    from mlflow.tracking import MlflowClient

    config = {"train": {"lr": 0.1, "metrics": ["mlflow"]}, "name": "py"}
    logger = MetricsLogger(tmp_path, ["mlflow"], run_name="cycle-1", config=config)
    logger.log(7, {"loss": 1.5, "lr": 0.01})
    logger.log(8, {"loss": 1.25, "lr": 0.01})
    logger.log(8, {"loss": 2.0}, kind="heldout")
    logger.close()
    client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")  # the default store
    run_id = (tmp_path / "mlflow-run-id").read_text()
    run = client.get_run(run_id)
    assert run.info.run_name == "cycle-1"
    assert run.data.params == {"train.lr": "0.1", "train.metrics": "['mlflow']", "name": "py"}
    history = [(m.step, m.value) for m in client.get_metric_history(run_id, "train/loss")]
    assert sorted(history) == [(7, 1.5), (8, 1.25)]
    assert [m.value for m in client.get_metric_history(run_id, "heldout/loss")] == [2.0]
    # resumed: the same run, new steps appended, params untouched
    again = MetricsLogger(tmp_path, ["mlflow"], run_name="cycle-1", config=config, resume_step=8)
    again.log(9, {"loss": 1.0})
    again.close()
    steps = sorted(m.step for m in client.get_metric_history(run_id, "train/loss"))
    assert steps == [7, 8, 9]


# ------------------------------------------------------------------------------ plot
def test_plot_learning_curve_png(tmp_path: Path) -> None:
    pyplot_before = "matplotlib.pyplot" in sys.modules
    with MetricsLogger(tmp_path, [], run_name="r", config={}) as logger:
        for step in range(1, 21):
            logger.log(step, _train_row(step))
            if step % 5 == 0:
                logger.log(step, {"loss": 3.0 - 0.05 * step, "ppl": 10.0}, kind="heldout")
    out = tmp_path / "plots" / "curve.png"
    assert plot_learning_curve(tmp_path / "metrics.jsonl", out, title="python") == out
    data = out.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert width > 100 and height > 100
    assert [p.name for p in out.parent.iterdir()] == ["curve.png"]  # no temp file left
    if not pyplot_before:
        assert "matplotlib.pyplot" not in sys.modules


def test_plot_learning_curve_without_train_rows(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    path.write_text(json.dumps({"step": 5, "kind": "heldout", "loss": 2.0}) + "\n")
    out = tmp_path / "curve.png"
    assert plot_learning_curve(path, out) is None
    assert plot_learning_curve(tmp_path / "missing.jsonl", out) is None
    assert not out.exists()


def test_read_metrics_skips_torn_lines(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    path.write_text('{"step": 1, "kind": "train", "loss": 2.0}\n\n[1]\n{"step": 2, "kin')
    assert read_metrics(path) == [{"step": 1, "kind": "train", "loss": 2.0}]
    assert read_metrics(tmp_path / "none.jsonl") == []
