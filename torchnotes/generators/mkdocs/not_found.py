"""The 404 page in the reader's language, as GitHub Pages serves it: one file, /404.html, for every missing address.

mkdocs-static-i18n renders the 404 template once per language (each over the last). GitHub Pages never looks at
/zh/404.html, so a reader who mistypes a /zh/… address would get the English page. The root 404.html therefore
holds every language's page body and a small inline script that writes the one whose folder the address is in
(no request, no CDN; the head, stylesheets and scripts are the same files in every language). Without JavaScript
the English page shows.

Each language's page also gets a language menu that leads to the other languages' home pages: the menu the i18n
plugin leaves on a 404 page points at whichever page it rendered last.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

_MENU_LINK = re.compile(r'(<a href=")[^"]*(" hreflang="([\w-]+)" class="md-select__link">)')
_CONFIG_BASE = re.compile(r'(<script id="__config" type="application/json">\{[^<]*?"base":\s*)"[^"]*"')
_BODY = re.compile(r"<body\b[^>]*>")
_TITLE = re.compile(r"<title>(.*?)</title>", re.S)
_SCRIPT = re.compile(r"<script\b.*?</script>", re.S | re.I)


class NotFoundPageUnexpected(Exception):
    """A language's 404 page lacks what this module rewrites (a Material upgrade changed its markup)."""


def home(base: str, lang: str, default: str) -> str:
    """A language's home page as an absolute path: a 404 page answers at any depth."""
    return base if lang == default else f"{base}{lang}/"


def localised(page: str, lang: str, languages: list[str], base: str) -> str:
    """The page with its language menu on each language's home, and its search (Material's "base") on its own
    language's index, as every other page of that language has (plugin._language_base)."""
    page = _MENU_LINK.sub(lambda m: m.group(1) + home(base, m.group(3), languages[0]) + m.group(2), page)
    if lang != languages[0]:
        page = _CONFIG_BASE.sub(lambda m: m.group(1) + json.dumps(home(base, lang, languages[0])), page, count=1)
    return page


def _split(page: str, lang: str) -> tuple[str, str, str]:
    """(everything up to and with <body …>, the body's content, </body> and after)."""
    opening, end = _BODY.search(page), page.rfind("</body>")
    if opening is None or end < 0:
        raise NotFoundPageUnexpected(f"the {lang} 404 page has no <body>…</body>")
    return page[:opening.end()], page[opening.end():end], page[end:]


def _script_text(value) -> str:
    # Inside <script>: no "</script>" or "<!--" may appear, so every "<" is written as an escape.
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c")


def combined(pages: dict[str, str], languages: list[str], base: str) -> str:
    """The root 404.html: the default language's head, then a script that writes the body of the language whose
    folder the address is in, before the parser goes on (so Material's scripts, written with it, run once, in
    order, as on any page)."""
    default = languages[0]
    head, _, tail = _split(pages[default], default)
    bodies = {lang: _split(page, lang)[1] for lang, page in pages.items()}
    titles = {lang: (m.group(1).strip() if (m := _TITLE.search(page)) else "") for lang, page in pages.items()}
    folders = {lang: home(base, lang, default) for lang in pages if lang != default}
    picker = (
        "<script>\n"
        "  // GitHub Pages answers every missing address with this one file: the page in the address's language.\n"
        "  (function () {\n"
        f"    var bodies = {_script_text(bodies)}, titles = {_script_text(titles)}, folders = {_script_text(folders)}\n"
        f"    var lang = {json.dumps(default)}\n"
        "    for (var other in folders) if (location.pathname.indexOf(folders[other]) === 0) lang = other\n"
        "    document.documentElement.lang = lang\n"
        "    document.title = titles[lang]\n"
        "    document.write(bodies[lang])\n"
        "  })()\n"
        "</script>\n")
    fallback = "<noscript>" + _SCRIPT.sub("", bodies[default]) + "</noscript>\n"
    return head + "\n" + picker + fallback + tail


def write(pages: dict[str, str], site_dir: Path, languages: list[str], base: str) -> None:
    """/404.html for every address, and each other language's page at /<lang>/404.html (a local server, or a host
    that looks for a 404 page in the folder, serves that one)."""
    pages = {lang: localised(page, lang, languages, base) for lang, page in pages.items()}
    for lang, page in pages.items():
        if lang != languages[0] and (site_dir / lang).is_dir():
            (site_dir / lang / "404.html").write_text(page, encoding="utf-8")
    if languages[0] in pages:
        (site_dir / "404.html").write_text(combined(pages, languages, base), encoding="utf-8")
