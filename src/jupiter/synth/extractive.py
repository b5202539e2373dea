"""The bootstrap generator: templated questions answered with sentences of the documents,
and a retrieval QA baseline (BM25 + sentence selection) for evaluation.

It needs no model, so cycle 1 can train a student before any model exists.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice

from jupiter.config import GeneratorConfig, RetrievalConfig
from jupiter.records import Chunk, Example
from jupiter.synth.parse import lead, prose_paragraphs, sentences, view
from jupiter.synth.questions import iter_questions
from jupiter.synth.raft import raft_examples
from jupiter.synth.retrieval import BM25Index, tokenize

# Words that frame a question rather than say what it is about; the rest of the question,
# minus the name it asks about, decides which sentences of the passage are relevant.
QUESTION_FRAME = frozenset(
    """is in for used use using purpose work works mean means meaning difference between
    differ compare get back show give overview documentation say says documented""".split()
)
MAX_SENTENCES = 3
MIN_SENTENCE_WORDS = 4
PASSAGES = 3  # top passages `choose` compares the choices with


def _stem(term: str) -> str:
    # crude plural/verb folding for matching inside one passage ("returns" ~ "return")
    return term[:-1] if len(term) > 3 and term.endswith("s") else term


class ExtractiveGenerator:
    """Questions from templates, answers from the chunk text; retrieval over `chunks` for
    `answer` and `choose`. Pass the chunks it may quote (normally the train split);
    `retrieval` is the index its RAFT examples find distractors with (default BM25)."""

    id = "extractive"

    def __init__(self, chunks: Sequence[Chunk], retrieval: RetrievalConfig | None = None) -> None:
        self.chunks = list(chunks)
        self.retrieval = retrieval
        self._index: BM25Index | None = None
        self._heads: dict[str, int] = {}
        for i, c in enumerate(self.chunks):
            j = self._heads.get(c.doc_id)
            if j is None or c.start < self.chunks[j].start:
                self._heads[c.doc_id] = i

    @property
    def index(self) -> BM25Index:
        # built on first use: `generate` alone never needs it
        if self._index is None:
            texts = [c.text for c in self.chunks]
            self._index = BM25Index(texts, titles=[c.title for c in self.chunks])
        return self._index

    # ------------------------------------------------------------------------- generate
    def generate(
        self,
        chunks: Sequence[Chunk],
        cycle: int,
        cfg: GeneratorConfig,
        limit: int | None = None,
    ) -> Iterator[Example]:
        """qa examples per train chunk, then its raw text when cfg.continuation; with
        cfg.raft.enabled a share of the qa ones asked open-book (synth/raft.py)."""
        examples = raft_examples(
            self._examples(chunks, cycle, cfg), chunks, cfg.raft, cfg.seed, self.retrieval
        )
        return islice(examples, limit)

    def _examples(
        self, chunks: Sequence[Chunk], cycle: int, cfg: GeneratorConfig
    ) -> Iterator[Example]:
        qs = iter_questions(chunks, cfg.templates, cfg.max_questions_per_chunk, cfg.seed)
        for chunk, questions in qs:
            for q in questions:
                if q.answer is None:
                    continue
                yield Example(
                    kind="qa",
                    generator=self.id,
                    chunk_id=chunk.id,
                    template=q.template,
                    messages=[
                        {"role": "user", "content": q.question},
                        {"role": "assistant", "content": q.answer},
                    ],
                    cycle=cycle,
                    span=(chunk.start + q.span[0], chunk.start + q.span[1]) if q.span else None,
                )
            if cfg.continuation:
                yield Example(
                    kind="text",
                    generator=self.id,
                    chunk_id=chunk.id,
                    template="continuation",
                    text=chunk.text,
                    cycle=cycle,
                )

    # --------------------------------------------------------------------------- answer
    def answer(self, questions: Sequence[str]) -> list[str]:
        return [self._answer_one(q) for q in questions]

    def _answer_one(self, question: str) -> str:
        hits = self.index.search(question, k=1)
        if not hits:
            return ""
        chunk = self.chunks[hits[0][0]]
        named = set(tokenize(chunk.title))
        content = {t for t in tokenize(question) if t not in QUESTION_FRAME and t not in named}
        best = self._best_sentences(chunk, content)
        if best:
            return best
        # the question only names the subject: its summary is the opening of its document
        head = self.chunks[self._heads[chunk.doc_id]]
        for c in (head, chunk):
            v = view(c)
            summary = lead(v.body, plain=v.plain)
            if summary:
                return " ".join(sentences(summary)[:MAX_SENTENCES])
        return ""

    def _best_sentences(self, chunk: Chunk, content: set[str]) -> str:
        """The sentence that covers most of the question's content terms (idf-weighted),
        extended by the following sentences of its paragraph that also match, up to 3."""
        if not content:
            return ""
        weights = {_stem(t): self.index.idf(t) for t in sorted(content)}
        v = view(chunk)
        paras = [sentences(p) for p in prose_paragraphs(v.body, v.plain)]

        def score(s: str) -> float:
            if len(s.split()) < MIN_SENTENCE_WORDS:
                return 0.0  # labels such as "Pretty printing::" are not answers
            stems = {_stem(t) for t in tokenize(s)}
            return sum(w for t, w in weights.items() if t in stems)

        scored = [
            (score(s), -pi, -si) for pi, para in enumerate(paras) for si, s in enumerate(para)
        ]
        if not scored or max(scored)[0] <= 0:
            return ""
        _, neg_p, neg_s = max(scored)  # ties: the earliest sentence
        para, start = paras[-neg_p], -neg_s
        picked = [para[start]]
        for s in para[start + 1 :]:
            if len(picked) >= MAX_SENTENCES or score(s) <= 0:
                break
            picked.append(s)
        return " ".join(picked)

    # --------------------------------------------------------------------------- choose
    def choose(self, question: str, choices: Sequence[str]) -> int:
        """The choice whose terms are best covered by the passages retrieved for the question
        (idf-weighted, passages weighted by their score); ties go to the lowest index."""
        scores = self.choice_scores(question, choices)
        return max(range(len(scores)), key=lambda i: (scores[i], -i)) if scores else 0

    def choice_scores(self, question: str, choices: Sequence[str]) -> list[float]:
        """Per choice: the idf-weighted share of its terms found in the retrieved passages."""
        hits = self.index.search(question, k=PASSAGES)
        weight: dict[str, float] = {}
        for i, s in hits:
            rel = s / hits[0][1]
            c = self.chunks[i]
            for t in set(tokenize(f"{c.title}\n{c.text}")):
                weight[t] = max(weight.get(t, 0.0), rel)
        out: list[float] = []
        for choice in choices:
            # sorted: a float sum in set order would differ between processes (string
            # hashing), and break ties between choices differently from run to run
            terms = sorted(set(tokenize(choice)))
            idf = {t: self.index.idf(t) for t in terms}
            covered = sum(idf[t] * weight.get(t, 0.0) for t in terms)
            # +1 in the denominator: a one-word choice that happens to occur is weak evidence
            out.append(covered / (sum(idf.values()) + 1.0))
        return out
