"""A heading as a question says it: the capitals a heading gives its words lowered, a
name's kept (judged by the chunk's sentences and the corpus's, `name_words`); a heading
that is a task, an instruction or words, not a name (questions.py asks each its way)."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol


class NameEvidence(Protocol):
    """The corpus's names (`name_words`): questions.Catalog holds them."""

    names: frozenset[str]
    bound: frozenset[str]


def in_sentence(
    heading: str, body: str = "", evidence: NameEvidence | None = None, titles: Sequence[str] = ()
) -> str:
    """A heading as it reads inside a question: 'The "for" statement' as 'the "for"
    statement'; with the section's `body`, a heading in words loses the capitals a
    heading gives it ("Setting Policies Explicitly", "Push streams on the client",
    "INTEGRATION WITH GIT": the documentation writes "setting policies explicitly",
    "integration with Git" mid-sentence) and keeps a name's ("Cachegrind's", "CMake",
    "ID", "Valgrind gdbserver": capitalized inside a sentence of the body or, by the
    corpus's `evidence` (`name_words`), of the corpus; or not a plain capitalized word). A heading in code, a title
    with a colon ("Modules: CommonJS modules"), or a word that is one of `titles` (the
    document's: "Xcode", "Buffer") is left as written."""
    first, _, rest = heading.partition(" ")
    article = first in ("The", "A", "An") and rest
    words = heading.split()
    if (
        not body
        or not _PLAIN_WORD.fullmatch(words[0])
        or ":" in heading
        or (len(words) == 1 and heading.lower() in {t.lower() for t in titles})
    ):
        return f"{first.lower()} {rest}" if article else heading
    # the body, without the heading's own lines (a Markdown "## Setting Policies" would
    # read as "Policies" mid-sentence),
    prose = "\n".join(line for line in body.splitlines() if line.strip(" \t#=*-~^") != heading)
    # nor where a sentence cites the heading ("see Coprocesses below")
    prose = re.sub(re.escape(heading), " ", prose, flags=re.I)
    names = capital_words([prose]) | (evidence.names if evidence is not None else frozenset())
    bound = evidence.bound if evidence is not None else frozenset()
    caps = heading.upper() == heading
    out = []
    for i, w in enumerate(words):
        if (i or caps or article) and w.lower() in _SMALL_WORDS and (caps or not w[1:].isupper()):
            out.append(w.lower())
        elif not _PLAIN_WORD.fullmatch(w) or _in_a_date(words, i):  # code, "(V)", "v1", "27 May"
            out.append(w)
        else:
            out.append("-".join(_word_in_sentence(x, prose, names, caps) for x in w.split("-")))
    if not caps:
        # a name of several capitalized words keeps them all ("General Public License",
        # "Release Notes", "Visual Studio"): a word the corpus capitalizes mostly in such
        # a name keeps the run's words before it ("Release Notes format"; "Windows
        # versions": "Windows" stands alone)
        run: list[int] = []
        for i in range(len(words) + 1):
            w = words[i] if i < len(words) else ""
            if w[:1].isupper() and _PLAIN_WORD.fullmatch(w) and w.lower() not in _SMALL_WORDS:
                run.append(i)
                continue
            last = max((j for j in run if out[j] == words[j] and words[j] in bound), default=-1)
            for j in run:
                if j < last:
                    out[j] = words[j]
            run = []
    return " ".join(out)


_MONTHS = frozenset(
    "January February March April May June July August September October November December".split()
)


def _in_a_date(words: list[str], i: int) -> bool:
    """Word `i` is a month's name beside a number ("(27 May 2020)"): a name."""
    near = words[max(i - 1, 0) : i] + words[i + 1 : i + 2]
    return words[i].strip(",") in _MONTHS and any(any(ch.isdigit() for ch in w) for w in near)


def _word_in_sentence(word: str, prose: str, names: frozenset[str], caps: bool) -> str:
    """A word of a heading as a sentence writes it: a name's capitals ("Memcheck",
    "Cachegrind's"), an acronym's ("GNU", written so in a sentence of `prose`), else in
    lower case. `caps`: the heading is in capitals ("INTEGRATION WITH GIT")."""
    bare = word.rstrip(",;")
    bare = bare[:-2] if bare.endswith("'s") else bare
    if caps:
        if bare in names:
            return word  # "GNU" in a sentence
        named = bare.capitalize()
        return word.capitalize() if named in names else word.lower()
    if not _CAPITALIZED.fullmatch(bare) or bare in names:
        return word
    return word.lower()


