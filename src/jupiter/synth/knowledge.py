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
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from jupiter.records import Chunk, Example
from jupiter.synth.docparse import subject_of as doc_subject
from jupiter.synth.parse import prose_paragraphs, sentences, view
from jupiter.synth.questions import PHRASES, TEMPLATES

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
    # a term a text defines ('"Licensor" shall mean ...', a glossary entry): no option
    "term": [
        "What is meant by `{t}`?",
        "How is `{t}` defined?",
        "I keep reading `{t}`. What does it mean?",
        "Explain the term `{t}`.",
    ],
    "term_s": [
        "In `{s}`, what does `{t}` mean?",
        "How does `{s}` define `{t}`?",
        "What is meant by `{t}` in `{s}`?",
        "I keep reading `{t}` in `{s}`. What is it?",
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
    "term": ["Which term is defined like this? {fact}", "What is the word for this? {fact}"],
    "term_s": [
        "Which term of `{s}` is defined like this? {fact}",
        "What does `{s}` call this? {fact}",
    ],
}
USAGE = {
    "vp": ["How do I {vp}?", "What's the way to {vp}?"],
    "ts_vp": ["How do I make `{s}` {vp}?"],
}
# every prose sentence of the documents, not only the templated answers' first sentences
# (train.knowledge.sentences): {s} the document's subject, {t} a name the sentence holds,
# {cond} / {effect} the halves of an "If ..., ..." sentence, {masked} the sentence with {t}
# left out
SENTENCE = {
    "cond": [
        "Using `{s}`, what is the result if {cond}?",
        "With `{s}`, suppose {cond}. What then?",
        "In `{s}`, what follows when {cond}?",
    ],
    "effect": [
        "With `{s}`, under what condition does this hold: {effect}",
        "Using `{s}`, when is it the case that {effect}",
    ],
    "term": [
        "What do the `{s}` docs say about `{t}`?",
        "In `{s}`, what is there to know about `{t}`?",
        "Tell me about `{t}` in `{s}`.",
    ],
    "masked": [
        "In `{s}`, which name is left out (…) here? {masked}",
        "Fill the gap (…) from the `{s}` docs: {masked}",
    ],
    "which": [
        "Whose documentation says this? {sentence}",
        "Which name is this written about? {sentence}",
    ],
}
FRAMES = [
    f for group in (FORWARD, REVERSE, USAGE, SENTENCE) for frames in group.values() for f in frames
]

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
# a sentence may open with a name in markup ("``SEND_ERROR`` CMake Error, continue ...",
# ":variable:`X` holds ...") but not with a signature in it ("``f(x)`` ...")
_SENTENCE_CODE_OPEN = re.compile(r"^(?![`:])\W|^\w+\(|^`+[^`]*\(|^:[a-z_:]+:`[^`]*\(")
_BULLET_OPEN = re.compile(r"^[-*+•]\s+")
# a paragraph that opens inside a sentence (a chunk cut mid-way, a page break): its first
# words are a plain lower-case word ("can get it if you want it, ...") or a number's tail
# ("3.0, or any later versions ..."); an identifier ("os.path", "__init__") is not that
_FRAGMENT_OPEN = re.compile(r"^(?:[a-z]+\b(?![.(_`'])|[\d.]+[,;)]|[,;)])")
MAX_FACT_CHARS = 220
# a name in a sentence: ``code`` or `code`, an rst role's target (:command:`if(TARGET)`,
# :prop_tgt:`text <NAME>`), or a command-line option (-n, --no-clobber)
_TERM = re.compile(
    r"``([^`\n]{1,60})``|(?<![:`\w])`([^`\n]{1,60})`(?!`)|:[a-z_:]+:`(?:[^`<]*<)?([^`<>]{1,60})>?`"
    r"|(?<![\w-])(--?[A-Za-z][\w-]*)"
)
_IF = re.compile(r"^(?:If|When|Whenever|Unless)\s+(.{8,200}?),\s+(?:then\s+)?(.{12,300})$")
_IF_THEN = re.compile(r"^(?:If|When|Whenever|Unless)\s+(.{8,200}?),?\s+then\s+(.{12,300})$")
_NOT_CLAUSE = re.compile(r"^(?:or|and|but|i\.e\.|e\.g\.|etc\.?)(?!\w)|^[,;:.)\]]")
SENTENCE_WORDS = (6, 60)


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
    term = key in ("term", "term_in")  # a defined term is no API name nor an option
    forward = ("term_s" if pair else "term") if term else ("ts" if pair else "a")
    out = [
        _qa(ex, f.format(**fmt), ex.answer, "phrasing")
        for f in rng.sample(FORWARD[forward], k=min(phrasings, 4))
    ]
    if not fact:
        return out
    if term:  # asked from its definition back to the term; no usage form
        named = f"`{name}`" + (f" (in `{fmt['s']}`)" if pair else "")
        frames = REVERSE["term_s" if pair else "term"]
        for f in rng.sample(frames, k=min(reverse, len(frames))):
            out.append(_qa(ex, f.format(**fmt, fact=fact), f"{named}. {fact}", "reverse"))
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


