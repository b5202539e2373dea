"""The knowledge recipe: every extracted fact asked several ways, both directions, and the raw
text in more than one sentence order (train.knowledge).

A fact seen in one wording is stored but not retrievable by another; five wordings and
shuffled sentence order raise extraction from ~10% to ~96% (Allen-Zhu & Li 2023, "Physics
of Language Models 3.1"). Knowing a name's fact is not knowing the name from the fact (the
reversal curse, Berglund et al. 2023), so each fact is also asked from the fact to the name,
and in usage form ("How do I ...?" -> "Use `X` ..."), which is how users ask.

The expansion runs when the train stage packs its data, on the train split only, seeded:
the queue keeps the examples the generator wrote (the filters judged those), and the same
config always gives the same rows. Its wordings are generator templates like any other:
the user exam's check rejects a question any of them could have written (FRAMES).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from jupiter.records import Example
from jupiter.synth.parse import sentences
from jupiter.synth.questions import PHRASES

# name -> fact, in a user's register ({a}: the subject; {t} of {s}: an option or keyword)
FORWARD = {
    "a": [
        "I keep seeing `{a}` in code. What is it for?",
        "When would I reach for `{a}`?",
        "In a sentence or two, what does `{a}` do for me?",
        "What happens when I use `{a}`?",
        "I'm new to `{a}`; what job does it do?",
        "Remind me what `{a}` is good for.",
    ],
    "ts": [
        "I see `{t}` given to `{s}`. What does that change?",
        "Why would I give `{s}` the `{t}` option?",
        "What changes when `{s}` gets `{t}`?",
        "Remind me what `{t}` means when used with `{s}`.",
    ],
}
# fact -> name; {vp}: the fact as something to do, {np}: as a thing, {fact}: its words
REVERSE = {
    "vp": [
        "I need to {vp}. What should I use?",
        "What would I call to {vp}?",
        "Is there something ready-made that lets me {vp}?",
        "My code has to {vp}; what does that?",
        "Which API is there to {vp}?",
    ],
    "np": [
        "I'm looking for {np}. What is it called?",
        "What's the name of {np}?",
        "Which name refers to {np}?",
    ],
    "fact": [
        "Which name does this describe? {fact}",
        "Name what this documentation describes: {fact}",
    ],
    "ts_vp": [
        "Which option of `{s}` do I use to {vp}?",
        "What do I give `{s}` so that it will {vp}?",
        "In `{s}`, which keyword is there to {vp}?",
    ],
    "ts_fact": ["Which `{s}` option is this? {fact}", "What in `{s}` does this describe? {fact}"],
}
USAGE = {
    "vp": ["How do I {vp}?", "What's the way to {vp}?"],
    "ts_vp": ["How do I make `{s}` {vp}?"],
}
FRAMES = [f for group in (FORWARD, REVERSE, USAGE) for frames in group.values() for f in frames]

# Verbs that open a docstring's or an option's description ("Return ...", "Specifies ...").
VERBS = frozenset(
    """return get set create make build compute calculate convert add remove delete insert
    append extend read write open close run execute call apply check test find search match
    split join copy move rename format parse encode decode compress decompress load save dump
    send receive print display wait start stop raise register change update sort count
    compare determine wrap fill indent dedent strip normalize resolve expand list sleep lock
    acquire release push pop map filter reduce flatten hash sign verify validate ensure
    generate define specify install configure link include export import enable disable use
    initialize reset replace escape quote unquote iterate yield construct produce emit take
    accept handle manage provide store keep hold collect group merge combine chain cache
    evaluate round truncate serialize deserialize pack unpack schedule cancel submit spawn
    fork kill terminate exit clear flush seek tell walk scan glob touch mark tell report log
    warn ignore skip select pick choose order shuffle sample measure transform translate
    substitute interpolate render compile assemble declare mount add_ invoke query fetch
    download upload connect bind listen accept close shut create""".split()
)
_ARTICLE = re.compile(r"^(A|An|The)\s+\S")
_THIS = re.compile(r"^(?:This|It)\s+(?:\w+\s+)?(\w+s)\s+(.+)$")
_CODE_OPEN = re.compile(r"^\W|^\w+\(")  # a signature or markup first: "deque([iterable..."
MAX_FACT_CHARS = 220


@dataclass
class KnowledgeMix:
    """What the expansion added, by kind (printed by the train stage, kept in its record)."""

    added: Counter[str] = field(default_factory=Counter)
    facts: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"facts": self.facts, **dict(sorted(self.added.items()))}


def wording_pattern(text: str, flags: int = 0) -> re.Pattern[str]:
    """A wording with placeholders ("What does `{a}` do?") as a full-match regex, each
    placeholder a named group that matches anything."""
    parts = re.split(r"\{([a-z_]+)\}", text)
    rx = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts))
    return re.compile(f"^{rx}$", flags | re.S)


def _patterns() -> list[tuple[re.Pattern[str], str]]:
    """Every template wording as a regex with named groups, the most literal text first:
    "What does the `t` option of `s` do?" before "What does `a` do?"."""
    found = [(text, key) for key, wordings in PHRASES.items() for text in wordings]
    found.sort(key=lambda p: -len(re.sub(r"\{[a-z_]+\}", "", p[0])))
    return [(wording_pattern(text), key) for text, key in found]


_PATTERNS = _patterns()
FACT_KEYS = {
    "what_does",
    "what_does_module",
    "returns",
    "about_subject",
    "option",
    "keyword",
    "param",
    "option_bare",
    "keyword_bare",
    "term",
    "term_in",
}


def subject_of(question: str) -> tuple[str, dict[str, str]] | None:
    """(phrase key, its arguments) of a templated question; None for any other wording."""
    for rx, key in _PATTERNS:
        m = rx.match(question.strip())
        if m:
            return key, {k: v.strip("`") for k, v in m.groupdict().items()}
    return None


def fact_of(answer: str) -> str:
    """The answer's first sentence (the fact a reverse question is built from), or ""."""
    first = next(iter(sentences(answer.strip().split("\n\n")[0])), "").strip()
    if not first or len(first) > MAX_FACT_CHARS or _CODE_OPEN.match(first):
        return ""
    return first


