"""Findings and fixes <-> lsprotocol types. Positions go through pygls's negotiated codec."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.uris import from_fs_path
from pygls.workspace.position_codec import PositionCodec

from easel_ls.findings import Finding, Fix, Position, Range

SOURCE = "easel-ls"


def uri_of(path: Path) -> str:
    return from_fs_path(str(path)) or path.as_uri()


class Converter:
    def __init__(self, codec: PositionCodec, lines_of: Any) -> None:
        self.codec = codec
        self.lines_of = lines_of  # Path -> list[str] (current text, for UTF-16 columns)

    def position(
        self, path: Path, pos: Position, lines: Sequence[str] | None = None
    ) -> lsp.Position:
        lines = lines if lines is not None else self.lines_of(path)
        if pos.line >= len(lines):
            return lsp.Position(line=pos.line, character=0)
        if lines[pos.line].isascii():  # one unit per character in every encoding
            return lsp.Position(pos.line, min(pos.character, len(lines[pos.line])))
        return self.codec.position_to_client_units(lines, lsp.Position(pos.line, pos.character))

    def range(self, path: Path, rng: Range, lines: Sequence[str] | None = None) -> lsp.Range:
        lines = lines if lines is not None else self.lines_of(path)
        return lsp.Range(self.position(path, rng.start, lines), self.position(path, rng.end, lines))

    def from_lsp(self, lines: Sequence[str], pos: lsp.Position) -> Position:
        p = self.codec.position_from_client_units(lines, lsp.Position(pos.line, pos.character))
        return Position(p.line, p.character)

    def diagnostic(self, finding: Finding, lines: Sequence[str]) -> lsp.Diagnostic:
        from easel_ls.rules import RULES

        rule = RULES[finding.code]
        related = [
            lsp.DiagnosticRelatedInformation(
                location=lsp.Location(uri=uri_of(loc.path), range=self.range(loc.path, loc.range)),
                message=loc.message or finding.code,
            )
            for loc in finding.related
        ]
        message = finding.message + (f"\n{finding.help}" if finding.help else "")
        tags = [lsp.DiagnosticTag.Unnecessary] if finding.code == "EZ001" else None
        return lsp.Diagnostic(
            range=self.range(finding.path, finding.range, lines),
            message=message,
            severity=lsp.DiagnosticSeverity(int(finding.severity)),
            code=finding.code,
            code_description=lsp.CodeDescription(href=rule.url),
            source=SOURCE,
            related_information=related or None,
            tags=tags,
            # Fixes travel with the diagnostic, as in ruff: code actions need no second pass.
            data={"name": finding.name, "fixes": [self.fix_data(f) for f in finding.fixes]},
        )

    def fix_data(self, fix: Fix) -> dict[str, Any]:
        return {
            "title": fix.title,
            "applicability": fix.applicability.value,
            "edit": self.workspace_edit(fix),
        }

    def workspace_edit(self, fix: Fix) -> dict[str, Any]:
        changes: list[Any] = []
        for create in fix.creates:
            changes.append(
                {"kind": "create", "uri": uri_of(create.path), "options": {"ignoreIfExists": True}}
            )
        by_path: dict[Path, list[dict[str, Any]]] = {}
        for create in fix.creates:
            if create.content:
                by_path.setdefault(create.path, []).append(
                    {"range": _zero_range(), "newText": create.content}
                )
        for edit in fix.edits:
            r = self.range(edit.path, edit.range)
            by_path.setdefault(edit.path, []).append(
                {
                    "range": {
                        "start": {"line": r.start.line, "character": r.start.character},
                        "end": {"line": r.end.line, "character": r.end.character},
                    },
                    "newText": edit.new_text,
                }
            )
        for path, edits in by_path.items():
            changes.append({"textDocument": {"uri": uri_of(path), "version": None}, "edits": edits})
        for rename in fix.renames:
            changes.append(
                {
                    "kind": "rename",
                    "oldUri": uri_of(rename.old_path),
                    "newUri": uri_of(rename.new_path),
                }
            )
        return {"documentChanges": changes}


def _zero_range() -> dict[str, Any]:
    return {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
