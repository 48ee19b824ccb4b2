"""How well the routing model sends each skill its own requests, on real repositories.

    python benchmarks/routing_quality.py realworld/owner__repo [...] [--variants]

For every skill whose description quotes trigger phrases (and every `tests/N.prompt`), the share
of its own requests it wins first (top-1) and among the first three (top-3), on the metadata of
every skill of its repository. ``--variants`` measures the alternatives behind the choice in
``docs/routing.md``: CJK unigrams + bigrams (the default), bigrams only, unigrams only, jieba's
word segmentation (when jieba is installed; it is no dependency of easel-ls), and the default
without leaving boundary clauses out.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from easel_ls.model.routing import RoutingIndex, SkillCard, term_texts, trigger_phrases
from easel_ls.rules.routing import routing_state
from easel_ls.workspace import Workspace

Variant = tuple[str, str, Callable[[str], list[str]] | None, bool]


def variants(all_of_them: bool) -> list[Variant]:
    chosen: list[Variant] = [("uni+bi, boundary clauses out", "uni+bi", None, True)]
    if not all_of_them:
        return chosen
    chosen += [
        ("bigrams only", "bi", None, True),
        ("unigrams only", "uni", None, True),
        ("uni+bi, boundary clauses kept", "uni+bi", None, False),
    ]
    try:
        import jieba

        jieba.setLogLevel(60)

        def segment(text: str) -> list[str]:
            words = [w.strip() for w in jieba.lcut(text)]
            latin = [t for t in term_texts(text) if t.isascii() or " " in t]
            return [
                w
                for w in words
                if w and not all(c in "，。、；：！？“”（）,.;:!?()\"' \n" for c in w)
            ] + latin

        chosen.append(("jieba words", "uni+bi", segment, True))
    except ImportError:
        pass
    return chosen


def requests(root: Path) -> tuple[list[SkillCard], list[tuple[str, str, str]], tuple[str, ...]]:
    ws = Workspace.at(root)
    ws.memoise_disk(True)
    settings = ws.settings_for(root)
    cues = tuple(settings.option("boundary-words"))
    state = routing_state(ws, (cues,))
    cards = [SkillCard(n, m.card.description, m.card.layer) for n, m in state.metas.items()]
    asked: list[tuple[str, str, str]] = []
    quotes = tuple(settings.option("trigger-quotes"))
    phrase_cues = tuple(settings.option("trigger-phrase-cues"))
    for name, meta in state.metas.items():
        for phrase in trigger_phrases(meta.card.description, quotes, phrase_cues):
            asked.append(("phrase", phrase.text, name))
        for prompt in sorted((meta.skill.folder / "tests").glob("*.prompt")):
            asked.append(("prompt", prompt.read_text("utf-8", errors="replace").strip(), name))
    return cards, asked, cues


def measure(root: Path, chosen: list[Variant]) -> list[tuple[str, int, int, int, int, int]]:
    cards, asked, cues = requests(root)
    rows = []
    skills_with = len({own for kind, _, own in asked if kind == "phrase"})
    for label, mode, analyzer, blank in chosen:
        index = RoutingIndex.build(
            cards, boundary_cues=cues if blank else (), mode=mode, analyzer=analyzer
        )
        top1 = top3 = 0
        for _, text, own in asked:
            ranking = index.rank(text, top=3, with_words=False)
            names = [h.name for h in ranking.hits]
            top1 += bool(names) and names[0] == own
            top3 += own in names
        rows.append((label, len(cards), skills_with, len(asked), top1, top3))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--variants", action="store_true")
    args = parser.parse_args()
    chosen = variants(args.variants)
    print("| repository | analyzer | skills | quoting skills | requests | top-1 | top-3 |")
    print("|---|---|---:|---:|---:|---:|---:|")
    totals: dict[str, list[int]] = {}
    for folder in args.folders:
        for label, skills, quoting, n, top1, top3 in measure(folder.resolve(), chosen):
            if not n:
                continue
            print(
                f"| {folder.name} | {label} | {skills} | {quoting} | {n} "
                f"| {top1 * 100 / n:.0f} % | {top3 * 100 / n:.0f} % |"
            )
            total = totals.setdefault(label, [0, 0, 0])
            total[0] += n
            total[1] += top1
            total[2] += top3
    for label, (n, top1, top3) in totals.items():
        print(f"| **all** | {label} | | | {n} | {top1 * 100 / n:.0f} % | {top3 * 100 / n:.0f} % |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