# a word of a heading in words (letters, hyphens, an apostrophe, a comma after)
_PLAIN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*,?")
_CAPITALIZED = re.compile(r"[A-Z][a-z]+")
_SMALL_WORDS = frozenset(
    "a an the and or but nor of to for in on at by with from as into via vs per".split()
)
# capitalized words inside a sentence: after a word, a comma or a bracket, maybe quoted;
# a run of them ("the Visual Studio generators", "see Hints and Tips for Helgrind") may
# be a title cited in capitals, so a chunk's own runs are no evidence, the corpus's are
# counted against the words' lower case
_CAPITAL_RUN = re.compile(
    r"(?:(?<=[a-z0-9,;)] )|(?<=[a-z0-9,;)] [\"'`(\[]))([A-Z][a-z]+)(?:'s)?"
    r"(?:(?: (?:and|or|of|for|the|to|in|on|with|a|an))? [A-Z][a-z]+(?:'s)?)*"
)
_LOWER_WORD = re.compile(r"(?<![\w./:-])([a-z]+)(?![\w/-]|[.:]\w)")


# a heading's line: Markdown's, or words in title case ("Building Packages on Windows")
_TITLE_LINE = re.compile(
    r"\s*(?:#|(?:[\W\d]*[A-Z][\w'-]*(?: (?:[A-Z][\w'-]*|and|or|of|for|the|to|in|on|with|a|an"
    r"|from|by|as|at|vs\.?))+[^\w.,;!?]*$))"
)
_IN_SENTENCE = re.compile(r"[,;)]? [a-z]")
_ACRONYM_WORD = re.compile(r"[A-Z]{2,}s?")
# a section cited by a link or a reST role: its capitals are its title's (":ref:`Object
# Kinds`", "[Recoverable errors][]", "[Escape Sequences](#escape-sequences)")
_CITATION = re.compile(r":[a-z]+:`[^`]*`|\[[^\]\n]{1,80}\](?=[\[(])")
# an acronym inside a sentence ("the GNU project")
_ACRONYM = re.compile(r"(?:(?<=[a-z,;)] )|(?<=[a-z,;)] [(\"'`]))[A-Z]{2,}(?=s?[ ,.;)\"'`])")


def _capital_runs(
    text: str, single: bool = False, cited: dict[str, list[str]] | None = None
) -> Iterator[tuple[str, bool]]:
    """The capitalized words and acronyms inside a sentence of `text`, each with whether
    it stands alone (not in a run of capitals: "the Release Notes"); `single`: only a word
    alone (a run may be a title cited: "see Cross Compiling for iOS"). A heading of
    `cited` (by its first word) cited in a sentence is no evidence ("see Coprocesses
    below", "[Recoverable errors][]")."""
    text = _CITATION.sub(" ", text)
    for a in _ACRONYM.findall(text):
        yield a, True
    for m in _CAPITAL_RUN.finditer(text):
        if cited and any(text.startswith(h, m.start()) for h in cited.get(m.group(1), ())):
            continue
        words = [w for w in m.group().split() if w[0].isupper()]
        # alone, a word of a sentence follows ("under Memcheck with"), not a list's next
        # title ("5.6.1. Adding a Column 5.6.2. Removing a Column")
        if not single or (len(words) == 1 and _IN_SENTENCE.match(text, m.end())):
            for w in words:
                yield (w[:-2] if w.endswith("'s") else w), len(words) == 1


# a heading's line in text of any markup: Markdown's, one over an underline (reST), or a
# short line alone between blank lines with no sentence's end (a manual page's subsection)
_UNDERLINE = re.compile(r"[=\-~^\"'`*+#]{3,}\s*")
_SHORT_HEADING = re.compile(r"[A-Z][^.:;,!?]{0,60}[^.:;,!?\s]")


def heading_lines(text: str) -> list[str]:
    """The headings `text` holds, whatever its markup (for `name_words`)."""
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("#"):
            out.append(stripped.lstrip("#").strip())
            continue
        after = lines[i + 1] if i + 1 < len(lines) else ""
        before = lines[i - 1] if i else ""
        if not _SHORT_HEADING.fullmatch(stripped) or len(stripped.split()) > 8:
            continue
        if _UNDERLINE.fullmatch(after) or (not before.strip() and not after.strip()):
            out.append(stripped)
    return [h for h in out if h]


