"""The MkDocs adapter: publish the pages (torchnotes.publish.tree), then let MkDocs, Material and mkdocs-static-i18n
build the published tree as they build any Markdown.

What it may touch: MkDocs' documented plugin events and what they hand over (the config in on_config, the
Markdown, HTML and template context a page event returns, the Jinja environment in on_env, a page's front
matter), Python-Markdown's public extension API (processors, its HTML stash, the toc extension's toc_tokens),
Material's documented options and front matter (`search: exclude`), and jieba's public functions.

What it may not: replace a method of a MkDocs or Material object, write an attribute their documented API does
not offer, read or write a `_private` name of theirs, or replay their logs. Any patch release of MkDocs or
Material may change those without notice, and a build that still passes would then be silently wrong.
"""
