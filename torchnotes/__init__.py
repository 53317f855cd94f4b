"""PyTorch Notes build tools: execute pages as notebooks, cache the results, render them.

The engine (pages, environment, cache, execute, engine, checks, render) knows nothing of MkDocs;
``torchnotes.generators.mkdocs`` is the thin glue that turns its results into pages.
"""

__version__ = "0.1.0"
