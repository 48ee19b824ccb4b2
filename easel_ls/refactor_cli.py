"""`easel-ls rename-option` and `easel-ls references`: the graph's rename and references on the
command line, computed by the same services the language server answers with.

    easel-ls rename-option SCRIPT OLD NEW [--dry-run]
    easel-ls references FILE:LINE[:COLUMN] [--output-format text|json]

Files are rewritten atomically and byte for byte outside the renamed spans: a BOM, CRLF line
ends and everything else stay as they were. A file changed on disk since it was read is left
alone and reported.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from easel_ls.findings import Position
from easel_ls.fixes import apply_edits, atomic_write_bytes, unified_diff
from easel_ls.model.text import TextDocument
from easel_ls.workspace import Workspace

EXIT_OK, EXIT_REFUSED = 0, 2
_BOM = b"\xef\xbb\xbf"


def rename_option_main(argv: Sequence[str], prog: str = "easel-ls rename-option") -> int:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Rename an option (or a subcommand) of a skill script, in the script and in "
        "every SKILL.md and reference that documents it.",
    )
    parser.add_argument(
        "script",
        help="the script that defines the option; SCRIPT:LINE picks one definition when the "
        "name is defined more than once (each subcommand its own `--topic`)",
    )
    parser.add_argument("old", help="the option string (`--topic`) or subcommand name")
    parser.add_argument("new", help="the new option string or subcommand name")
    parser.add_argument(
        "--dry-run", action="store_true", help="print the change as a diff, write nothing"
    )
    parser.add_argument("--config", type=Path, help="use this config file")
    args = parser.parse_args(_options_first(list(argv), flags={"--dry-run"}, valued={"--config"}))
    from easel_ls.services.refactor import RenameRefused, find_definition, rename_symbol

    script_text, line = args.script, None
    if not Path(script_text).is_file():
        located = _location(script_text)
        if located is not None and located[2] is None:
            script_text, line = str(located[0]), located[1]
    script = Path(script_text).resolve()
    if not script.is_file():
        return _refuse(f"{script_text} is not a file")
    if script.suffix != ".py":
        return _refuse(f"{script_text} is not a Python script: options are defined in a .py file")
    ws = _workspace(script, args.config)
    try:
        symbol = find_definition(ws, script, args.old, line)
        change = rename_symbol(ws, symbol, args.new)
    except RenameRefused as refused:
        return _refuse(str(refused))
    edits = change.sorted_edits()
    planned = []
    for path, file_edits in edits.items():
        raw = path.read_bytes()
        bom = raw.startswith(_BOM)
        before = raw[len(_BOM) :].decode("utf-8") if bom else raw.decode("utf-8")
        known = ws.text_of(path)
        if known is not None and known != before:
            return _refuse(f"{ws.rel(path)} changed while the rename was computed; run it again")
        after = apply_edits(TextDocument(path, before), file_edits)
        planned.append((path, raw, bom, before, after))
    count = sum(len(e) for e in edits.values())
    if args.dry_run:
        from easel_ls.fixes import FileChange

        for path, _raw, _bom, before, after in planned:
            sys.stdout.write(unified_diff(FileChange(path, before, after), ws.rel(path)))
        print(
            f"Would rename `{args.old}` to `{args.new}`: {_edits(count)} in {_files(len(planned))}."
        )
        return EXIT_OK
    skipped = []
    for path, raw, bom, _before, after in planned:
        if path.read_bytes() != raw:  # changed since it was read: never lose that change
            skipped.append(path)
            continue
        atomic_write_bytes(path, (_BOM if bom else b"") + after.encode("utf-8"))
    written = len(planned) - len(skipped)
    print(f"Renamed `{args.old}` to `{args.new}`: {_edits(count)} in {_files(written)}.")
    for path in skipped:
        print(f"{ws.rel(path)}: changed on disk meanwhile, left alone", file=sys.stderr)
    return EXIT_REFUSED if skipped else EXIT_OK


def references_main(argv: Sequence[str], prog: str = "easel-ls references") -> int:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="List where an option, subcommand, file or skill is used: the definition "
        "first, then every documented command word, link or mention.",
    )
    parser.add_argument(
        "location",
        help="FILE:LINE (every definition on that line of a script) or FILE:LINE:COLUMN, 1-based",
    )
    parser.add_argument("--output-format", choices=("text", "json"), default="text")
    parser.add_argument(
        "--no-declaration", action="store_true", help="leave the definition itself out"
    )
    parser.add_argument("--config", type=Path, help="use this config file")
    args = parser.parse_args(list(argv))
    from easel_ls.services import graph

    parsed = _location(args.location)
    if parsed is None:
        return _refuse(f"`{args.location}` is not FILE:LINE or FILE:LINE:COLUMN")
    file, line, column = parsed
    path = file.resolve()
    if not path.is_file():
        return _refuse(f"{file} is not a file")
    ws = _workspace(path, args.config)
    doc = ws.read(path).doc
    if doc is None:
        return _refuse(f"{file} cannot be read")
    if line >= doc.line_count:
        return _refuse(f"{file} has {doc.line_count} lines")
    if column is not None:
        places = graph.references(
            ws, doc, Position(line, column), include_declaration=not args.no_declaration
        )
    elif path.suffix != ".py":
        return _refuse(f"{file} is not a script: give a column, {file}:{line + 1}:COLUMN")
    else:
        places = []
        for definition in graph.script_definitions(ws, path):
            if definition.target.line != line:
                continue
            for name in definition.literals or {definition.names[0]: definition.call}:
                symbol = graph.Symbol(
                    definition.target.kind,
                    definition.literals.get(name, definition.call),
                    name,
                    definition,
                )
                places.extend(graph.references_of(ws, symbol, not args.no_declaration))
        if not places and not graph.script_definitions(ws, path):
            return _refuse(f"{file}:{line + 1}: no option or subcommand is defined there")
    if not places:
        return _refuse(f"{args.location}: nothing the graph knows is there")
    rows = []
    for place in places:
        target = ws.read(place.path).doc
        text = target.line_text(place.range.start.line).strip() if target else ""
        rows.append(
            {
                "path": ws.rel(place.path),
                "line": place.range.start.line + 1,
                "column": place.range.start.character + 1,
                "end_line": place.range.end.line + 1,
                "end_column": place.range.end.character + 1,
                "text": text,
            }
        )
    if args.output_format == "json":
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        for row in rows:
            print(f"{row['path']}:{row['line']}:{row['column']}: {row['text']}")
    return EXIT_OK


def _options_first(argv: list[str], flags: set[str], valued: set[str]) -> list[str]:
    """OLD and NEW are option strings themselves (`--topic`): only our own options are read
    as options, every other word is an operand (as if after `--`)."""
    options: list[str] = []
    operands: list[str] = []
    words = iter(argv)
    for word in words:
        if word in ("-h", "--help") or word in flags:
            options.append(word)
        elif word in valued:
            options.extend([word, next(words, "")])
        elif word.split("=", 1)[0] in valued and "=" in word:
            options.append(word)
        elif word == "--":
            operands.extend(words)
        else:
            operands.append(word)
    return [*options, "--", *operands]


def _location(text: str) -> tuple[Path, int, int | None] | None:
    parts = text.rsplit(":", 2)
    numbers: list[int] = []
    while len(parts) > 1 and parts[-1].isdigit() and len(numbers) < 2:
        numbers.insert(0, int(parts.pop()))
    if not numbers or numbers[0] < 1:
        return None
    file = Path(":".join(parts))
    column = numbers[1] - 1 if len(numbers) == 2 else None
    return file, numbers[0] - 1, column


def _workspace(path: Path, config: Path | None) -> Workspace:
    from easel_ls.config import ConfigResolver
    from easel_ls.workspace import find_root

    return Workspace(root=find_root(path), config=ConfigResolver(config))


def _refuse(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_REFUSED


def _edits(n: int) -> str:
    return f"{n} edit" + ("" if n == 1 else "s")


def _files(n: int) -> str:
    return f"{n} file" + ("" if n == 1 else "s")