def subject_name(title: str) -> str:
    """A document title as the subject of its sentences ("add_library.rst" -> "add_library",
    '"pdb" — The Python Debugger' -> '"pdb"', "ls.1.txt" -> "ls", "json.dumps" as it is),
    as the generator's questions name it (docparse.subject_of); "" when it does not name
    one thing (over 6 words or 60 characters)."""
    name = doc_subject(title)
    return name if name and len(name) <= 80 and len(name.split()) <= 6 else ""


def _term(m: re.Match[str]) -> str:
    """The name a _TERM match holds (whichever of its forms matched)."""
    return next(g for g in m.groups() if g).strip()


def sentence_terms(sentence: str, subject: str) -> list[str]:
    """The names a sentence holds, in order, without the subject itself and repeats."""
    out: list[str] = []
    for m in _TERM.finditer(sentence):
        term = _term(m)
        if term and term != subject and term not in out and not term.endswith(("-", "_")):
            out.append(term)
    return out


def sentence_facts(
    text: str, subject: str, rng: random.Random, per_sentence: int, plain: bool = False
) -> list[tuple[str, str, str]]:
    """(kind, question, answer) for every prose sentence of `text` about `subject`: up to
    `per_sentence` questions each, drawn from the kinds the sentence allows (its condition ->
    its effect and back, a name it holds -> the sentence, the sentence without the name ->
    the name). The answer always holds the whole sentence: the fact, whichever way asked.
    `plain`: the text is plain (parse.plain_chunk), its indented paragraphs prose too."""
    out: list[tuple[str, str, str]] = []
    lo, hi = SENTENCE_WORDS
    for para in prose_paragraphs(text, plain):
        for k, sent in enumerate(sentences(_BULLET_OPEN.sub("", para))):
            words = len(sent.split())
            if not lo <= words <= hi or not sent.endswith(".") or _SENTENCE_CODE_OPEN.match(sent):
                continue
            if k == 0 and _FRAGMENT_OPEN.match(sent) and sent.split()[0] != subject.lower():
                continue  # "grep searches for PATTERNS ..." opens with its subject: kept
            options: list[tuple[str, str, str]] = []
            m = _IF_THEN.match(sent) or _IF.match(sent)
            if m and _clause(m.group(1)) and _clause(m.group(2)):
                cond, effect = m.group(1), m.group(2)
                options.append(
                    ("cond", rng.choice(SENTENCE["cond"]).format(s=subject, cond=cond), sent)
                )
                options.append(
                    (
                        "effect",
                        rng.choice(SENTENCE["effect"]).format(s=subject, effect=effect),
                        sent,
                    )
                )
            if subject not in sent:  # naming it would give the answer away
                q = rng.choice(SENTENCE["which"]).format(sentence=sent)
                options.append(("which", q, f"`{subject}`. {sent}"))
            terms = [t for t in sentence_terms(sent, subject) if " " not in t]
            if terms:
                t = rng.choice(terms)
                options.append(("term", rng.choice(SENTENCE["term"]).format(s=subject, t=t), sent))
                masked = _mask(sent, t)
                if masked != sent:
                    q = rng.choice(SENTENCE["masked"]).format(s=subject, masked=masked)
                    options.append(("masked", q, f"`{t}`. {sent}"))
            out.extend(rng.sample(options, k=min(per_sentence, len(options))))
    return out


