"""Cells the build makes itself, from cells of pages already read and checked."""

from __future__ import annotations

import nbformat


def new_cell(cell_type: str, source: str, cell_id: str, metadata: dict | None = None) -> nbformat.NotebookNode:
    """A cell as nbformat.v4's new_code_cell / new_markdown_cell make it, without their check against the notebook
    schema: half a millisecond a cell, for thousands of cells a build makes from cells already checked when their
    page was read (the kernel's notebook, the page's script)."""
    cell = nbformat.NotebookNode(cell_type=cell_type, id=cell_id, metadata=nbformat.NotebookNode(metadata or {}),
                                 source=source)
    if cell_type == "code":
        cell.update(execution_count=None, outputs=[])
    return cell
