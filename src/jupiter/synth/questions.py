"""Question templates shared by every generator: the question, and its extractive answer
taken from the chunk text (sentences and paragraphs, whitespace collapsed, never invented).
"""

from __future__ import annotations

import os.path
import random
import re
import textwrap
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache
from typing import NamedTuple

from jupiter.errors import JupiterError
from jupiter.records import Chunk
from jupiter.synth.docparse import (
    GENERIC_SECTIONS,
    Block,
    Parsed,
    clean,
    fence_lines,
    parse,
    starts_in_code,
)
from jupiter.synth.headings import (
    IMPERATIVE_VERBS,
    heading_form,
    in_sentence,
    in_words,
    name_words,
    opens_with_preposition,
)
from jupiter.synth.parse import (
    ChunkView,
    clip_sentences,
    headings,
    lead,
    parameters,
    prose_paragraphs,
    raw_paragraphs,
    section_intro,
    sentences,
    split_qualified,
    strip_numbering,
    view,
)

# A few paraphrases per template, so a student does not learn one fixed wording.
PHRASES: dict[str, list[str]] = {
    "what_does": [
        "What does `{a}` do?",
        "What is `{a}` used for?",
        "Briefly describe `{a}`.",
        "Can you explain what `{a}` does?",
        "What is the purpose of `{a}`?",
    ],
    "what_does_module": [
        "What is the `{a}` module for?",
        "What does the `{a}` module provide?",
        "Describe the `{a}` module.",
        "What is `{a}` used for?",
    ],
    "arguments": [
        "Which arguments does `{a}` take?",
        "What parameters does `{a}` accept?",
        "What are the arguments of `{a}`?",
        "What can I pass to `{a}`?",
    ],
    "returns": [
        "What does `{a}` return?",
        "What is the return value of `{a}`?",
        "What do I get back from `{a}`?",
    ],
    "difference": [
        "What is the difference between `{a}` and `{b}`?",
        "How does `{a}` differ from `{b}`?",
        "Compare `{a}` and `{b}`.",
        "Should I use `{a}` or `{b}`?",
    ],
    "signature": [
        "What is the signature of `{a}`?",
        "Show the call signature of `{a}`.",
        "How is `{a}` declared?",
    ],
    # a declaration that is no call: a property, a field, an enum case
    "declaration": [
        "How is `{a}` declared?",
        "What is the declaration of `{a}`?",
    ],
    # a setting of a format a JSON Schema describes: its type phrase
    "setting_type": [
        "What type of value does `{a}` take?",
        "What kind of value goes in `{a}`?",
        "What can `{a}` be set to?",
    ],
    # headings are often plural ("Classes"): these read right either way
    "explain_topic": [
        "Explain {a} in Python.",
        "Describe {a} in Python.",
        "What should I know about {a} in Python?",
        "Give an overview of {a} in Python.",
    ],
    "explain_doc": [
        "Explain {a}.",
        "What does the documentation say about {a}?",
        "Give an overview of {a}.",
        "Describe {a}.",
    ],
    # for a heading with an article ('the "for" statement'), "what is" reads right too
    "explain_topic_the": [
        "Explain {a} in Python.",
        "What is {a} in Python?",
        "How does {a} work in Python?",
        "Describe {a} in Python.",
    ],
    "explain_doc_the": [
        "What is {a}?",
        "Explain {a}.",
        "How does {a} work?",
        "What does the documentation say about {a}?",
    ],
    # a heading that is an instruction ("Run a workflow preset")
    "explain_doc_how": ["How do I {a}?", "What are the steps to {a}?", "Explain how to {a}."],
    # a heading that is a sentence ("`QuerySet`s are lazy")
    "explain_doc_claim": [
        "Is it true that {a}?",
        "What does it mean that {a}?",
        "Explain the statement that {a}.",
    ],
    # a heading that is a clause ("Where uploaded data is stored", "When to use X")
    "explain_doc_clause": [
        "Explain {a}.",
        "Describe {a}.",
        "What does the documentation say about {a}?",
    ],
    # a heading that opens with a preposition, with no heading above it ("For x86")
    "explain_doc_prep": ["What does the documentation say {a}?"],
    # a heading that is a task ("Running your program under Memcheck")
    "explain_doc_task": [
        "How do I go about {a}?",
        "Explain {a}.",
        "What does the documentation say about {a}?",
        "What is involved in {a}?",
    ],
    # a heading that asks a question ("What does a field class do?"), with its document
    "heading_question": ["In the {s} documentation: {h}", "From the {s} docs: {h}"],
    # a part every document of a kind has (a proposal's "Motivation", an RFC's "Security
    # Considerations"): asked of its document, not as a topic of its own
    "explain_doc_part": [
        "Describe the {h} of {s}.",
        "Explain the {h} of {s}.",
        "What does {s} say about its {h}?",
    ],
    # documentation of anything: a subject's description, options, keywords, terms
    "about_subject": [
        "What is `{a}`?",
        "What does `{a}` do?",
        "What is `{a}` for?",
        "Describe `{a}`.",
    ],
    "option": [
        "What does the `{t}` option of `{s}` do?",
        "What is `{t}` for in `{s}`?",
        "What happens when I pass `{t}` to `{s}`?",
        "Explain the `{t}` option of `{s}`.",
    ],
    "option_bare": ["What does the `{t}` option do?", "What is the `{t}` option for?"],
    # an option's type (an Ansible module's `dest: path, required`)
    "option_type": [
        "What type of value does the `{t}` option of `{s}` take?",
        "What kind of value goes in the `{t}` option of `{s}`?",
    ],
    # a field's type (a GraphQL field that takes no arguments: `state: MigrationState!`)
    "field_type": [
        "What type is `{a}`?",
        "What is the type of `{a}`?",
        "What type of value does `{a}` hold?",
    ],
    # a parameter of a class, a defined type, a function or a task (Puppet's)
    "parameter": [
        "What does the `{t}` parameter of `{s}` do?",
        "What is `{t}` for in `{s}`?",
        "What happens when I set `{t}` on `{s}`?",
        "Explain the `{t}` parameter of `{s}`.",
    ],
    "parameter_type": [
        "What type of value does the `{t}` parameter of `{s}` take?",
        "What kind of value goes in the `{t}` parameter of `{s}`?",
    ],
    # a setting of a configuration file (redis.conf's `maxmemory-policy`)
    # a field of a Kubernetes custom resource (collect/crd.py): `spec.dnsNames` of `Certificate`
    "resource_field": [
        "What does the `{t}` field of `{s}` do?",
        "What is `{t}` for in `{s}`?",
        "What happens when I set `{t}` in `{s}`?",
        "Explain the `{t}` field of the `{s}` resource.",
    ],
    "resource_field_type": [
        "What type of value does `{t}` take in `{s}`?",
        "What can the `{t}` field of `{s}` be set to?",
    ],
    "setting": [
        "What does the `{t}` setting in `{s}` do?",
        "What is `{t}` for in `{s}`?",
        "What happens when I set `{t}` in `{s}`?",
        "Explain the `{t}` setting of `{s}`.",
    ],
    # a Terraform module's input variable and output
    "variable": [
        "What does the `{t}` variable of the `{s}` module set?",
        "What is the `{t}` input of `{s}` for?",
        "What happens when I set `{t}` on the `{s}` module?",
    ],
    "variable_type": [
        "What type of value does the `{t}` variable of `{s}` take?",
        "What kind of value goes in the `{t}` input of `{s}`?",
    ],
    "output": [
        "What does the `{t}` output of the `{s}` module give?",
        "What is the `{t}` output of `{s}`?",
    ],
    # an option a Nix module declares (`programs.git.enable`), and its default
    "nix_option": [
        "What does the `{a}` option do?",
        "What is `{a}` for?",
        "What happens when I set `{a}`?",
    ],
    "option_default": [
        "What is the default value of `{a}`?",
        "What is `{a}` set to by default?",
    ],
    # a default the documentation or the code states (never a bare undef)
    "default": [
        "What is the default of `{t}` in `{s}`?",
        "What value does `{t}` take in `{s}` when I leave it out?",
    ],
    # a value a module or plugin returns (Ansible's RETURN)
    "return_value": [
        "What is `{t}` in what `{s}` returns?",
        "What does `{s}` return as `{t}`?",
        "What is the `{t}` return value of `{s}`?",
    ],
    "keyword": [
        "What does `{t}` do in `{s}`?",
        "What is `{t}` for in `{s}`?",
        "Explain `{t}` in `{s}`.",
        "What does `{t}` mean for `{s}`?",
    ],
    "keyword_bare": ["What does `{t}` do?", "What is `{t}` for?", "Explain `{t}`."],
    # a letter or two (a glob flag `l`, a format's `%d`) named with the section that lists
    # it: `l` alone, in all of a page, could be any of its lists' `l`
    "keyword_under": [
        "What does `{t}` do, under {h} in {s}?",
        "In {s}, under {h}, what is `{t}` for?",
        "Explain `{t}` under {h} ({s}).",
    ],
    "keyword_under_bare": ["What does `{t}` do, under {h}?", "Explain `{t}` under {h}."],
    "param": [
        "What is the `{t}` parameter of `{s}`?",
        "What should I pass as `{t}` to `{s}`?",
        "What does the `{t}` argument of `{s}` mean?",
    ],
    "term": ["What is {t}?", "Define {t}.", "What does {t} mean?", "What is meant by {t}?"],
    "term_in": ["What is {t} in {s}?", "What does {t} mean in {s}?", "Define {t} ({s})."],
    "example": [
        "Show an example of {a}.",
        "Give an example of using {a}.",
        "How is {a} used? Show an example.",
    ],
    # code under a heading in words: a thing ("push streams on the client") is shown, not
    # used; a task ("modifying the default TLS cipher suite") is done
    "example_words": [
        "Show an example of {a}.",
        "Give an example of {a}.",
        "What example does the documentation give of {a}?",
    ],
    "example_how": [
        "Show an example of how to {a}.",
        "How do I {a}? Show an example.",
        "Give an example of how to {a}.",
    ],
    "example_task": [
        "Show an example of {a}.",
        "How do I go about {a}? Show an example.",
        "Give an example of {a}.",
    ],
    "example_claim": ["Give an example showing that {a}.", "Show an example where {a}."],
    "example_prep": ["Show an example {a}.", "What example does the documentation give {a}?"],
    # code under a section named by plain words ("Basic use", "Loops"), asked of its document
    "example_part": [
        "Show an example of the {h} of {s}.",
        "What example does {s} give of its {h}?",
        "Give an example from the {h} of {s}.",
    ],
    "cloze": [
        "Fill in the blank ({a}): {q}",
        "Complete this statement about {a}: {q}",
        "What goes in the blank? ({a}) {q}",
    ],
}