def capital_words(texts: Iterable[str]) -> frozenset[str]:
    """The words the texts capitalize alone inside a sentence (`_capital_runs`)."""
    return frozenset(w for t in texts for w, _ in _capital_runs(t, single=True))


def proper_names(texts: Iterable[str]) -> frozenset[str]:
    """The capitalized words (`[A-Z][a-z]+`) the texts write with their capital inside a
    sentence more often than without it: names ("Windows", "Debian", "Valgrind"),
    not words a title capitalizes ("Policies": "policies" far more often); and the
    acronyms a sentence holds ("GNU")."""
    return name_words(texts)[0]


def name_words(texts: Iterable[str]) -> tuple[frozenset[str], frozenset[str]]:
    """(`proper_names`, those of them capitalized mostly in a run of capitals: a word of a
    name of several, "Notes" of "Release Notes", "Public" of "General Public License")."""
    capital: Counter[str] = Counter()
    alone: Counter[str] = Counter()
    lower: Counter[str] = Counter()
    texts = list(texts)
    # the corpus's headings in sentence case by first word: cited in a sentence, their
    # first word's capital is the heading's ("see [Recoverable errors][]"); a title in
    # title case may be a name ("Sublime Text 2", "Ninja Multi-Config")
    cited: dict[str, list[str]] = defaultdict(list)
    for h in {h for t in texts for h in heading_lines(t)}:
        words = h.split()
        if len(words) > 1 and words[1][:1].islower() and words[1] not in _SMALL_WORDS:
            cited[words[0]].append(h)
    for t in texts:
        t = "\n".join(line for line in t.splitlines() if not _TITLE_LINE.match(line))
        for w, single in _capital_runs(t, cited=cited):
            capital[w] += 1
            alone[w] += single
        lower.update(_LOWER_WORD.findall(t))
    names = frozenset(w for w, n in capital.items() if n > lower[w.lower()])
    return names, frozenset(w for w in names if 2 * alone[w] < capital[w])


# a heading that is a task ("Running your program under Memcheck", "Implementing a
# writable stream", "Measuring how long one round-trip takes"): a gerund and what it acts
# on. A gerund and a noun ("Debugging tips", "Encoding errors") may be a thing, not a task
_TASK_OBJECT = frozenset(
    """a an the your my our its their this that these those how what when which one
    multiple several many some all each""".split()
)
_NOT_GERUND = frozenset(
    "string thing nothing something everything anything during spring ring king warning".split()
)
# an instruction ("Run a workflow preset", "Use the legacy API"): a verb a heading opens
# with, and what it acts on
_INSTRUCTION_VERBS = frozenset(
    """add avoid build call change check choose configure connect create customize debug
    decrease define deploy disable drop enable export extend find generate get handle
    implement import increase install integrate keep limit list load lower make manage
    migrate move pass publish raise read reduce register remove rename replace run save
    select send set share specify start stop switch test track update upgrade use validate
    verify write""".split()
)


# verbs a heading opens with only as an instruction ("Remove Foreign Key Constraints"; not
# "Use cases", "Build events", "Test coverage")
IMPERATIVE_VERBS = frozenset(
    """add avoid choose configure create customize disable enable implement increase install
    migrate remove rename specify upgrade""".split()
)


def is_task(topic: str) -> bool:
    """`topic` (as it reads in a sentence) is a task: a gerund and its object."""
    words = topic.split()
    return len(words) >= 2 and _gerund(words[0]) and words[1] in _TASK_OBJECT


def _gerund(word: str) -> bool:
    return word.endswith("ing") and len(word) > 4 and word.islower() and word not in _NOT_GERUND


def in_words(topic: str) -> bool:
    """`topic` is words, not a name: two or more plain words, one capitalized ("Default
    Values", "Window Functions"; not "Buffer", "git rev-list", "add_custom_command")."""
    words = topic.split()
    return (
        len(words) > 1
        and all(_PLAIN_WORD.fullmatch(w) for w in words)
        and any(w[0].isupper() for w in words)
    )


