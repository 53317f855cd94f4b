"""MkDocs glue: runs the engine once per build and turns its results into page Markdown."""
