"""Which skill a request reaches: lexical ranking over what the agent sees at routing time.

The spec's three-layer loading keeps every skill's ``name`` + ``description`` resident and
routes a request on them alone. This model ranks the skills for a request the same way, with
no model: Okapi BM25 over an analyzer that reads Chinese, Vietnamese and English.

- CJK runs become character unigrams and bigrams (no dictionary: skill jargon such as 图文,
  口播 or 拆条 is no dictionary word, and a segmenter costs a dictionary load at start; the
  choice is measured in ``docs/routing.md``).
- Latin-script runs (English, Vietnamese syllables with their diacritics) become words and word
  bigrams; a hyphenated skill name is also kept whole (``card-maker``).
- A description's boundary clauses (``不写文案，文案由 xhs-note-plan 负责``, ``请用 …``) say what
  the skill does *not* serve: their words are left out of the index, as a reader would.

Protocol-free and pure: the rule layer and the services feed it plain :class:`SkillCard` values.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

K1 = 1.2
B = 0.75

# CJK ideographs, kana, hangul: text written without spaces between words.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\U00020000-\U0002ffff"


@cache
def _token_pattern() -> re.Pattern[str]:
    # Compiled on first use (~8 ms: the class spans every plane): never at import.
    return re.compile(rf"(?P<cjk>[{_CJK}]+)|(?P<word>[^\W_{_CJK}]+(?:-[^\W_{_CJK}]+)*)")


# Words too common in any request or description to say anything about the skill.
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "into",
        "is",
        "it",
        "of",
        "on",
        "or",
        "the",
        "this",
        "that",
        "to",
        "with",
        "when",
        "use",
        "used",
        "using",
        "user",
        "users",
        "skill",
        "you",
        "your",
    ]
)
# Clause breaks: a boundary clause ends at one of these.
_CLAUSE = re.compile(r"[，。；;！？!?\n]|[,.](?=\s|$)")

# Quoted phrases: “…”, 「…」, 『…』, "…" by default (``trigger-quotes``).
DEFAULT_QUOTES: tuple[str, ...] = ("“”", "「」", "『』", '""')
# Words that introduce what users say, after which quoted text is a request (the default of the
# ``trigger-phrase-cues`` option, kept in easel_ls.config so that reading settings never
# imports this module).
DEFAULT_PHRASE_CUES: tuple[str, ...] = ("说", "例如", "比如", "such as", "e.g.")


@dataclass(frozen=True)
class Term:
    text: str
    start: int  # offsets into the analysed (normalised) text
    end: int


def normalise(text: str) -> str:
    """NFKC and case folding: full-width letters, ligatures and case do not split a term. Both
    keep the length of CJK and Latin text, so offsets still point into the original in practice
    (the matched words shown are cut from the normalised text)."""
    return unicodedata.normalize("NFKC", text).casefold()


def analyse(text: str, *, mode: str = "uni+bi") -> list[Term]:
    """The terms of ``text`` (already normalised), with their offsets.

    ``mode`` is the measured choice of ``docs/routing.md``: ``uni+bi`` (CJK unigrams and
    bigrams), ``bi`` (bigrams only, unigrams for lone characters) or ``uni``.
    """
    terms: list[Term] = []
    previous_word: Term | None = None
    for m in _token_pattern().finditer(text):
        run = m.group("cjk")
        if run is not None:
            previous_word = None
            base = m.start()
            n = len(run)
            if mode != "bi" or n == 1:
                terms.extend(Term(run[i], base + i, base + i + 1) for i in range(n))
            if mode != "uni":
                terms.extend(Term(run[i : i + 2], base + i, base + i + 2) for i in range(n - 1))
            continue
        if previous_word is not None and text[previous_word.end : m.start()].strip():
            previous_word = None  # words pair up only across white space
        word = m.group("word")
        parts = word.split("-")
        if len(parts) > 1:
            terms.append(Term(word, m.start(), m.end()))
        offset = m.start()
        for part in parts:
            if part and part not in STOP_WORDS and not part.isdigit():
                term = Term(part, offset, offset + len(part))
                terms.append(term)
                if previous_word is not None:
                    terms.append(
                        Term(f"{previous_word.text} {part}", previous_word.start, term.end)
                    )
                previous_word = term
            else:
                previous_word = None
            offset += len(part) + 1
    return terms


def term_texts(text: str, *, mode: str = "uni+bi") -> list[str]:
    """``[t.text for t in analyse(text)]``, without building offsets (index and query time)."""
    terms: list[str] = []
    previous: str | None = None
    last_end = 0
    for m in _token_pattern().finditer(text):
        run = m.group("cjk")
        if run is not None:
            previous = None
            if mode != "bi" or len(run) == 1:
                terms.extend(run)
            if mode != "uni":
                terms.extend([run[i : i + 2] for i in range(len(run) - 1)])
            continue
        if previous is not None and text[last_end : m.start()].strip():
            previous = None  # words pair up only across white space
        last_end = m.end()
        word = m.group("word")
        parts = word.split("-")
        if len(parts) > 1:
            terms.append(word)
        for part in parts:
            if part and part not in STOP_WORDS and not part.isdigit():
                terms.append(part)
                if previous is not None:
                    terms.append(f"{previous} {part}")
                previous = part
            else:
                previous = None
    return terms


@dataclass(frozen=True)
class SkillCard:
    """What the agent sees of a skill at routing time."""

    name: str
    description: str
    layer: str | None = None


def boundary_spans(text: str, cues: Iterable[str], other_names: Iterable[str]) -> list[range]:
    """Offsets of the clauses of ``text`` that draw a boundary: a clause holding a boundary cue
    (不负责, 请用, 交给 …) or naming another skill is about what the skill does not serve."""
    # One-character cues (转) are words inside others (转场, 转化): a clause naming another
    # skill is caught by the name instead.
    cue_list = [c for c in cues if len(c) > 1]
    names = other_names if isinstance(other_names, (set, frozenset)) else set(other_names)
    spans: list[range] = []
    start = 0
    for m in [*_CLAUSE.finditer(text), None]:
        end = m.start() if m is not None else len(text)
        clause = text[start:end]
        if any(c in clause for c in cue_list) or (
            names and any(w in names for w in _NAME_LIKE.findall(clause))
        ):
            spans.append(range(start, end))
        start = m.end() if m is not None else end
    return spans


# A skill name as written in prose: a whole word of letters, digits, `-` and `_`.
_NAME_LIKE = re.compile(r"(?<![\w-])[^\W_][\w-]*(?![\w-])")


def _names(clause: str, name: str) -> bool:
    """``clause`` mentions ``name`` as a whole word."""
    return name in _NAME_LIKE.findall(clause)


@dataclass
class _Doc:
    card: SkillCard
    text: str  # normalised name + description, boundary clauses blanked out: what is indexed
    terms: set[str]  # its distinct terms
    length: int


@dataclass(frozen=True)
class Hit:
    name: str
    score: float
    matched: tuple[str, ...]  # the words of the description that matched, longest first


@dataclass(frozen=True)
class Ranking:
    request: str
    hits: tuple[Hit, ...]  # best first; only skills with a score above zero

    @property
    def top(self) -> Hit | None:
        return self.hits[0] if self.hits else None

    @property
    def margin(self) -> float:
        """Score of the first minus the second (the first's own score when it is alone)."""
        if not self.hits:
            return 0.0
        return self.hits[0].score - (self.hits[1].score if len(self.hits) > 1 else 0.0)

    def position_of(self, name: str) -> int | None:
        for i, hit in enumerate(self.hits):
            if hit.name == name:
                return i
        return None

    def score_of(self, name: str) -> float:
        for hit in self.hits:
            if hit.name == name:
                return hit.score
        return 0.0


@dataclass
class RoutingIndex:
    """BM25 over the skills' resident metadata; build once, rank many requests."""

    mode: str = "uni+bi"
    # Another analyzer (text -> terms), for measuring alternatives such as a word segmenter.
    analyzer: Callable[[str], list[str]] | None = None
    docs: list[_Doc] = field(default_factory=list)
    # term -> {doc index: the term's BM25 weight in that doc}; a query adds weights up.
    postings: dict[str, dict[int, float]] = field(default_factory=dict)
    by_name: dict[str, int] = field(default_factory=dict)
    term_max: dict[str, float] = field(default_factory=dict)  # a term's highest weight
    common: frozenset[str] = frozenset()  # terms in over half of the descriptions
    # request -> (every skill's score, the best two as (score, name)): many skills quote the
    # same request (one phrase per platform variant), and the RT checks ask it once per skill.
    _contests: dict[str, tuple[dict[int, float], list[tuple[float, str]]]] = field(
        default_factory=dict, repr=False
    )
    _seen: set[str] = field(default_factory=set, repr=False)

    @classmethod
    def build(
        cls,
        cards: Sequence[SkillCard],
        *,
        boundary_cues: Iterable[str] = (),
        mode: str = "uni+bi",
        analyzer: Callable[[str], list[str]] | None = None,
    ) -> RoutingIndex:
        index = cls(mode=mode, analyzer=analyzer)
        cues = tuple(boundary_cues)
        all_names = {normalise(c.name) for c in cards}
        tfs: list[dict[str, int]] = []
        for card in cards:
            name_text = normalise(card.name)
            description = normalise(card.description)
            for span in reversed(boundary_spans(description, cues, all_names - {name_text})):
                # Blanked, not cut: offsets into the description stay true for display.
                description = (
                    description[: span.start] + "\n" * len(span) + description[span.stop :]
                )
            text = f"{name_text}\n{description}"
            terms = analyzer(text) if analyzer else term_texts(text, mode=mode)
            # The name, spoken: `card-maker` is asked for as "card maker" too.
            terms.append(name_text)
            tf: dict[str, int] = {}
            for t in terms:
                tf[t] = tf.get(t, 0) + 1
            index.by_name.setdefault(card.name, len(index.docs))
            index.docs.append(_Doc(card, text, set(tf), len(terms)))
            tfs.append(tf)
        n = len(index.docs)
        if not n:
            return index
        average = sum(d.length for d in index.docs) / n or 1.0
        df: dict[str, int] = {}
        for tf in tfs:
            for term in tf:
                df[term] = df.get(term, 0) + 1
        idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        postings: dict[str, dict[int, float]] = {}
        for i, tf in enumerate(tfs):
            norm = K1 * (1 - B + B * index.docs[i].length / average)
            for term, f in tf.items():
                postings.setdefault(term, {})[i] = idf[term] * f * (K1 + 1) / (f + norm)
        index.postings = postings
        index.term_max = {t: max(p.values()) for t, p in postings.items()}
        # Shown words leave out what most descriptions say (适用场景, 用户说): true, not telling.
        if n >= 4:
            index.common = frozenset(t for t, f in df.items() if f > n / 2)
        return index

    def __len__(self) -> int:
        return len(self.docs)

    def query_terms(self, request: str) -> set[str]:
        text = normalise(request)
        return set(self.analyzer(text) if self.analyzer else term_texts(text, mode=self.mode))

    def scores(self, request: str) -> dict[int, float]:
        scores: dict[int, float] = {}
        postings = self.postings
        for term in self.query_terms(request):
            posting = postings.get(term)
            if posting is None:
                continue
            for i, w in posting.items():
                scores[i] = scores.get(i, 0.0) + w
        return scores

    def best_rival(self, request: str, own: str, share: float) -> tuple[str, float, float] | None:
        """The skill other than ``own`` that scores highest for ``request`` when it scores at
        least ``share`` of ``own``'s score: (its name, its score, ``own``'s score); else None.

        A request asked the first time is answered with MaxScore pruning (only the skills that
        can still reach the bar are scored); one asked again (skills that quote the same
        phrase) is scored in full once, and its best two answer every later asker."""
        i_own = self.by_name.get(own)
        if i_own is None:
            return None
        contest = self._contests.get(request)
        if contest is None:
            if request not in self._seen:
                self._seen.add(request)
                return self._pruned_rival(request, i_own, share)
            scores = self.scores(request)
            best_two = sorted(
                ((score, self.docs[i].card.name) for i, score in scores.items()),
                key=lambda pair: (-pair[0], pair[1]),
            )[:2]
            if len(self._contests) > 4096:
                self._contests.clear()
            contest = self._contests[request] = (scores, best_two)
        scores, best_two = contest
        own_score = scores.get(i_own, 0.0)
        for score, name in best_two:
            if name == own:
                continue
            if score > 0 and score >= share * own_score:
                return name, round(score, 4), round(own_score, 4)
            return None
        return None

    def _pruned_rival(
        self, request: str, i_own: int, share: float
    ) -> tuple[str, float, float] | None:
        """MaxScore: a skill found only under terms whose highest weights add up to less than
        the bar cannot reach it, so only the skills under the other terms are scored."""
        terms = [t for t in self.query_terms(request) if t in self.postings]
        if not terms:
            return None
        postings = self.postings
        own_score = sum(postings[t].get(i_own, 0.0) for t in terms)
        bar = share * own_score
        terms.sort(key=lambda t: self.term_max[t])
        total = 0.0
        split = len(terms)
        for k, t in enumerate(terms):
            if total + self.term_max[t] >= bar:
                split = k
                break
            total += self.term_max[t]
        # Term at a time over the essential terms, then the rest only for the skills that
        # could still reach the bar with every remaining term at its highest weight.
        partial: dict[int, float] = {}
        for t in terms[split:]:
            for d, w in postings[t].items():
                partial[d] = partial.get(d, 0.0) + w
        partial.pop(i_own, None)
        rest = terms[:split]
        best: tuple[float, str] | None = None
        for d, score in partial.items():
            if score + total < bar:
                continue
            for t in rest:
                extra = postings[t].get(d)
                if extra is not None:
                    score += extra
            if score < bar or score <= 0:
                continue
            name = self.docs[d].card.name
            if best is None or score > best[0] or (score == best[0] and name < best[1]):
                best = (score, name)  # ties: the first name, as ``rank`` orders them
        if best is None:
            return None
        return best[1], round(best[0], 4), round(own_score, 4)

    def rank(self, request: str, top: int = 5, *, with_words: bool = True) -> Ranking:
        scores = self.scores(request)
        order = sorted(scores.items(), key=lambda kv: (-kv[1], self.docs[kv[0]].card.name))
        query = self.query_terms(request) if with_words else set()
        hits = tuple(
            Hit(
                self.docs[i].card.name,
                round(score, 4),
                self.matched_words(i, query) if with_words else (),
            )
            for i, score in (order[:top] if top > 0 else order)
        )
        return Ranking(request, hits)

    def matched_words(self, i: int, query: set[str]) -> tuple[str, ...]:
        """The stretches of the skill's indexed text that matched, longest first."""
        doc = self.docs[i]
        terms = analyse(doc.text, mode=self.mode)
        terms.append(Term(doc.text.split("\n", 1)[0], 0, len(doc.text.split("\n", 1)[0])))
        common = self.common
        spans = sorted((t.start, t.end) for t in terms if t.text in query and t.text not in common)
        merged: list[list[int]] = []
        for start, end in spans:
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        words: list[str] = []
        for start, end in merged:
            word = doc.text[start:end].strip()
            if word and word not in words:
                words.append(word)
        words.sort(key=lambda w: -len(w))
        return tuple(words)

    def similarity(self, a: str, b: str) -> float:
        """How much of ``a``'s own score a request made of ``a``'s description gives ``b``
        (0..1, not symmetric): 1 means ``b`` would take everything ``a`` says."""
        ia, ib = self.by_name.get(a), self.by_name.get(b)
        if ia is None or ib is None:
            return 0.0
        query = self.docs[ia].terms
        own = other = 0.0
        for term in query:
            posting = self.postings.get(term, {})
            own += posting.get(ia, 0.0)
            other += posting.get(ib, 0.0)
        return other / own if own else 0.0

    def shared_words(self, a: str, b: str, limit: int = 6) -> tuple[str, ...]:
        """The words of ``a``'s description that ``b``'s also has, weightiest first."""
        ia, ib = self.by_name.get(a), self.by_name.get(b)
        if ia is None or ib is None:
            return ()
        shared = self.docs[ia].terms & self.docs[ib].terms
        words = tuple(w for w in self.matched_words(ia, shared) if len(w) > 1)
        return words[:limit]

    def neighbours(self, name: str, limit: int = 3) -> list[tuple[str, float]]:
        """The skills that score highest for a request made of ``name``'s whole description."""
        i = self.by_name.get(name)
        if i is None:
            return []
        scores: dict[int, float] = {}
        own = 0.0
        for term in self.docs[i].terms:
            posting = self.postings.get(term, {})
            own += posting.get(i, 0.0)
            for j, w in posting.items():
                if j != i:
                    scores[j] = scores.get(j, 0.0) + w
        order = sorted(scores.items(), key=lambda kv: (-kv[1], self.docs[kv[0]].card.name))
        return [(self.docs[j].card.name, s / own if own else 0.0) for j, s in order[:limit]]


@dataclass(frozen=True)
class Phrase:
    text: str
    start: int  # offsets of the phrase (without its quotes) in the description text
    end: int


def trigger_phrases(
    description: str,
    quotes: Iterable[str] = DEFAULT_QUOTES,
    cues: Iterable[str] = DEFAULT_PHRASE_CUES,
    *,
    max_length: int = 40,
) -> list[Phrase]:
    """The requests a description quotes as what users say: quoted text (2..``max_length``
    characters) in a sentence where a cue (说, 例如, “such as” …) stands before it, or that
    follows another such quote (“做成图文”“换个配色”). A quoted name or term with no cue before
    it (“内容库”) is no request."""
    pairs = [(q[0], q[-1]) for q in quotes if q]
    cue_list = [c.casefold() for c in cues if c]
    found: list[Phrase] = []
    for open_q, close_q in pairs:
        i = 0
        while True:
            start = description.find(open_q, i)
            if start < 0:
                break
            end = description.find(close_q, start + 1)
            if end < 0:
                break
            inner = description[start + 1 : end]
            i = end + 1
            if "\n" in inner.strip() or not (2 <= len(inner.strip()) <= max_length):
                continue
            sentence_start = max(
                (m.end() for m in _SENTENCE.finditer(description, 0, start)), default=0
            )
            before = description[sentence_start:start].casefold()
            if not any(c in before for c in cue_list):
                continue
            lead = len(inner) - len(inner.lstrip())
            text = inner.strip()
            found.append(Phrase(text, start + 1 + lead, start + 1 + lead + len(text)))
    found.sort(key=lambda p: p.start)
    return found


_SENTENCE = re.compile(r"[。；;！？!?]|\.(?=\s)")
