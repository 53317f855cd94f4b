"""MkDocs hooks of the offline build (mkdocs.offline.yml, which inherits mkdocs.yml): what Material's offline
plugin does, for a site that mkdocs-static-i18n builds in two languages.

Material's offline plugin is not used: it adds iframe-worker from unpkg.com (the site requests nothing from other
hosts), and it turns site/search/search_index.json into a script before torchnotes' plugin has split that merged
index into one packed index per language root (its on_post_build runs at -100, torchnotes' at -200).
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from torchnotes.generators.offline import tree


def on_config(config):
    # Pages as .../page.html: a folder URL does not open its index.html from disk.
    if config.use_directory_urls:
        raise PluginError("offline build: set use_directory_urls: false (mkdocs.offline.yml does)")
    polyfills = config.extra.get("polyfills", [])
    if tree.SHIM_TARGET not in polyfills:
        config.extra["polyfills"] = [*polyfills, tree.SHIM_TARGET]
    return config


_MENU_LINK = re.compile(r'<a href="([^"]*)" hreflang="([\w-]+)" class="md-select__link">')
_PAGE_LINK = re.compile(r'<a href="[^"]*" hreflang="([\w-]+)">')


def on_post_page(output, page, config):
    """A link with hreflang in a page's content (a translation's out-of-date notice links the page's English
    original) written for directory URLs ("../tensors/views/") goes where the language menu's link for that language
    goes: mkdocs-static-i18n writes the menu for this build's .html URLs."""
    menu = {lang: href for href, lang in _MENU_LINK.findall(output)}
    return _PAGE_LINK.sub(lambda m: f'<a href="{menu[m.group(1)]}" hreflang="{m.group(1)}">'
                          if m.group(1) in menu else m.group(0), output)


# After torchnotes' plugin (-200) has written each language's packed index.
@event_priority(-300)
def on_post_build(config):
    if getattr(config.plugins.get("i18n"), "building", False):
        return  # mkdocs-static-i18n's build of one more language: the indexes are not written yet
    site = Path(config.site_dir)
    languages = config.plugins["torchnotes"].config.languages
    try:
        tree.drop_server_files(site)
        tree.add_shim(site)
        tree.write_search_scripts(site, languages)
    except tree.OfflineError as error:
        raise PluginError(f"offline build: {error}") from error
