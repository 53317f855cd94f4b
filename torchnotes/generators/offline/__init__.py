"""The offline copy of the site: one zip per language that works from file:// (scripts/build_offline.sh).

- hooks.py: MkDocs hooks of mkdocs.offline.yml (what Material's offline plugin does, for two languages);
- tree.py: the search scripts, the iframe-worker shim, and the check that every link and asset opens from disk;
- zips.py: builds, checks and zips (python -m torchnotes offline).
"""