def is_instruction(topic: str) -> bool:
    """`topic` (as it reads in a sentence) is an instruction: a verb and its object."""
    words = topic.split()
    if len(words) >= 2 and words[0] in IMPERATIVE_VERBS:  # "remove foreign key constraints"
        return True
    return (
        len(words) >= 2
        and words[0] in _INSTRUCTION_VERBS
        # "Increase `work_mem`", "Disable WAL archival"
        and (
            words[1] in _TASK_OBJECT
            or words[1].startswith("`")
            or _ACRONYM_WORD.fullmatch(words[1]) is not None
        )
    )


# a heading that opens with a question word is a clause ("Where uploaded data is stored",
# "When to use `queueMicrotask()`"): asked as "Explain where ...", never "an overview of"
_WH = frozenset("how where why what which when whether".split())
# the verb of a heading that is a sentence ("`QuerySet`s are lazy", "Filters can reference
# fields on the model", "Running `npm install -g yarn` doesn't work")
_AUX = frozenset(
    """is are was were can cannot can't could should must may might will won't does doesn't
    do don't isn't aren't has have hasn't haven't""".split()
)
# no sentence's subject holds these: "Things you can do", "Options that can be set",
# "What we have", "To do", "Encodings supported when ICU is disabled"
_NOT_SUBJECT = frozenset(
    """you we i they he she it that which who whom whose there to for in on with from by
    at as when if where while because unless whether before after until since although
    though once""".split()
)
# a heading that opens with a preposition is a part of the section above it ("Memory
# usage tuning" / "For zlib-based streams"), asked with it
_PREPOSITIONS = frozenset("for on with without in under within via across inside from".split())


def heading_form(topic: str, heading: str = "") -> tuple[str, str]:
    """How a heading in words (as `in_sentence` writes it) is asked, and the words the
    question takes: "claim", a sentence ("`QuerySet`s are lazy": "Is it true that ...?");
    "clause", a question word first ("where uploaded data is stored": "Explain where ...");
    "how", an instruction ("use mixins", from "Using mixins"; "run a workflow preset");
    "task", a gerund and its object ("running your program under Memcheck"); "prep", a
    preposition first ("for x86": the caller puts the heading above it first, when it
    has one; not a title in title case, `heading` as written: "With Statement Context
    Managers"); "the", an article first; "words" otherwise (a name, a thing)."""
    if re.search(r"[\w`)]\.$", topic) and not topic.endswith("etc."):
        topic = topic[:-1]  # a heading written as a sentence: "Set up toolchain paths."
    words = topic.split()
    if len(words) < 2 or ":" in topic:
        return "the" if words[:1] in (["the"], ["a"], ["an"]) else "words", topic
    first = words[0]
    if first in _WH:
        return "clause", topic
    if _is_claim(words):
        return "claim", topic
    if first == "about":  # "About `pip`": of pip
        return heading_form(" ".join(words[1:]), heading.partition(" ")[2])
    if first == "using" and words[1] not in ("and", "or"):  # "Using mixins": how to use them
        return "how", "use " + " ".join(words[1:])
    if is_task(topic) or (_gerund(first) and words[1].startswith("`")):
        return "task", topic  # "calling `django.setup()` first"
    if is_instruction(topic):
        return "how", topic
    if first in _PREPOSITIONS and not _title_case((heading or topic).split()[1:]):
        return "prep", topic  # not "With Statement Context Managers", a title in words
    if first in ("the", "a", "an"):
        return "the", topic
    return "words", topic


def opens_with_preposition(heading: str) -> bool:
    """`heading` opens with a preposition and more words ("For zlib-based streams")."""
    first, _, rest = heading.partition(" ")
    return first.lower() in _PREPOSITIONS and bool(rest.strip())


def _is_claim(words: list[str]) -> bool:
    """`words` are a sentence: a subject of one to six words, then a verb from `_AUX` and
    what follows it."""
    for i, w in enumerate(words[1:7], start=1):
        if w in _AUX:
            subject = words[:i]
            said = " ".join(subject)
            return (
                i + 1 < len(words)
                and not any(x.lower() in _NOT_SUBJECT for x in subject)
                and said.count("(") == said.count(")")  # "(27 may 2020)": no sentence
            )
    return False


def _title_case(words: list[str]) -> bool:
    """Two or more plain words, each a small word or capitalized: a title in title case."""
    plain = [w for w in words if _PLAIN_WORD.fullmatch(w)]
    return (
        len(words) >= 2
        and len(plain) == len(words)
        and all(w[0].isupper() or w in _SMALL_WORDS for w in words)
    )
