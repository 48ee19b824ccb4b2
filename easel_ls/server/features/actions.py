"""Code actions: the fixes that ride in each diagnostic's data, and source.fixAll.easel-ls."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import converters
from lsprotocol import types as lsp

from easel_ls.server.convert import SOURCE

if TYPE_CHECKING:
    from easel_ls.server.app import EaselServer

FIX_ALL_KIND = "source.fixAll.easel-ls"
_converter = converters.get_converter()


def quick_fixes(params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    actions: list[lsp.CodeAction] = []
    for diagnostic in params.context.diagnostics:
        if diagnostic.source != SOURCE or not isinstance(diagnostic.data, dict):
            continue
        for fix in diagnostic.data.get("fixes", []):
            actions.append(
                lsp.CodeAction(
                    title=fix["title"],
                    kind=lsp.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    edit=_converter.structure(fix["edit"], lsp.WorkspaceEdit),
                    is_preferred=fix["applicability"] == "safe",
                )
            )
    return actions


def fix_all(ls: EaselServer, uri: str) -> lsp.CodeAction | None:
    """Every safe fix of the document, non-overlapping, as one edit."""
    from easel_ls.fixes import FixPlan

    plan = FixPlan()
    for finding in ls.findings.get(uri, []):
        for fix in finding.fixes:
            if fix.is_safe and not fix.creates and not fix.renames:
                plan.add(fix)
                break
    doc = ls.document(uri)
    if plan.applied == 0 or doc is None:
        return None
    conv = ls.converter()
    edits = [
        lsp.TextEdit(range=conv.range(e.path, e.range, doc.lines), new_text=e.new_text)
        for edits in plan.edits.values()
        for e in edits
    ]
    return lsp.CodeAction(
        title="easel-ls: fix all safe fixes",
        kind=FIX_ALL_KIND,
        edit=lsp.WorkspaceEdit(changes={uri: edits}),
    )


def register(server: EaselServer) -> None:
    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(
            code_action_kinds=[lsp.CodeActionKind.QuickFix, FIX_ALL_KIND],
            resolve_provider=False,
        ),
    )
    def code_action(ls: EaselServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        only = [str(k) for k in params.context.only or []]
        actions: list[lsp.CodeAction] = []
        if not only or any(k.startswith("quickfix") for k in only):
            actions.extend(quick_fixes(params))
        if any(k in ("source", "source.fixAll", FIX_ALL_KIND) for k in only):
            action = fix_all(ls, params.text_document.uri)
            if action is not None:
                actions.append(action)
        return actions