def definition_facts(
    chunks: Sequence[Chunk], examples: Sequence[Example], seed: int
) -> list[Example]:
    """Every definition of `chunks` (the `define` template's candidates: options, keywords,
    parameters, return values, glossary terms) that no Q&A of `examples` from the same chunk
    already answers, as a templated Q&A answered with its description. The generator asks
    at most generator.max_questions_per_chunk questions a chunk, so a page of forty options
    has most of them asked nowhere; here each is a fact the recipe asks again."""
    answered = {(e.chunk_id, e.answer) for e in examples if e.kind == "qa" and e.messages}
    generator = next((e.generator for e in examples), "extractive")
    cycle = next((e.cycle for e in examples), 1)
    out: list[Example] = []
    for chunk in chunks:
        rng = random.Random(f"{seed}:{chunk.id}:definitions")
        for key, args, answer, *span in TEMPLATES["define"](view(chunk), None):
            if (chunk.id, answer) in answered:
                continue
            answered.add((chunk.id, answer))
            out.append(
                Example(
                    kind="qa",
                    generator=generator,
                    chunk_id=chunk.id,
                    template="define+definition",
                    cycle=cycle,
                    status="accepted",
                    messages=[
                        {"role": "user", "content": rng.choice(PHRASES[key]).format(**args)},
                        {"role": "assistant", "content": answer},
                    ],
                    span=(chunk.start + span[0][0], chunk.start + span[0][1]) if span else None,
                )
            )
    return out


def _clause(text: str) -> bool:
    """A condition or effect that stands alone: 3 words or more, not a fragment cut at a
    parenthesis, quote or "i.e." (brackets and quotes balanced)."""
    return (
        len(text.split()) >= 3
        and not _NOT_CLAUSE.match(text)
        and text.count("(") == text.count(")")
        and text.count('"') % 2 == 0
    )


def _mask(sentence: str, term: str) -> str:
    """`sentence` with every markup span or bare option that is `term` replaced by "…"."""

    def repl(m: re.Match[str]) -> str:
        return "…" if _term(m) == term else m.group(0)

    return _TERM.sub(repl, sentence)


def expand(
    examples: Sequence[Example],
    texts: Sequence[str],
    *,
    phrasings: int,
    reverse: int,
    usage: bool,
    permuted_copies: int,
    seed: int,
    sentences: int = 0,
    titles: Mapping[str, str] | None = None,
    plain: Collection[str] = frozenset(),
    definitions: Sequence[Chunk] = (),
    asked: Sequence[Example] | None = None,
) -> tuple[list[Example], list[str], KnowledgeMix]:
    """(examples + their knowledge questions, texts + their permuted copies, the mix). Each
    example draws from its own rng (seed, id): adding an example never changes another's.
    `sentences` questions per prose sentence of each text example whose chunk has a title in
    `titles` (chunk id -> title: the subject the questions name); `plain`, the ids of chunks
    of plain text (parse.plain_chunk). `definitions`: chunks
    whose every definition (option, keyword, term, parameter) becomes a fact of its own
    (definition_facts), asked again like the generator's facts, unless a Q&A of `asked`
    (default `examples`; the train stage passes its held-out examples too) answers it."""
    mix = KnowledgeMix()
    out = list(examples)
    more_texts = list(texts)
    defined = definition_facts(definitions, examples if asked is None else asked, seed)
    if defined:
        mix.added["definition"] += len(defined)
        out.extend(defined)
    for ex in [*examples, *defined]:
        rng = random.Random(f"{seed}:{ex.id}")
        if ex.kind == "qa" and (phrasings or reverse or usage):
            got = expand_fact(ex, rng, phrasings, reverse, usage)
            mix.facts += bool(got)
            mix.added.update(e.template.rsplit("+", 1)[1] for e in got)
            out.extend(got)
        elif ex.kind == "text" and ex.text:
            subject = subject_name((titles or {}).get(ex.chunk_id, "")) if sentences else ""
            if subject:
                srng = random.Random(f"{seed}:{ex.id}:sentences")
                facts = sentence_facts(ex.text, subject, srng, sentences, ex.chunk_id in plain)
                for kind, q, a in facts:
                    out.append(_qa(ex, q, a, f"sentence-{kind}"))
                    mix.added[f"sentence-{kind}"] += 1
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
