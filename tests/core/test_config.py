"""Config loading: defaults, quick overrides, and errors that name file, key and expectation."""

from pathlib import Path

import pytest

from jupiter.config import DomainConfig, load_cluster, load_domain
from jupiter.errors import JupiterError

ROOT = Path(__file__).resolve().parents[2]
STDLIB = "name: x\nsources: [{type: python_stdlib}]\n"


def write(tmp_path: Path, text: str) -> str:
    p = tmp_path / "d.yaml"
    p.write_text(text)
    return str(p)


def test_shipped_domains_load() -> None:
    py = load_domain("python")
    assert py.name == "python"
    assert py.sources[0].type == "python_stdlib"
    assert py.resolve(py.eval.qa_path) == ROOT / "config" / "domains" / "python_eval.jsonl"
    ue = load_domain("unreal_engine")
    assert ue.sources[0].type == "web" and ue.model.preset == "125m"
    tpl = load_domain(str(ROOT / "config" / "domains" / "_template.yaml"))
    assert tpl.name == "my_domain"


def test_template_lists_every_field() -> None:
    """Every DomainConfig field (and nested field) appears in the template."""
    text = (ROOT / "config" / "domains" / "_template.yaml").read_text()
    names: set[str] = set()

    def walk(model: type) -> None:
        for name, f in model.model_fields.items():  # type: ignore[attr-defined]
            names.add(name)
            ann = f.annotation
            if isinstance(ann, type) and hasattr(ann, "model_fields"):
                walk(ann)

    walk(DomainConfig)
    names.discard("base_dir")
    missing = [n for n in names if f"{n}:" not in text]
    assert missing == []


def test_quick_overrides_merge() -> None:
    full, quick = load_domain("python"), load_domain("python", quick=True)
    assert quick.train.max_steps < full.train.max_steps
    assert quick.train.lr == full.train.lr  # untouched keys keep their value
    assert quick.sources[0].modules and not full.sources[0].modules


def test_unknown_key_names_file_and_path(tmp_path: Path) -> None:
    path = write(tmp_path, "name: x\nsources: [{type: python_stdlib}]\ntrain: {max_stepz: 3}\n")
    with pytest.raises(JupiterError) as e:
        load_domain(path)
    msg = str(e.value)
    assert "d.yaml" in msg and "train.max_stepz" in msg and "unknown key" in msg
    assert "\n" not in msg


@pytest.mark.parametrize(
    ("yaml_text", "expected"),
    [
        # a misspelt required key: the unknown spelling is named, not its "missing" twin
        (
            "name: x\nsource: [{type: python_stdlib}]\n",
            "unknown key 'source' (did you mean 'sources'?)",
        ),
        (
            STDLIB + "train: {max_step: 3}\n",
            "unknown key 'train.max_step' (did you mean 'max_steps'?)",
        ),
        # a source's keys, whichever member of the union it is
        (
            "name: x\nsources: [{type: local, path: ., inclde: ['*.md']}]\n",
            "unknown key 'sources.0.inclde' (did you mean 'include'?)",
        ),
        (
            STDLIB + "generator: {rephrase: {cout: 2}}\n",
            "'generator.rephrase.cout' (did you mean 'count'?)",
        ),
        # nothing close: the template that lists every key
        (
            STDLIB + "train: {lora: {rank: 8}}\n",
            "unknown key 'train.lora.rank' (see config/domains/_template.yaml",
        ),
    ],
)
def test_unknown_key_suggests_the_close_valid_one(
    tmp_path: Path, yaml_text: str, expected: str
) -> None:
    with pytest.raises(JupiterError) as e:
        load_domain(write(tmp_path, yaml_text))
    assert expected in str(e.value)
    # one problem, one line: the misspelt key's "missing" twin is not counted as another
    assert "(and" not in str(e.value) and "\n" not in str(e.value)


def test_cluster_unknown_key_suggests_its_own_keys(tmp_path: Path) -> None:
    bad = tmp_path / "c.yaml"
    bad.write_text("nodes: [{host: a, device_typ: cuda}]\n")
    with pytest.raises(
        JupiterError, match=r"unknown key 'nodes\.0\.device_typ' \(did you mean 'device_type'\?\)"
    ):
        load_cluster(str(bad))


def test_wrong_type_names_expectation(tmp_path: Path) -> None:
    path = write(tmp_path, "name: x\nsources: [{type: python_stdlib}]\ntrain: {lr: fast}\n")
    with pytest.raises(JupiterError, match=r"train\.lr: .*number.*'fast'"):
        load_domain(path)


def test_bad_source_type_and_missing_key(tmp_path: Path) -> None:
    with pytest.raises(JupiterError, match="sources"):
        load_domain(write(tmp_path, "name: x\nsources: [{type: ftp}]\n"))
    with pytest.raises(JupiterError, match="missing required key 'sources'"):
        load_domain(write(tmp_path, "name: x\n"))