MIN_ANSWER_WORDS = 3  # an answer shorter than this is trivial ("Return.")
MAX_PARAM_NOTES = 8  # per-parameter descriptions in an "arguments" answer
SIMILARITY = 0.6  # name similarity for "difference" pairs: dump/dumps .89, abspath/realpath .67
MIN_AFFIX = 3  # and a shared prefix or suffix this long: abspath/realpath yes, splice/replace no
# "Return ..." opening a sentence, or "returns" early in it (its subject is then the API
# itself: "This function returns ..."); a later "returns" is usually about something else.
_RETURN = re.compile(r"^(?:Returns?\b|(?:\S+\s+){0,4}returns\b)")


@dataclass(frozen=True)
class Question:
    """A templated question about one chunk, with its extractive answer when there is one,
    and the span of the chunk text the answer quotes (offsets into chunk.text)."""

    template: str
    question: str
    answer: str | None
    chunk_id: str
    span: tuple[int, int] | None = None


# what a section says in many documents is boilerplate (a CLI's flags every page lists,
# a README template's checklist), asked once: its words (a checkbox's "[x]" or "[ ]", a
# line's wrapping no difference), six at a time, half of them sampled, in three
# documents or more
_BOILERPLATE_DOCS = 3
_SHINGLE = 6
_BOILERPLATE_TEMPLATES = frozenset({"explain_topic", "example"})


def _shingles(text: str) -> set[int]:
    words = re.findall(r"[a-z0-9]{2,}", text.lower())
    out = set()
    for i in range(len(words) - _SHINGLE + 1):
        h = zlib.crc32(" ".join(words[i : i + _SHINGLE]).encode())
        if h % 2 == 0:
            out.add(h)
    return out


def boilerplate_shingles(chunks: Sequence[Chunk]) -> frozenset[int]:
    """The shingles (`_shingles`) three documents or more hold."""
    first: dict[int, str] = {}
    second: dict[int, str] = {}
    shared: set[int] = set()
    for c in chunks:
        for h in _shingles(c.text):
            if (
                first.setdefault(h, c.doc_id) != c.doc_id
                and second.setdefault(h, c.doc_id) != c.doc_id
            ):
                shared.add(h)
    return frozenset(shared)