def verb_phrase(fact: str) -> str:
    """The fact as something to do ("Return the number of items." -> "get the number of
    items"), or "" when it does not open with a verb."""
    text = fact.rstrip(".!: ")
    m = _THIS.match(text)
    if m and _base(m.group(1)):  # "This module provides X" -> "provide X"
        text = f"{m.group(1)} {m.group(2)}"
    word, _, rest = text.partition(" ")
    base = _base(word)
    return f"{'get' if base == 'return' else base} {rest}" if base and rest else ""


def _base(word: str) -> str:
    """The verb a description opens with, in its base form ("Returns" -> "return"), or ""."""
    low = word.lower()
    for base in (
        low,
        low[:-1] if low.endswith("s") else "",
        low[:-2] if low.endswith("es") else "",
    ):
        if base in VERBS:
            return base
    return ""


def noun_phrase(fact: str) -> str:
    """ "A list-like sequence optimized for X." -> "a list-like sequence optimized for X"."""
    text = fact.rstrip(".!: ")
    return text[0].lower() + text[1:] if _ARTICLE.match(text) else ""


def _qa(source: Example, question: str, answer: str, kind: str) -> Example:
    return Example(
        kind="qa",
        generator=source.generator,
        chunk_id=source.chunk_id,
        template=f"{source.template}+{kind}",
        cycle=source.cycle,
        status=source.status,
        messages=[{"role": "user", "content": question}, {"role": "assistant", "content": answer}],
    )


def expand_fact(
    ex: Example, rng: random.Random, phrasings: int, reverse: int, usage: bool
) -> list[Example]:
    """The knowledge questions of one templated Q&A example (none for other wordings)."""
    parsed = subject_of(ex.question)
    if parsed is None or parsed[0] not in FACT_KEYS:
        return []
    key, args = parsed
    fact = fact_of(ex.answer)
    pair = "t" in args and bool(args.get("s"))
    name = args.get("t") or args.get("a") or ""
    if not name:
        return []
    fmt = {"a": name, "t": name, "s": args.get("s", "")}
    out = [
        _qa(ex, f.format(**fmt), ex.answer, "phrasing")
        for f in rng.sample(FORWARD["ts" if pair else "a"], k=min(phrasings, 4))
    ]
    if not fact:
        return out
    vp, np_ = verb_phrase(fact), noun_phrase(fact)
    named = f"`{name}`" + (f" (of `{fmt['s']}`)" if pair else "")
    if vp:
        frames, fill = REVERSE["ts_vp" if pair else "vp"], {"vp": vp}
    elif np_ and not pair:
        frames, fill = REVERSE["np"], {"np": np_}
    else:
        frames, fill = REVERSE["ts_fact" if pair else "fact"], {"fact": fact}
    for f in rng.sample(frames, k=min(reverse, len(frames))):
        out.append(_qa(ex, f.format(**fmt, **fill), f"{named}. {fact}", "reverse"))
    if usage and vp:
        f = rng.choice(USAGE["ts_vp" if pair else "vp"])
        how = f"Give `{fmt['s']}` `{name}`" if pair else f"Use `{name}`"
        out.append(_qa(ex, f.format(**fmt, vp=vp), f"{how}. {fact}", "usage"))
    return out


def permuted(text: str, rng: random.Random) -> str:
    """`text` with the sentences of each prose paragraph in a new order; code, lists and
    one-sentence paragraphs as they were (the facts stay, their order changes)."""
    out = []
    for para in text.split("\n\n"):
        lines = para.splitlines()
        prose = lines and not any(ln.startswith((" ", "\t", "-", "*", "..", ">>>")) for ln in lines)
        parts = sentences(" ".join(ln.strip() for ln in lines)) if prose else []
        if len(parts) >= 2:
            rng.shuffle(parts)
            para = " ".join(parts)
        out.append(para)
    return "\n\n".join(out)


def expand(
    examples: Sequence[Example],
    texts: Sequence[str],
    *,
    phrasings: int,
    reverse: int,
    usage: bool,
    permuted_copies: int,
    seed: int,
) -> tuple[list[Example], list[str], KnowledgeMix]:
    """(examples + their knowledge questions, texts + their permuted copies, the mix). Each
    example draws from its own rng (seed, id): adding an example never changes another's."""
    mix = KnowledgeMix()
    out = list(examples)
    more_texts = list(texts)
    for ex in examples:
        rng = random.Random(f"{seed}:{ex.id}")
        if ex.kind == "qa" and (phrasings or reverse or usage):
            got = expand_fact(ex, rng, phrasings, reverse, usage)
            mix.facts += bool(got)
            mix.added.update(e.template.rsplit("+", 1)[1] for e in got)
            out.extend(got)
        elif ex.kind == "text" and ex.text:
            for _ in range(permuted_copies):
                out.append(
                    Example(
                        kind="text",
                        generator=ex.generator,
                        chunk_id=ex.chunk_id,
                        template=f"{ex.template}+permuted",
                        cycle=ex.cycle,
                        status=ex.status,
                        text=permuted(ex.text, rng),
                    )
                )
                mix.added["permuted"] += 1
    for text in texts:
        rng = random.Random(f"{seed}:{text[:200]}")
        for _ in range(permuted_copies):
            more_texts.append(permuted(text, rng))
            mix.added["permuted"] += 1
    return out, more_texts, mix