def test_malformed_yaml_gives_line(tmp_path: Path) -> None:
    path = write(tmp_path, "name: x\nsources: [\n  - {type: python_stdlib\n")
    with pytest.raises(JupiterError, match=r"d\.yaml:.*line \d+.*malformed YAML"):
        load_domain(path)


def test_unknown_domain_lists_known() -> None:
    with pytest.raises(JupiterError, match="unknown domain 'nope'.*python"):
        load_domain("nope")


def test_cluster_default_and_error(tmp_path: Path) -> None:
    c = load_cluster()
    assert len(c.nodes) == 1 and c.nodes[0].host == "localhost" and c.backend == "auto"
    bad = tmp_path / "c.yaml"
    bad.write_text("nodes: [{host: a, device_type: tpu}]\n")
    with pytest.raises(JupiterError, match=r"nodes\.0\.device_type"):
        load_cluster(str(bad))


def test_a_pretrained_base_takes_the_fine_tuning_defaults(tmp_path: Path) -> None:
    """With model.base, the train keys a YAML leaves out take the measured fine-tuning
    recipe; the keys it writes win, knowledge and replay as whole blocks."""
    from jupiter.config.domain import FINETUNE_EPOCHS, FINETUNE_TRAIN

    scratch = load_domain(write(tmp_path, STDLIB + "train: {method: lora}\n"))
    assert scratch.train.lr == 3e-3 and not scratch.train.knowledge.enabled
    assert scratch.train.replay.fraction == 0.0 and scratch.finetune_defaulted == []
    base = STDLIB + "model: {base: some/model}\n"
    lora = load_domain(write(tmp_path, base + "train: {method: lora}\n"))
    t = lora.train
    assert (t.lr, t.min_lr, t.epochs, t.warmup_steps, t.weight_decay) == (2e-4, 2e-5, 2, 10, 0.0)
    assert t.epochs == FINETUNE_EPOCHS and t.raw_text_fraction == 0.3
    assert t.knowledge.model_dump() == FINETUNE_TRAIN["knowledge"]
    assert (t.replay.fraction, t.replay.samples, t.replay.loss) == (0.2, 128, "kl")
    assert (t.lora.r, t.lora.alpha, t.lora.dropout) == (16, 32, 0.05)  # the measured rank
    defaulted = "epochs knowledge lora lr min_lr raw_text_fraction replay warmup_steps weight_decay"
    assert lora.finetune_defaulted == defaulted.split()
    # dumped and loaded again (a consensus member, an island): the same train config
    assert DomainConfig.model_validate(lora.model_dump()).train == t
    # nothing written: LoRA, as measured (and LLaMA-Factory's, mlx-lm's default)
    bare = load_domain(write(tmp_path, base))
    assert bare.train.model_dump() == t.model_dump()
    assert bare.finetune_defaulted == sorted([*defaulted.split(), "method"])
    full = load_domain(write(tmp_path, base + "train: {method: full}\n"))  # full SFT's lr
    assert (full.train.method, full.train.lr, full.train.min_lr) == ("full", 2e-5, 2e-6)
    assert full.train.replay.loss == "ce"  # no frozen second copy of the whole model
    assert "lora" not in full.finetune_defaulted
    own_rank = load_domain(write(tmp_path, base + "train: {lora: {r: 4}}\n"))
    assert (own_rank.train.method, own_rank.train.lora.r, own_rank.train.lora.alpha) == (
        "lora",
        4,
        128,  # a lora: block written is taken whole, LoraConfig's defaults under it
    )
    own = load_domain(
        write(
            tmp_path,
            base + "train: {method: lora, lr: 1.0e-3, max_steps: 50, knowledge: {phrasings: 1},"
            " replay: {fraction: 0.05}}\n",
        )
    )
    t = own.train
    assert (t.lr, t.min_lr, t.max_steps, t.epochs) == (1e-3, 2e-5, 50, "auto")
    assert (t.knowledge.phrasings, t.knowledge.reverse, t.knowledge.sentences) == (1, 0, 0)
    assert (t.replay.fraction, t.replay.samples, t.replay.loss) == (0.05, 64, "ce")
    assert "lr" not in own.finetune_defaulted and "knowledge" not in own.finetune_defaulted
    vote = load_domain(write(tmp_path, base + "train: {consensus: {members: 2}}\n"))
    assert vote.train.replay.loss == "ce"  # members run no teacher forward
    with pytest.raises(JupiterError, match="unknown key 'finetune_defaulted'"):
        load_domain(write(tmp_path, base + "finetune_defaulted: [lr]\n"))
    quick = write(tmp_path, base + "quick: {train: {lr: 1.0e-4}}\n")
    assert load_domain(quick, quick=True).train.lr == 1e-4
    assert load_domain(quick).train.lr == 2e-4  # LoRA's
