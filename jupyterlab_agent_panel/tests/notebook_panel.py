"""The panel's side of the notebook tools (docs/protocol.md §12), played by the tests.

``NotebookPanel`` answers a notebook tool's action request the way the
browser does: it runs the tool on its notebooks (in memory; ``run_cell`` runs
the source with ``exec``) after the test's review of a mutating call, and
builds the ``respond`` decision whose message is the result JSON of docs/protocol.md §12.5.
It is the executable form of that section: the results here are the shapes
the browser sends.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import traceback
from dataclasses import dataclass, field
from typing import Any, Optional, Union

from jupyterlab_agent_panel.tools.notebook import MARKER_KEY, NOTEBOOK_TOOL_VERSION

APPLY = "apply"


def source_fingerprint(source: str) -> str:
    """Any value the panel derives from the source alone will do; the agent only quotes it back."""
    return "sha256:" + hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@dataclass
class Cell:
    cell_id: str
    source: str
    cell_type: str = "code"
    outputs: list = field(default_factory=list)
    execution_count: Optional[int] = None


def image_output(data: str, mime_type: str = "image/png") -> dict:
    """A plot as a result shows it: its text left out (docs/protocol.md §12.5); the bytes go in ``images``."""
    return {"output_type": "display_data", "data": {mime_type: f"omitted ({len(data)} characters)"}, "_image": data}


@dataclass
class Notebook:
    path: str
    cells: list[Cell]
    dirty: bool = False
    kernel: dict = field(default_factory=lambda: {"name": "python3", "display_name": "Python 3", "status": "idle"})
    executions: int = 0


def error_output(ename: str, evalue: str, traceback_text: str = "") -> dict:
    return {"output_type": "error", "ename": ename, "evalue": evalue, "traceback": traceback_text}


def stream_output(text: str, name: str = "stdout") -> dict:
    return {"output_type": "stream", "name": name, "text": text}


class NotebookPanel:
    """Open notebooks, the active one and its active cell; answers notebook tool calls."""

    def __init__(self, notebooks: list[Notebook], active_path: str, active_index: int = 0, selected_text: str = ""):
        self.notebooks = {notebook.path: notebook for notebook in notebooks}
        self.active_path = active_path
        self.active_index = active_index
        self.selected_text = selected_text
        self.calls: list[dict] = []  # every action request answered, in order
        self._new_ids = 0

    # -- the convention ------------------------------------------------------

    @staticmethod
    def is_notebook_tool(request: Any) -> bool:
        marker = request.get(MARKER_KEY) if isinstance(request, dict) else None
        return isinstance(marker, dict) and marker.get("notebook_tool") == NOTEBOOK_TOOL_VERSION

    def decisions(self, interrupt: dict, review: Union[str, tuple] = APPLY) -> list[dict]:
        """One decision per action request of an interrupt frame's payload.

        ``review`` answers a mutating call: ``"apply"``, ``("edit", source)``
        or ``("reject", reason)``, or a dict of those by tool name (``"apply"``
        for the others). A read call always runs.
        """
        decisions = []
        for request in interrupt["action_requests"]:
            assert self.is_notebook_tool(request), request
            assert interrupt["allowed_decisions"] == ["reject", "respond"], interrupt
            self.calls.append(request)
            name = request["name"]
            verdict = review.get(name, APPLY) if isinstance(review, dict) else review
            result = self.run(name, request["args"], verdict if request[MARKER_KEY]["mutates"] else APPLY)
            decisions.append({"type": "respond", "message": json.dumps(result)})
        return decisions

    def called(self) -> list[str]:
        """The names of the calls answered so far."""
        return [request["name"] for request in self.calls]

    def run(self, name: str, args: dict, review: Union[str, tuple] = APPLY) -> dict:
        if isinstance(review, tuple) and review[0] == "reject":
            return {"status": "rejected", "reason": review[1] or None}
        edited = review[1] if isinstance(review, tuple) and review[0] == "edit" else None
        try:
            return getattr(self, name)(edited=edited, **args)
        except ToolError as error:
            return {"status": "error", "code": error.code, "error": str(error)}

    # -- the eight tools -----------------------------------------------------

    def list_notebooks(self, edited=None) -> dict:
        return {
            "status": "ok",
            "notebooks": [
                {
                    "path": notebook.path,
                    "active": notebook.path == self.active_path,
                    "unsaved_changes": notebook.dirty,
                    "cell_count": len(notebook.cells),
                    "kernel": notebook.kernel,
                }
                for notebook in self.notebooks.values()
            ],
        }

    def read_notebook(self, path=None, start_index=0, max_cells=50, include_outputs=True, edited=None) -> dict:
        notebook = self._notebook(path)
        shown = notebook.cells[start_index : start_index + max_cells]
        return {
            "status": "ok",
            "path": notebook.path,
            "cell_count": len(notebook.cells),
            "cells": [self._cell_json(notebook, cell, include_outputs) for cell in shown],
        }

    def read_cell(self, path=None, cell_id=None, index=None, edited=None) -> dict:
        notebook = self._notebook(path)
        if cell_id is None:
            if index >= len(notebook.cells):
                raise ToolError("not_found", f"{notebook.path} has {len(notebook.cells)} cells, no cell {index}")
            cell = notebook.cells[index]
        else:
            cell = self._cell(notebook, cell_id)
        return with_images({"status": "ok", "path": notebook.path, **self._cell_json(notebook, cell, True)}, cell)

    def get_active_cell(self, edited=None) -> dict:
        notebook = self._notebook(None)
        cell = notebook.cells[self.active_index]
        return {
            "status": "ok",
            "path": notebook.path,
            "cell_id": cell.cell_id,
            "index": self.active_index,
            "cell_type": cell.cell_type,
            "selected_text": self.selected_text,
        }

    def insert_cell(self, source, cell_type="code", path=None, index=None, after_cell_id=None, edited=None) -> dict:
        notebook = self._notebook(path)
        if after_cell_id is not None:
            index = notebook.cells.index(self._cell(notebook, after_cell_id)) + 1
        elif index is None:
            index = len(notebook.cells)
        elif index > len(notebook.cells):
            count = len(notebook.cells)
            raise ToolError("not_found", f"{notebook.path} has {count} cells: index {index} is past the end")
        self._new_ids += 1
        cell = Cell(f"new-{self._new_ids}", source if edited is None else edited, cell_type)
        notebook.cells.insert(index, cell)
        notebook.dirty = True
        return {
            "status": "applied",
            "path": notebook.path,
            "cell_id": cell.cell_id,
            "index": index,
            "cell_type": cell_type,
            "source": cell.source,
            "fingerprint": source_fingerprint(cell.source),
            "edited_by_user": edited is not None,
        }

    def edit_cell(self, cell_id, fingerprint, source, path=None, edited=None) -> dict:
        notebook = self._notebook(path)
        cell = self._fresh_cell(notebook, cell_id, fingerprint)
        cell.source = source if edited is None else edited
        notebook.dirty = True
        return {
            "status": "applied",
            "path": notebook.path,
            "cell_id": cell_id,
            "index": notebook.cells.index(cell),
            "source": cell.source,
            "fingerprint": source_fingerprint(cell.source),
            "edited_by_user": edited is not None,
        }

    def delete_cell(self, cell_id, fingerprint, path=None, edited=None) -> dict:
        notebook = self._notebook(path)
        cell = self._fresh_cell(notebook, cell_id, fingerprint)
        index = notebook.cells.index(cell)
        del notebook.cells[index]
        notebook.dirty = True
        return {"status": "applied", "path": notebook.path, "cell_id": cell_id, "index": index, "source": cell.source}

    def run_cell(self, cell_id, path=None, timeout_seconds=60, edited=None) -> dict:
        notebook = self._notebook(path)
        cell = self._cell(notebook, cell_id)
        if cell.cell_type != "code":
            raise ToolError("not_code", f"cell {cell_id} is a {cell.cell_type} cell: only code cells run")
        if edited is not None:
            cell.source = edited
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            try:
                exec(cell.source, {})  # the test's own cell sources
                raised = None
            except Exception as exc:  # the cell's error is its output
                raised = error_output(type(exc).__name__, str(exc), traceback.format_exc())
        notebook.executions += 1
        cell.execution_count = notebook.executions
        text = printed.getvalue()
        cell.outputs = ([stream_output(text)] if text else []) + ([raised] if raised else [])
        result = {
            "status": "ok",
            "path": notebook.path,
            "cell_id": cell_id,
            "index": notebook.cells.index(cell),
            "execution_count": cell.execution_count,
            "execution_status": "error" if raised else "ok",
            "outputs": cell.outputs,
            "source": cell.source,
            "edited_by_user": edited is not None,
        }
        return with_images(result, cell)

    # -- lookups -------------------------------------------------------------

    def _notebook(self, path: Optional[str]) -> Notebook:
        notebook = self.notebooks.get(self.active_path if path is None else path)
        if notebook is None:
            raise ToolError("no_notebook", f"no open notebook has the path {path!r}")
        return notebook

    @staticmethod
    def _cell(notebook: Notebook, cell_id: str) -> Cell:
        for cell in notebook.cells:
            if cell.cell_id == cell_id:
                return cell
        raise ToolError("not_found", f"{notebook.path} has no cell {cell_id}")

    def _fresh_cell(self, notebook: Notebook, cell_id: str, quoted: str) -> Cell:
        cell = self._cell(notebook, cell_id)
        if source_fingerprint(cell.source) != quoted:
            raise ToolError("stale", f"cell {cell_id} changed since you read it: read it again")
        return cell

    @staticmethod
    def _cell_json(notebook: Notebook, cell: Cell, include_outputs: bool) -> dict:
        summary = {
            "index": notebook.cells.index(cell),
            "cell_id": cell.cell_id,
            "cell_type": cell.cell_type,
            "source": cell.source,
            "source_length": len(cell.source),
            "fingerprint": source_fingerprint(cell.source),
        }
        if cell.cell_type == "code":
            summary["execution_count"] = cell.execution_count
            if include_outputs:
                summary["outputs"] = [{k: v for k, v in o.items() if k != "_image"} for o in cell.outputs]
        return summary


def with_images(result: dict, cell: Cell) -> dict:
    """``read_cell``'s and ``run_cell``'s ``images`` (docs/protocol.md §16.7): the cell's image outputs, at most 4."""
    images = [
        {"mime_type": next(iter(o["data"])), "data": o["_image"], "output_index": i}
        for i, o in enumerate(cell.outputs)
        if "_image" in o
    ]
    return {**result, "images": images[:4]} if images else result


class ToolError(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def analysis_panel() -> NotebookPanel:
    """Two open notebooks; the active cell of ``analysis.ipynb`` failed on a misspelt ``print``."""
    return NotebookPanel(
        [
            Notebook(
                "analysis.ipynb",
                [
                    Cell("c-1", "import math"),
                    Cell("c-2", 'prnt("hi")', outputs=[error_output("NameError", "name 'prnt' is not defined")]),
                    Cell("c-3", "# Notes", cell_type="markdown"),
                ],
            ),
            Notebook("other.ipynb", [Cell("o-1", "x = 1")]),
        ],
        active_path="analysis.ipynb",
        active_index=1,
        selected_text="prnt",
    )