class Catalog:
    """What the questions of one chunk need from the whole corpus: API summaries by
    qualified name, to pair siblings for "difference" questions, and the names its text
    writes with a capital inside a sentence ("Windows", "Debian", "Valgrind"), which a
    heading keeps inside a question."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self.names, self.bound = name_words(c.text for c in chunks)
        self.boilerplate = boilerplate_shingles(chunks)
        self._kept: dict[str, str] = {}  # a boilerplate section's heading -> its document
        self.summary: dict[str, str] = {}
        self.members: dict[str, list[str]] = defaultdict(list)
        for c in chunks:
            v = view(c)
            if v.kind != "api" or not v.is_head or v.is_module or not split_qualified(v.name)[0]:
                continue
            if _member(v) is not None:  # an option, a parameter, a setting: no alternative
                continue
            s = clean(lead(v.body))
            if _nontrivial(s) and v.name not in self.summary:
                self.summary[v.name] = s
                self.members[split_qualified(v.name)[0]].append(v.name)
        self._partner: dict[str, str | None] = {}

    def keeps(self, question: Question, chunk: Chunk, start: ChunkStart | None = None) -> bool:
        """False for an explanation or an example that is boilerplate, a section of the
        same heading saying the same in three documents or more (`boilerplate_shingles`:
        "GCLOUD WIDE FLAGS: These flags are available to all commands: ...", a README
        template's checklist), in any document but the first that asked it. A text many
        documents share under their own names (CMake's `CXX_EXTENSIONS` and
        `OBJCXX_EXTENSIONS`) is each one's."""
        if question.template not in _BOILERPLATE_TEMPLATES or not question.answer:
            return True
        grams = _shingles(question.answer)
        shared = grams & self.boilerplate
        if len(grams) < 2 or len(shared) < 0.8 * len(grams) or question.span is None:
            return True
        p = _doc(view(chunk, *(start or ChunkStart())))
        at = question.span[0]
        block = next((b for b in p.blocks if b.start <= at < b.end), None) if p else None
        if block is None or not block.section:
            return True
        heading = block.section.strip().lower()
        return self._kept.setdefault(heading, chunk.doc_id) == chunk.doc_id

    def partner(self, name: str) -> str | None:
        """The most similarly named sibling in the same module or class, if similar enough."""
        if name in self._partner:
            return self._partner[name]
        if name not in self.summary:
            return None
        parent, short = split_qualified(name)
        best, best_score = None, SIMILARITY
        for other in sorted(self.members[parent]):
            if other == name or self.summary[other] == self.summary[name]:
                continue
            other_short = split_qualified(other)[1]
            score = SequenceMatcher(None, short, other_short).ratio()
            if score > best_score and _shared_affix(short, other_short) >= MIN_AFFIX:
                best, best_score = other, score
        self._partner[name] = best
        return best


def _shared_affix(a: str, b: str) -> int:
    """Length of the longer of the common prefix and the common suffix."""
    prefix = len(os.path.commonprefix([a, b]))
    suffix = len(os.path.commonprefix([a[::-1], b[::-1]]))
    return max(prefix, suffix)


def shown(name: str) -> str:
    """The name as people write it: `len`, `str.join`, not `builtins.len`."""
    return name.removeprefix("builtins.")


def _nontrivial(answer: str) -> bool:
    return len(answer.split()) >= MIN_ANSWER_WORDS and len(answer) >= 15


# ----------------------------------------------------------------------------- templates
# Each returns candidates as (phrase key, format arguments, answer[, span in the chunk]).
Candidate = tuple[str, dict[str, str], str] | tuple[str, dict[str, str], str, tuple[int, int]]


def _what_does(v: ChunkView, catalog: Catalog | None) -> list[Candidate]:
    if v.kind != "api" or not v.is_head:
        return []
    summary = clean(lead(v.body))
    if not _nontrivial(summary):
        return []
    member = _member(v)
    if member is not None:  # an option, a return value, a parameter: asked of its owner
        key, args = member
        return [(key, args, summary)]
    key = "what_does_module" if v.is_module else "what_does"
    return [(key, {"a": shown(v.name)}, summary)]


# a Puppet parameter's `<owner>:<name>` (the owner's `::` apart), a task's `task/<name>`
_PUPPET_MEMBER = re.compile(r"^(?:task/)?(?P<s>.*[^:]):(?P<t>[^:]+)$")


# a Terraform variable's `<module>:var.<name>`, an output's `<module>:output.<name>`
_TF_MEMBER = re.compile(r"^(?P<s>.+):(?P<kind>var|output)\.(?P<t>[\w-]+)$")


# a Nix option's first line, its path and type: `programs.git.signing.key: null or string`
_NIX_OPTION = re.compile(r"^(?P<path>[^\s:]+): (?P<type>.+)$")


def _member(v: ChunkView) -> tuple[str, dict[str, str]] | None:
    """A member's phrase key and names (`t` the member, `s` its owner): an Ansible module's
    option (`ansible.builtin.copy:dest`) or return value (`...:return.dest`), a Puppet
    parameter (`ntp:servers`, `apache::vhost:docroot`); None for anything else."""
    if v.language == "ansible" and ":" in v.name:
        plugin, _, member = v.name.partition(":")
        if member.startswith("return."):
            return "return_value", {"t": member.removeprefix("return."), "s": plugin}
        return "option", {"t": member, "s": plugin}
    if v.language == "puppet" and (m := _PUPPET_MEMBER.match(v.name)):
        return "parameter", {"t": m["t"], "s": m["s"]}
    if v.language == "terraform" and (m := _TF_MEMBER.match(v.name)):
        return "variable" if m["kind"] == "var" else "output", {"t": m["t"], "s": m["s"]}
    if v.language == "nix" and _NIX_OPTION.match(v.signature):  # `programs.git.enable: ...`
        return "nix_option", {"a": v.name}
    if v.language == "config" and ":" in v.name:  # `redis.conf:maxmemory-policy`
        file, _, key = v.name.partition(":")
        return "setting", {"t": key, "s": file}
    if v.language == "crd" and ":" in v.name:  # `cert-manager.io/Certificate:spec.dnsNames`
        resource, _, path = v.name.partition(":")
        return "resource_field", {"t": path, "s": resource.rpartition("/")[2]}
    return None


# a "sentence" that is a list collapsed to one line ("* ``black`` * ``red``"), or a Sphinx
# directive's line (".. versionchanged:: 8.0 All ``kwargs`` are ..."), another field's line
# (":returns: `internal`" names a type, not the parameter `internal`)
_NOT_A_NOTE = re.compile(r"^(?:[*+-]\s|\.\.\s|[\w-]+::|:\w+(?:\s[^:]*)?:\s)")


def _api_fields(body: str, kind: str, term: str = "") -> str:
    """The text of a docstring's field (":param x:" over its indented lines, a Google-style
    "Args:" entry, ":returns:"), cleaned of markup; "" when it has none."""
    for b in _parsed(body, "", True, "", False).blocks:
        if b.kind == "definition" and b.def_kind == kind and (not term or b.term == term):
            return b.text
    return ""


def _param_note(param: str, body: str, used: set[str]) -> str:
    """The parameter's own field in the docstring (":param x: ..."), else the first
    sentence that names `param` in markup, or a `param: text` definition line."""
    field = _api_fields(body, "param", param)
    if field and field not in used:
        return field
    p = re.escape(param)
    # a reader's `Parameters:` list item, "- `encoding`: Closure used to ..." (Swift, Puppet)
    item = re.search(
        rf"(?m)^-[ \t]+`{p}`(?:[ \t]*\([^)\n]*\))?:[ \t]+(\S.*(?:\n[ \t]+\S.*)*)", body
    )
    if item and clean(item.group(1)) not in used:
        return clean(item.group(1))
    marked = re.compile(rf"(``|`|\*){p}(``|`|\*|\()")
    if param.startswith("{"):  # Vim's `{expr}`: its braces are the markup
        marked = re.compile(rf"(){p}()")
        # Neovim's `Parameters:` lines, `{buffer}: Buffer handle`, say it first
        listed = re.search(rf"(?m)^{p}:[ \t]+(\S.*(?:\n[ \t]+\S.*)*)", body)
        if listed and clean(listed.group(1)) not in used:
            return clean(listed.group(1))
    candidates = [
        s for para in prose_paragraphs(body) for s in sentences(para) if not _NOT_A_NOTE.match(s)
    ]
    # first a sentence that opens with the parameter (it is the subject), then any mention
    for early in (True, False):
        for s in candidates:
            m = marked.search(s)
            if clean(s) not in used and m is not None and (not early or m.start() < 12):
                return clean(s)
    definition = re.compile(rf"^\s*(?::param\s+(?:\w+\s+)?)?\**{p}\s*(?:\([^)]*\))?\s*:\s*\S")
    for block in raw_paragraphs(body):
        for line in block.splitlines():
            m = definition.match(line)
            # the text after the name (the answer says the name): ":param type: A `GType`"
            said = clean(line[m.end() - 1 :]) if m is not None else ""
            if said and said not in used:
                return said
    return ""


def _arguments(v: ChunkView, catalog: Catalog | None) -> list[Candidate]:
    params = parameters(v.signature, v.language)
    if v.kind != "api" or not params:
        return []
    listing = ", ".join(p.text for p in params)
    noun = "argument" if len(params) == 1 else "arguments"
    answer = f"`{shown(v.name)}` takes {len(params)} {noun}: {listing}."
    kw_only = [p.name for p in params if p.keyword_only]
    if kw_only:
        answer += f" Keyword-only: {', '.join(kw_only)}."
    used: set[str] = set()
    notes: list[str] = []
    for p in params:
        note = _param_note(p.name, v.body, used)
        if note and len(notes) < MAX_PARAM_NOTES:
            used.add(note)
            notes.append(f"- {p.name}: {note}")
    if notes:
        answer += "\n\n" + "\n".join(notes)
    return [("arguments", {"a": shown(v.name)}, answer)]


def _returns(v: ChunkView, catalog: Catalog | None) -> list[Candidate]:
    if v.kind != "api" or _a_setting(v):  # a setting returns nothing ("Return value if the
        return []  # key is not in the ini file." is what an option is for)
    if v.language == "graphql" and "(" not in v.signature:  # a field with no arguments: its
        return []  # type (asked as such), not a result
    found = [s for p in prose_paragraphs(v.body) for s in sentences(p) if _RETURN.search(s)]
    field = _api_fields(v.body, "returns")  # ":returns: ..." says it where there is one
    answer = field if _nontrivial(field) else clean(" ".join(found[:2]))
    return [("returns", {"a": shown(v.name)}, answer)] if _nontrivial(answer) else []


def _a_setting(v: ChunkView) -> bool:
    """A format's setting (JSON Schema, XML Schema) or a module's option or return value
    (Ansible)."""
    return (
        v.language in ("jsonschema", "xsd", "config", "crd")
        or (v.language == "nix" and _NIX_OPTION.match(v.signature) is not None)
        or (v.language in ("ansible", "puppet", "terraform") and _member(v) is not None)
    )


def _difference(v: ChunkView, catalog: Catalog | None) -> list[Candidate]:
    if v.kind != "api" or not v.is_head or catalog is None:
        return []
    other = catalog.partner(v.name)  # a member (an option, a parameter) has none
    if other is None:
        return []
    # a mutual pair is asked once, from the alphabetically first side
    if catalog.partner(other) == v.name and other < v.name:
        return []
    a, b = shown(v.name), shown(other)
    answer = f"`{a}`: {catalog.summary[v.name]}\n\n`{b}`: {catalog.summary[other]}"
    return [("difference", {"a": a, "b": b}, answer)]


# a setting's type that says little alone: a section's (its settings say more), a bare
# primitive; a union, an enum's values, a format or an array's items say something
_BARE_TYPES = frozenset(
    {"object", "any", "array", "string", "integer", "number", "boolean"}  # JSON Schema's
    | {"str", "bool", "int", "float", "dict", "list", "raw", "path", "json"}  # Ansible's
    | {"String", "Int", "Float", "Boolean", "ID"}  # GraphQL's
    | {"Any", "Integer", "Hash", "Array", "Optional[String]", "Optional[Boolean]"}  # Puppet's
)


def _telling(typ: str) -> bool:
    """Whether a type phrase says more than its type's name: not a bare primitive
    (`string`, `str`, `String!`), nor only how often a value comes or that it holds
    elements (an XML Schema's `string (optional)`, `beanType (element)`, `integer, 0..1`)."""
    core = re.sub(r"\s*\((?:optional|required)\)|,\s*\d+\.\.[\d*]+", "", typ).rstrip("!")
    made_of = re.search(r"(?:^|\()(?:element|empty)\)?$", core)
    return bool(typ) and typ not in _BARE_TYPES and core not in _BARE_TYPES and not made_of


def _signature(v: ChunkView, catalog: Catalog | None) -> list[Candidate]:
    owner = _member(v)
    if v.language == "config":  # a setting's default, where its file states one
        stated = re.search(r"^Default: (.+)$", v.body, re.M)
        if owner is None or stated is None or not stated[1].strip("'\" `"):
            return []
        return [("default", owner[1], f"`{stated[1].strip().strip('`')}`")]
    if v.kind != "api" or not v.signature:
        return []
    if v.language == "ansible":  # an option's `path, required`; a return value's: none
        if owner is None or owner[0] != "option" or not _telling(v.signature):
            return []
        return [("option_type", owner[1], f"`{v.signature}`")]
    # a setting's `jobs.<name>.runs-on: string | object`; a GraphQL field's with no
    # arguments, `state: MigrationState!` (an enum value's `State.OPEN`: none)
    if v.language in ("jsonschema", "xsd", "crd") or (
        v.language == "graphql" and "(" not in v.signature
    ):
        typ = v.signature.partition(": ")[2]
        if not _telling(typ):
            return []
        if owner is not None and v.language == "crd":
            return [("resource_field_type", owner[1], f"`{typ}`")]
        key = "field_type" if v.language == "graphql" else "setting_type"
        return [(key, {"a": shown(v.name)}, f"`{typ}`")]
    if v.language == "puppet":
        return _puppet_signature(v)
    if v.language == "terraform":
        return _terraform_signature(v)
    if v.language == "nix":
        return _nix_signature(v)
    if v.language in ("proto", "ocaml", "graphql", "solidity", "swift", "dart"):  # as written
        # a field, a case, a constant (`static let value = Empty()`): no call to sign
        key = "signature" if "(" in v.signature.split(" = ", 1)[0] else "declaration"
        return [(key, {"a": shown(v.name)}, f"`{v.signature}`")]
    if v.language in ("clojure", "elisp", "vim"):  # each arity or syntax line as written
        lines = v.signature.split("\n")
        if v.language == "vim" and not any(re.search(r"[\[{(]", s) for s in lines):
            return []  # a help entry's syntax lines, when they take any
        return [("signature", {"a": shown(v.name)}, " or ".join(f"`{s}`" for s in lines))]
    # a call is written without ExDoc's `/arity` (Enum.join/2 is called `Enum.join(...)`)
    called = re.sub(r"/\d+$", "", shown(v.name)) if v.language == "elixir" else shown(v.name)
    return [("signature", {"a": shown(v.name)}, f"`{called}{v.signature}`")]


# a Puppet parameter's line: `Optional[String] $config_dir = undef`
_PUPPET_PARAM = re.compile(r"^(?P<type>.*?)\s*\*?\$\w+(?:\s*=\s*(?P<default>.+))?$")


def _puppet_signature(v: ChunkView) -> list[Candidate]:
    """A Puppet parameter's type (when it says more than a bare type) and default (when one
    is written and is no `undef` or another variable's value); a function's, a plan's or a
    type alias's declaration as written."""
    member = _member(v)
    if member is None:
        return [("signature", {"a": shown(v.name).removeprefix("task/")}, f"`{v.signature}`")]
    m = _PUPPET_PARAM.match(v.signature)
    if m is None:
        return []
    args = member[1]
    out: list[Candidate] = []
    if m["type"] and _telling(m["type"]):
        out.append(("parameter_type", args, f"`{m['type']}`"))
    default = (m["default"] or "").strip()
    if default and default not in ("undef", "''", '""', "[]", "{}") and not default.startswith("$"):
        out.append(("default", args, f"`{default}`"))
    return out


# a Terraform variable's first line: `variable "cidr": string = "10.0.0.0/16"`
_TF_VARIABLE = re.compile(r'^variable "[^"]+": (?P<type>.+?)(?: = (?P<default>.+)| \(required\))?$')


def _terraform_signature(v: ChunkView) -> list[Candidate]:
    """A Terraform variable's type (when it says more than a bare type) and its default
    (when it is one: no `null`, nor an empty string, list or map)."""
    member, m = _member(v), _TF_VARIABLE.match(v.signature)
    if member is None or m is None:
        return []
    out: list[Candidate] = []
    if _telling(m["type"]) and m["type"] not in ("number", "bool"):
        out.append(("variable_type", member[1], f"`{m['type']}`"))
    if m["default"] and m["default"] not in ("null", "{}", "[]", '""'):
        out.append(("default", member[1], f"`{m['default']}`"))
    return out


def _nix_signature(v: ChunkView) -> list[Candidate]:
    """A Nix option's type (when it says more than a bare type) and its stated default
    (no `null`, nor an empty string, list or set); a library function's type."""
    m = _NIX_OPTION.match(v.signature)
    if m is None:
        return [("signature", {"a": v.name}, f"`{v.signature}`")] if v.signature else []
    out: list[Candidate] = []
    if _telling(m["type"]) and m["type"] not in ("boolean", "package", "path", "lines"):
        out.append(("setting_type", {"a": v.name}, f"`{m['type']}`"))
    stated = re.search(r"^Default: `([^`\n]+)`$", v.body, re.M)
    if stated and stated[1] not in ("null", "{ }", "[ ]", "{}", "[]", '""'):
        out.append(("option_default", {"a": v.name}, f"`{stated[1]}`"))
    return out


def _explain_topic(v: ChunkView, catalog: Catalog | None) -> list[Candidate]:
    if v.kind == "api":
        return []
    if v.kind == "doc":
        return _explain_doc(v, catalog)
    key = "explain_topic" if v.kind == "topic" else "explain_doc"
    out: list[Candidate] = []
    marks = headings(v.body)
    for i, (heading, offset) in enumerate(marks):
        end = marks[i + 1][1] if i + 1 < len(marks) else len(v.body)
        answer = section_intro(v.body[offset:end])
        if _nontrivial(answer) and len(answer) >= 40:
            subject = in_sentence(heading, v.body, catalog, (v.name,))
            phrases = f"{key}_the" if subject.startswith(("the ", "a ", "an ")) else key
            out.append((phrases, {"a": subject}, answer))
    return out


def make_questions(
    chunk: Chunk,
    templates: Sequence[str],
    max_per_chunk: int,
    rng: random.Random,
    catalog: Catalog | None = None,
    start: ChunkStart | None = None,
) -> list[Question]:
    """Up to `max_per_chunk` questions about `chunk`, one template at a time in an order
    drawn from `rng`, so a corpus gets every template and not only the first few listed.

    `catalog` (built from the chunks at hand) supplies siblings for "difference";
    `start` is where the chunk starts in its document's structure (`chunk_starts`).
    """
    unknown = [t for t in templates if t not in TEMPLATES]
    if unknown:
        raise JupiterError(
            f"unknown generator template '{unknown[0]}' in generator.templates; "
            f"known templates: {', '.join(TEMPLATES)}"
        )
    order = list(dict.fromkeys(templates))
    rng.shuffle(order)
    v = view(chunk, *(start or ChunkStart()))
    per_template = [(t, TEMPLATES[t](v, catalog)) for t in order]
    out: list[Question] = []
    depth = 0
    while len(out) < max_per_chunk and any(depth < len(c) for _, c in per_template):
        for template, cands in per_template:
            if depth < len(cands) and len(out) < max_per_chunk:
                key, args, answer, *span = cands[depth]
                text = rng.choice(PHRASES[key]).format(**args)
                out.append(Question(template, text, answer, chunk.id, span[0] if span else None))
        depth += 1
    return out


def chunk_rng(seed: int, chunk: Chunk) -> random.Random:
    """One rng per chunk, so a chunk's questions do not depend on which chunks came before
    (a resumed or limited run asks the same questions). String seeds are hashed stably."""
    return random.Random(f"{seed}:{chunk.id}")


def iter_questions(
    chunks: Sequence[Chunk], templates: Sequence[str], max_per_chunk: int, seed: int
) -> Iterator[tuple[Chunk, list[Question]]]:
    """(chunk, its questions) for every train-split chunk, in the order given.

    Held-out chunks measure bits-per-byte and must not leak into training data, so they are
    skipped, and also left out of the sibling catalog. A section many documents share is
    asked in the first of them only (`Catalog.keeps`).
    """
    train = [c for c in chunks if c.split == "train"]
    catalog = Catalog(train)
    for c, start in with_starts(train):
        qs = make_questions(c, templates, max_per_chunk, chunk_rng(seed, c), catalog, start)
        yield c, [q for q in qs if catalog.keeps(q, c, start)]


def with_starts(chunks: Sequence[Chunk]) -> Iterator[tuple[Chunk, ChunkStart | None]]:
    """Each chunk, in the order given, with where it starts (`chunk_starts`), worked out a
    document at a time when its first chunk comes up: the chunks' parses made to find the
    headings are still in `_parsed`'s cache when the questions are asked (a document's
    chunks come together), so a chunk is parsed once, not twice."""
    by_doc: dict[str, list[Chunk]] = defaultdict(list)
    for c in chunks:
        by_doc[c.doc_id].append(c)
    starts: dict[str, ChunkStart] = {}
    done: set[str] = set()
    for c in chunks:
        if c.doc_id not in done:
            done.add(c.doc_id)
            starts.update(chunk_starts(by_doc[c.doc_id]))
        yield c, starts.get(c.id)


class ChunkStart(NamedTuple):
    """Where a document chunk starts in its document's structure."""

    section: str = ""  # the heading in force ("" before the first one)
    in_code: bool = False  # inside a fenced code block
    program: str = ""  # the program a `.. program::` directive before it named
    # the commands whose synopses it starts indented under: (indent, command), outermost first
    owners: tuple[tuple[int, str], ...] = ()
    # its document's subject as the document's first chunk read it: a manual page's NAME
    # line ("gcloud access-approval settings delete", not its file's name), a version's
    # page its first heading
    subject: str = ""


def document_subject(head: Chunk) -> str:
    """What a document is about, as its first chunk reads it: a manual page's NAME line
    ("gcloud access-approval settings delete"), a version's page its first heading; an
    API's document its name; the title's subject otherwise."""
    v = view(head)
    if v.kind != "doc" or head.start != 0:
        return head.title
    return _parsed(head.text, head.title, True, "", False).subject or head.title


def chunk_starts(chunks: Sequence[Chunk]) -> dict[str, ChunkStart]:
    """By chunk id, where each document chunk starts, read from the chunks at hand of
    the same document (they overlap, so together they hold all the text before it): a
    chunk cut inside the section of `fs.readdir()` asks about `fs.readdir()`'s options,
    not about its document's, and one cut inside a code block reads from its closing fence
    on rather than taking the code for prose. A chunk whose predecessors are absent (held
    out) starts in no section, inside code or not as its own text reads
    (`docparse.starts_in_code`). Docstring chunks name their API already."""
    by_doc: dict[str, list[Chunk]] = defaultdict(list)
    for c in chunks:
        if view(c).kind == "doc":
            by_doc[c.doc_id].append(c)
    out: dict[str, ChunkStart] = {}
    for doc_chunks in by_doc.values():
        doc_chunks.sort(key=lambda c: c.start)
        heads: dict[int, str] = {}  # a heading's place in the document -> its text
        fences: set[int] = set()  # where the document's fence lines start
        programs: dict[int, str] = {}  # a `.. program::` directive's place -> its name
        owned: set[tuple[int, int, int, str]] = set()  # a synopsis's lines: where, whose
        subject = ""  # as the document's first chunk reads it
        prev: Chunk | None = None
        counted, from_code = 0, False  # fences are counted from here, code there or not
        heads_from = 0  # headings are known from here
        for c in doc_chunks:
            whole_first_line = _starts_line(c, prev)
            if c.start and (prev is None or c.start - prev.end > _HOLE):
                # the chunks before it are absent (held out). A heading there would end the
                # section seen last: where the document's headings so far (its title at 0
                # aside) come as often as one in a gap this long, more likely than not, the
                # chunk starts in none
                counted = -1
                gap = c.start - (prev.end if prev is not None else 0)
                sections = sum(1 for p in heads if p > 0)
                if prev is None or sections * gap >= _LIKELY * prev.end:
                    heads_from = c.start
            if counted < 0 and fence_lines(c.text, whole_first_line):
                # whether it starts inside code is read from its own text, at the first
                # chunk after the gap with a fence line (one without reads as prose)
                counted, from_code = c.start, starts_in_code(c.text, whole_first_line)
            prev = c
            before = [p for p in heads if heads_from <= p < c.start]
            in_code = (
                counted >= 0 and (from_code + sum(counted <= p < c.start for p in fences)) % 2 == 1
            )
            named = [p for p in programs if p < c.start]
            owners = tuple((ind, who) for a, b, ind, who in sorted(owned) if a < c.start < b)
            start = ChunkStart(
                heads[max(before)] if before else "",
                in_code,
                programs[max(named)] if named else "",
                owners,
                subject,
            )
            out[c.id] = start
            fences.update(c.start + p for p in fence_lines(c.text, whole_first_line))
            parsed = _parsed(c.text, c.title, c.start == 0, *start)
            if c.start == 0:
                subject = parsed.subject
            for b in parsed.blocks:
                if b.kind == "heading":
                    heads[c.start + b.start] = b.text
            programs.update((c.start + p, name) for p, name in parsed.programs)
            owned.update((c.start + a, c.start + b, ind, who) for a, b, ind, who in parsed.owned)
    return out


# more characters than a trimmed run of blank lines between two chunks: a chunk between
# them is absent
_HOLE = 40
# a gap's expected count of headings past which it more likely than not holds one (a
# Poisson count's chance of none, exp(-0.69), is one half)
_LIKELY = 0.69


def _starts_line(c: Chunk, prev: Chunk | None) -> bool:
    """`c` starts at the start of a line (its first line is whole, a fence line there
    opens or closes a block): it starts its document, or the chunk before it (`prev`, of
    the same document) ends before it (the chunker cut at a blank line and trimmed it) or
    overlaps it with a newline just before `c` starts."""
    if c.start == 0:
        return True
    if prev is None:
        return False
    if prev.end < c.start:
        return True
    at = c.start - 1 - prev.start
    return 0 <= at < len(prev.text) and prev.text[at] == "\n"


# ----------------------------------------------------------------------------- any documentation
# Templates for documents that are not docstrings: Markdown, reStructuredText, man pages,
# plain text, HTML (see docparse.py). Answers quote the blocks they come from, with spans.
MAX_DOC_ANSWER = 700  # characters of prose in an answer
MAX_EXAMPLE_CODE = 900  # characters of code in an example's answer
MAX_CLOZE = 2  # per chunk
CLOZE_WORDS = (8, 45)
# sections whose text is not what a reader asks about
_SKIP_SECTIONS = frozenset(
    {
        "synopsis",
        "see also",
        "author",
        "authors",
        "copyright",
        "reporting bugs",
        "bugs",
        "history",
        "colophon",
        "contents",
        "license",
        "table of contents",
        "availability",
    }
)
# sections that describe the document's subject itself
_SUBJECT_SECTIONS = frozenset({"name", "description", "overview", "introduction", "summary"})
# the parts a proposal, a standard, a design document or a project's README has, each its
# own: "Explain Motivation.", "Describe Installation." ask about no one document
_PART_SECTIONS = frozenset(
    """abstract motivation rationale specification compatibility implementation deployment
    acknowledgements acknowledgments background conclusion conclusions discussion
    limitations requirements terminology changelog installation configuration features
    troubleshooting prerequisites dependencies caveats""".split()
) | {
    "backwards compatibility", "backward compatibility", "reference implementation",
    "security considerations", "test vectors", "design rationale", "open questions",
    "known issues", "known limitations", "system requirements",
}  # fmt: skip
# a section named by plain words ("Notes", "Examples", "Exit status", "Loops", "Hashing"):
# documents of one kind share them (a manual page's NOTES, a release note's "Variables"),
# so "Give an overview of Notes." asks about no one page; such a part is asked of its
# document ("Deprecated and Removed Features" too). Not a heading in code, nor one in a
# sentence's words ("How it works", "Using the core", "Getting started"); a heading that
# says only that more follows ("Other") asks nothing
_PLAIN_HEADING = re.compile(r"[A-Z][a-z]+(?: [A-Za-z][a-z]+){0,3}")
_CAPS_HEADING = re.compile(r"[A-Z]{2,}(?: [A-Z]{2,}){0,3}")
_NOTHING_SECTIONS = frozenset("other others misc miscellaneous more general also".split())
# sections whose code shows the document's subject in use, not a topic of their own
_NO_TOPIC_SECTIONS = frozenset(
    "examples example usage notes note options files environment synopsis".split()
)
_NOT_A_PART = frozenset(
    """using see about why where when which who while from by into at via without after
    before during between""".split()
)


def _document_part(heading: str, body: str, catalog: Catalog | None = None) -> str | None:
    """The part `heading` names, as it reads after "the" ("examples", "exit status";
    a name keeps its capitals: "Autogen"); "" for a heading that names nothing; None when
    the heading is a topic of its own."""
    h = strip_numbering(heading).strip()
    if h.lower() in _PART_SECTIONS:
        return h.lower()
    caps = _CAPS_HEADING.fullmatch(h) is not None  # "POSITIONAL ARGUMENTS": no name's capitals
    if caps:
        h = h.capitalize()
    if not _PLAIN_HEADING.fullmatch(h):
        return None
    words = h.lower().split()
    if words[0] in _NOTHING_SECTIONS and len(words) == 1:
        return ""
    if any((w in _PROSE_WORDS and w != "and") or w in _NOT_A_PART for w in words):
        return None
    if len(words) > 1 and words[0].endswith("ing"):  # "Getting started", "Building X"
        return None
    if words[0] in IMPERATIVE_VERBS:  # "Remove Foreign Key Constraints": an instruction
        return None
    first = h.split()[0]
    # a proper name is written with its capital inside a sentence ("the Autogen feature");
    # a common noun is not. A name and more words is a topic ("Valgrind gdbserver overall
    # organisation") or a sentence ("Valgrind behaves unexpectedly"), no part
    if not caps and re.search(rf"[a-z,;] {re.escape(first)}\b", body):
        return h if len(words) == 1 else None
    # lowered as a sentence writes it, a name of several words kept ("Release Notes format")
    return h.lower() if catalog is None else in_sentence(h, body, catalog)


# an API's heading: its name in code, after a kind label in some references ("Class:
# `fs.Dir`", "Static method: `Buffer.from(array)`"); not an event's ("Event: `'close'`")
_CODE_HEADING = re.compile(
    r"^(?:(?:Class|Static method|Method|Property|Constructor|Function|Interface|Module|"
    r"Enum|Struct|Trait|Type|Macro):\s*)?`([^`]+)`$"
)
# a parameter's note that names no subject ("Must satisfy `0 <= offset`.", "May be
# negated."): blanked, it asks about nothing in particular
_NO_SUBJECT = re.compile(r"^(?:Must|Should|May|Might|Can|Could|Will|Would|Shall)\s")
_BLANKABLE = re.compile(r"(?<![`'\w])`([^`'\s](?:[^`']{0,38}[^`'\s])?)`(?![`'\w])")
# values that say little blanked out of their sentence ("When ____, such loads ...": `yes`)
_TRIVIAL_BLANKS = frozenset("yes no true false none null nil on off 0 1 -1".split())
# a subject in words, not a name ("Using and understanding the Valgrind core"): asked about
# as "the `--x` option", not "the `--x` option of `Using and understanding ...`"
_PROSE_WORDS = frozenset("a an the and or of to for in on with your you how what".split())


@lru_cache(maxsize=512)  # a long document's chunks (Node's events.md: 155), each parsed once
def _parsed(
    text: str,
    title: str,
    head: bool,
    section: str,
    in_code: bool,
    program: str = "",
    owners: tuple[tuple[int, str], ...] = (),
    subject: str = "",
) -> Parsed:
    return parse(text, title, head, section, in_code, program, owners, subject)


def _doc(v: ChunkView) -> Parsed | None:
    if v.kind != "doc":
        return None
    return _parsed(v.body, v.name, v.is_head, v.section, v.in_code, v.program, v.owners, v.subject)


# a member's name alone as a heading: lower-case first ("abbreviate", "add_custom_target"),
# or with a lower-case letter and then a capital or an underscore ("getKey", "Map_Entry");
# not a word of prose ("Usage") or a manual page's section ("OPTIONS", "EXIT_STATUS")
_MEMBER_HEADING = re.compile(
    r"[a-z_$][\w$]*(?:\(\))?|[A-Z][\w$]*?[a-z][\w$]*?[A-Z_][\w$]*(?:\(\))?"
)
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")


def _api_name(section: str) -> str | None:
    """`path.basename(path[, suffix])` -> "path.basename()"; None unless the heading is code."""
    m = _CODE_HEADING.match(section)
    if m is None:
        return None
    name = m.group(1).strip()
    head = re.match(r"^(?:new\s+|class:\s*|static\s+)?([\w$.:#\[\]<>-]+)(\(.*\))?", name)
    if head is None:
        return name
    return f"{head.group(1)}()" if head.group(2) is not None else head.group(1)


def _bare(name: str) -> str:
    """A name without its call parentheses: `readable.read()` -> "readable.read"."""
    return name.strip("`").removesuffix("()")


def _about(section: str, subject: str, members: bool = True) -> str:
    """What a definition in `section` belongs to: the API the section documents (a heading
    in code; or a member's bare name, as javadoc's and rustdoc's pages head each method:
    "abbreviate" on StringUtils's page is `StringUtils.abbreviate`), else the document's
    subject."""
    api = _api_name(section)
    if api:
        return api
    head = section.strip()
    if members and _MEMBER_HEADING.fullmatch(head) and head != subject:
        return f"{subject}.{head}" if _IDENTIFIER.fullmatch(subject) else head
    return subject


# a note of the versions that brought a thing and nothing else: Node's "Added in: v13.0.0,
# v12.16.0 N-API version: 7", Sphinx's "New in version 3.2.", javadoc's "Since: 1.4"
_VERSION_LABEL = re.compile(
    r"^(?:Added in|New in(?: version)?|Since|Introduced in|Available since)\s*:?\s+", re.I
)


# a note of a change ("Changed in version 3.5: Added support for ...", Sphinx's
# versionchanged and deprecated) or of where the source is ("Source code: Lib/json.py")
_CHANGE_NOTE = re.compile(
    r"^(?:(?:Changed|Deprecated|Removed) (?:in|since) version [\w.]+\s*:|Source code:\s*\S+$)",
    re.I,
)


def _version_note(text: str) -> bool:
    """A note of versions or of the source that says nothing of what a thing does."""
    if _CHANGE_NOTE.match(text):
        return True
    m = _VERSION_LABEL.match(text)
    if m is None or len(text) > 100:
        return False
    rest = [t for t in re.split(r"[\s,;]+", text[m.end() :]) if t]
    versions = [t for t in rest if re.search(r"\d", t)]
    return bool(versions) and all(
        t in versions or t.lower().rstrip(":.") in ("n-api", "version", "and") for t in rest
    )


# a list item that types a parameter, a result or a value, the way API references list them
# over the description (Node's "`request` <http.IncomingMessage>", "Returns: {boolean}",
# "Extends: <EventEmitter>", "<integer>")
_TYPED_ITEM = re.compile(
    r"^(?:(?:Returns?|Type|Value|Extends):?\s*)?(?:`[^`]{1,60}`:?\s*)?(?:<[^<>]{1,200}>|\{[^{}]{1,200}\})"
)
# the most characters of a list an answer quotes whole
MAX_LIST_ANSWER = 600


def _introduces(paragraph: str) -> bool:
    """A paragraph that introduces what follows it: it ends in ":", or its last sentence
    says so ("The following tasks evaluate subjects in the KMMLU dataset")."""
    if paragraph.endswith(":"):
        return True
    last = sentences(paragraph)[-1] if paragraph else ""
    m = re.search(r"\b(?:the following|as follows)\b", last, re.I)
    # "one of the following: DragonFlyBSD, FreeBSD, ...": what follows is in the sentence
    return m is not None and ":" not in last[m.end() :]


def _list_part(blocks: Sequence[Block], k: int, whole: bool) -> Block | None:
    """The list whose first item is blocks[k], as one block of "- item" lines: all of it
    when it is short enough to quote whole (MAX_LIST_ANSWER), else None; not `whole`, its
    first items that fit (at least one)."""
    items: list[Block] = []
    for b in blocks[k:]:
        if b.kind != "prose" or not b.item or (items and b.indent != items[0].indent):
            if whole and b.kind == "prose" and b.item and b.indent > items[0].indent:
                return None  # a nested list: not one flat list
            break
        items.append(b)
    shown: list[Block] = []
    for b in items:
        if shown and len("\n".join(f"- {x.text}" for x in [*shown, b])) > MAX_LIST_ANSWER:
            if whole:
                return None
            break
        shown.append(b)
    if whole and len(f"- {shown[0].text}") > MAX_LIST_ANSWER:
        return None
    text = "\n".join(f"- {b.text}" for b in shown) if len(shown) > 1 else shown[0].text
    return Block("prose", shown[0].start, shown[-1].end, text, shown[0].section, item=True)


def _is_prose(subject: str) -> bool:
    """A subject in words ("Using and understanding the Valgrind core"), not a name."""
    words = subject.split()
    return len(words) >= 3 and any(w.lower() in _PROSE_WORDS for w in words[1:])


def _clip(text: str, limit: int = MAX_DOC_ANSWER) -> str:
    return clip_sentences(text, limit)


def _section_parts(
    blocks: Sequence[Block], i: int, api: str | None, skip_items: bool
) -> list[Block]:
    """The blocks that explain the section headed by blocks[i]: its first prose paragraphs,
    the code or the list a paragraph introduces; a list that opens the section (passed over
    when `skip_items`)."""
    parts: list[Block] = []
    listed_at: int | None = None  # the indent of the list passed over
    for k, b in enumerate(blocks[i + 1 :], i + 1):
        if b.kind == "prose" and _version_note(b.text):
            continue  # "Added in: v0.9.4" over the description: no explanation
        typed = api is not None or _TYPED_ITEM.match(b.text) is not None
        if b.kind == "prose" and b.item and skip_items and not parts and typed:
            listed_at = b.indent if listed_at is None else min(listed_at, b.indent)
            continue
        if listed_at is not None and not parts and b.kind == "prose" and b.indent > listed_at:
            continue  # a paragraph inside an item of that list: the list's too
        if b.kind == "prose" and b.item:
            # a list a paragraph introduces is whole or not there; one that opens the
            # section, its first items that fit; never an item alone as a paragraph
            if not parts:
                listed = _list_part(blocks, k, whole=False)
            elif _introduces(parts[-1].text):
                listed = _list_part(blocks, k, whole=True)
            else:
                listed = None
            if listed is not None:
                parts.append(listed)
            break
        # a section that opens with a list of options or fields is not summed up by the
        # paragraph after the list (an API's come before its description)
        if b.kind == "heading" or (b.kind == "definition" and (parts or api is None)):
            break
        if b.kind == "prose" and len(parts) < 2 and len(" ".join(x.text for x in parts)) < 500:
            parts.append(b)
        elif b.kind == "code" and parts and parts[-1].text.endswith(":"):
            if len(b.text) <= 600:
                parts.append(b)
            break
        elif b.kind != "prose" or parts:
            if parts:
                break
    return parts


def _explain_doc(v: ChunkView, catalog: Catalog | None) -> list[Candidate]:
    """What a section explains: its first prose paragraphs (and the code a paragraph
    introduces); the subject's own sections ask about the subject."""
    p = _doc(v)
    if p is None:
        return []
    out: list[Candidate] = []
    blocks = p.blocks
    for i, h in enumerate(blocks):
        if h.kind != "heading" or h.text.lower() in _SKIP_SECTIONS:
            continue
        api = _api_name(h.text)
        # a list over the section's first paragraph (an API's parameters and result, an
        # event's typed arguments: Node's layout) is passed over, unless it is all it says
        parts = _section_parts(blocks, i, api, True) or _section_parts(blocks, i, api, False)
        if not parts or parts[0].kind != "prose":
            continue
        texts = [
            b.text if b.item else _clip(b.text) if b.kind == "prose" else _dedent_code(v.body, b)
            for b in parts
        ]
        if (
            parts[-1].kind == "prose"
            and not texts[-1].startswith("- ")  # a list of items, not one paragraph
            and _introduces(texts[-1])
        ):
            # a lead-in to what the answer does not hold ("... as follows:"): its other
            # sentences stay, the lead-in goes
            texts[-1] = " ".join(sentences(texts[-1])[:-1])
            if not texts[-1]:
                texts.pop()
        answer = "\n\n".join(texts)
        if not (_nontrivial(answer) and len(answer) >= 40):
            continue
        span = (parts[0].start, parts[-1].end)
        if api is not None:
            out.append(("what_does", {"a": api}, answer, span))
        elif h.text.lower() in _SUBJECT_SECTIONS and p.subject:
            out.append(("about_subject", {"a": p.subject}, answer, span))
        elif (
            p.subject
            and p.subject.lower() != h.text.lower()  # CMake's ABSTRACT property: its name
            and (part_name := _document_part(h.text, v.body, catalog)) is not None
        ):
            if part_name:
                part = {"h": part_name, "s": p.subject}
                out.append(("explain_doc_part", part, answer, span))
        elif h.text.rstrip().endswith("?") and p.subject:
            # a heading that is a question ("What does a field class do?") is asked as
            # written, with its document
            out.append(("heading_question", {"h": h.text.strip(), "s": p.subject}, answer, span))
        else:
            form, subject = _heading_form(h.text, blocks[:i], v, p.subject, catalog)
            out.append((_EXPLAIN_FORMS[form], {"a": subject}, answer, span))
    return out


_EXAMPLE_SECTIONS = frozenset({"example", "examples", "usage", "usage examples"})
# how each form of a heading (headings.heading_form) is asked, explained and by example
_EXPLAIN_FORMS = {
    "claim": "explain_doc_claim",  # "Is it true that `QuerySet`s are lazy?"
    "clause": "explain_doc_clause",  # "Explain where uploaded data is stored."
    "how": "explain_doc_how",  # "How do I run a workflow preset?"
    "task": "explain_doc_task",  # "How do I go about running my program ...?"
    "prep": "explain_doc_prep",  # "What does the documentation say for x86?"
    "the": "explain_doc_the",
    "words": "explain_doc",
}
_EXAMPLE_FORMS = {
    "claim": "example_claim",
    "clause": "example_words",
    "how": "example_how",
    "task": "example_task",
    "prep": "example_prep",
    "the": "example_words",
    "words": "example_words",
}


def _heading_form(
    heading: str, before: Sequence[Block], v: ChunkView, subject: str, catalog: Catalog | None
) -> tuple[str, str]:
    """`heading` in words as a question asks it (headings.heading_form): a heading that
    opens with a preposition ("For zlib-based streams") after the nearest heading above it
    that does not ("Memory usage tuning"), among `before` (the chunk's blocks before it) or
    the heading the chunk starts under, or with none of them the document's `subject`."""
    form, words = heading_form(in_sentence(heading, v.body, catalog, (v.name, subject)), heading)
    if form != "prep":
        return form, words
    above = next(
        (
            b.text
            for b in reversed(before)
            if b.kind == "heading" and not opens_with_preposition(b.text)
        ),
        v.section if v.section and not opens_with_preposition(v.section) else "",
    )
    above = strip_numbering(above).strip()
    # no heading above, or one that says no more ("Examples": "examples from a script"),
    # or a sentence taken for one (a comment in code: "# Set up toolchain paths."): the
    # document's subject in its place ("gapplication from a script")
    if (
        not above
        or above.lower() in _SKIP_SECTIONS | _EXAMPLE_SECTIONS
        or re.search(r"[.:]$|\. ", above)
    ):
        above = subject
        if not above or opens_with_preposition(above):
            return form, words
    api = _api_name(above)
    shown = f"`{api}`" if api else in_sentence(above, v.body, catalog, (v.name, subject))
    return heading_form(f"{shown} {words}")


def _dedent_code(text: str, b: Block) -> str:
    """The code block's lines, dedented together: from the start of its first line (a
    block's span opens at its first character, past that line's indentation)."""
    line_start = text.rfind("\n", 0, b.start) + 1
    if text[line_start : b.start].strip():  # text before it on its line: keep the span
        line_start = b.start
    return textwrap.dedent(text[line_start : b.end]).strip("\n")


def _define(v: ChunkView, catalog: Catalog | None) -> list[Candidate]:
    """Options and flags, keywords, parameters, return values and glossary terms, each
    answered with its own description."""
    p = _doc(v)
    if p is None:
        return []
    out: list[Candidate] = []
    seen: set[str] = set()
    for b in p.blocks:
        if b.kind != "definition" or not _nontrivial(b.text) or b.term in seen:
            continue
        seen.add(b.term)
        about = b.owner or _about(b.section, p.subject, not p.man)
        if _is_prose(about):
            about = ""
        answer = _clip(b.text)
        span = (b.start, b.end)
        if b.def_kind == "option":
            out.append(
                ("option" if about else "option_bare", {"t": b.term, "s": about}, answer, span)
            )
        elif b.def_kind == "keyword" and (under := _under(b, about, p.subject, catalog)):
            key = "keyword_under" if about else "keyword_under_bare"
            out.append((key, {"t": b.term, "h": under, "s": about}, answer, span))
        elif b.def_kind == "keyword":
            out.append(
                ("keyword" if about else "keyword_bare", {"t": b.term, "s": about}, answer, span)
            )
        elif b.def_kind == "param" and about:
            out.append(("param", {"t": b.term, "s": about}, answer, span))
        elif b.def_kind == "returns" and about:
            out.append(("returns", {"a": about}, answer, span))
        elif b.def_kind == "term":
            key = "term_in" if about and about.lower() != b.term.lower() else "term"
            out.append((key, {"t": b.term, "s": about}, answer, span))
    return out


def _under(b: Block, about: str, subject: str, catalog: Catalog | None) -> str:
    """The heading a short term (`l`, `%d`: two characters at most) is listed under, when
    it names more than the page does ("Globbing Flags" in zsh's Expansion, not "Options");
    else ""."""
    if len(b.term.strip("`")) > 2:
        return ""
    head = strip_numbering(b.section.strip()).strip()
    if not head or _api_name(head) or head.lower() in f"{about}\n{subject}".lower():
        return ""
    if head.lower() in GENERIC_SECTIONS:  # "Options", "Description": no more than the page
        return ""
    return in_sentence(head, b.text, catalog)


# a block that is one link: where to read more, no example (a list of mirrors may be one)
_BARE_URLS = re.compile(r"\s*(?:\w*\s*\n)?<?(?:https?|ftp)://\S+>?\s*")


def _example(v: ChunkView, catalog: Catalog | None) -> list[Candidate]:
    """Code that a paragraph introduces ("For example:"), answered with both."""
    p = _doc(v)
    if p is None:
        return []
    out: list[Candidate] = []
    asked: set[str] = set()
    for prev, b in zip(p.blocks, p.blocks[1:], strict=False):
        if b.kind != "code" or prev.kind != "prose" or not prev.text.endswith(":"):
            continue
        if prev.text.startswith("Feature Test Macro Requirements"):
            continue  # a C page's synopsis: the macros that declare it, no example
        topic = _api_name(b.section) or (
            b.section
            if b.section and b.section.lower() not in _SUBJECT_SECTIONS | _NO_TOPIC_SECTIONS
            else p.subject
        )
        code = _dedent_code(v.body, b)
        if not topic or topic in asked or len(code) > MAX_EXAMPLE_CODE or len(code) < 10:
            continue
        if _BARE_URLS.fullmatch(code.strip("`\n")):  # "See the project's page:", its link
            continue
        asked.add(topic)
        same = not p.subject or topic.lower() == p.subject.lower()  # "HTTP" on http's page
        # an API's heading ("Class: `Hmac`") is a name, not a part of its page
        part = None if same or _api_name(b.section) else _document_part(topic, v.body, catalog)
        if part == "":
            continue  # "Other": names nothing
        if part is not None and {"example", "examples", "usage"} & set(part.lower().split()):
            part, topic = None, p.subject  # "Basic example": an example of the subject
        if part is None and topic.rstrip().endswith("?") and p.subject:
            topic = p.subject  # "What does a field class do?": its document's example
        if part is None and topic.startswith("Using ") and topic != p.subject:
            topic = topic[len("Using ") :]  # "Using the low-level API": of the API
        if part is None and re.match(r"Examples?: \S", topic):
            topic = topic.partition(": ")[2]  # "Example: Read file stream line-by-line"
        if part is not None:
            key, args = "example_part", {"h": part, "s": p.subject}
        else:
            if (_api_name(b.section) or topic == p.subject or same) and not in_words(topic):
                # a name as code, unless it holds code already ("Option `strip`")
                key, shown = "example", (topic if "`" in topic else f"`{topic}`")
            else:  # words: an example of a task or of a thing, not "using" it
                at = next(
                    (j for j, x in enumerate(p.blocks) if x.kind == "heading" and x.text == topic),
                    0,
                )
                form, shown = _heading_form(topic, p.blocks[:at], v, p.subject, catalog)
                key = _EXAMPLE_FORMS[form]
            args = {"a": shown}
        out.append(
            (
                key,
                args,
                f"{_clip(prev.text, 400)}\n\n{code}",
                (prev.start, b.end),
            )
        )
    return out


def _cloze(v: ChunkView, catalog: Catalog | None) -> list[Candidate]:
    """Key sentences with a code term blanked out; the answer is the term."""
    p = _doc(v)
    if p is None:
        return []
    out: list[Candidate] = []
    about = p.subject
    for b in p.blocks:
        if b.kind not in ("prose", "definition") or len(out) >= MAX_CLOZE:
            continue
        for s in sentences(b.text):
            n = len(s.split())
            terms = [m for m in _BLANKABLE.finditer(s) if m.start() > 0]
            if (
                not (CLOZE_WORDS[0] <= n <= CLOZE_WORDS[1])
                or not terms
                or s.endswith(":")
                or not (s[0].isupper() or s[0] == "`")
                or not s.endswith((".", "!", "?"))
                or _NO_SUBJECT.match(s)
            ):
                continue
            # a bare value is blanked only as a default ("The default is ____."): in any
            # other sentence, a name beside it is the blank, and without one it is skipped
            named = [t for t in terms if t.group(1).lower() not in _TRIVIAL_BLANKS]
            terms = named or (terms if "default" in s.lower() else [])
            if not terms:
                continue
            m = terms[0]
            if m.group(1) == about or s.count(m.group(0)) > 1:
                continue
            blanked = f"{s[: m.start()]}____{s[m.end() :]}"
            where = _api_name(b.section) or about or b.section
            if _bare(where) == _bare(m.group(1)):
                where = about or b.section  # "(readable.read()) The ____ method reads": told
            out.append(("cloze", {"a": where, "q": blanked}, m.group(0), (b.start, b.end)))
            break
    return out


TEMPLATES: dict[str, Callable[[ChunkView, Catalog | None], list[Candidate]]] = {
    "what_does": _what_does,
    "arguments": _arguments,
    "returns": _returns,
    "difference": _difference,
    "signature": _signature,
    "explain_topic": _explain_topic,
    "define": _define,
    "example": _example,
    "cloze": _cloze,
}
