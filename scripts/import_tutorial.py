"""Import a sphinx-gallery tutorial (the format of the official PyTorch tutorials) as a page pair.

    .venv/bin/python scripts/import_tutorial.py ~/tutorials/beginner_source/basics/tensorqs_tutorial.py tutorials/tensors

jupytext splits the .py file into text and code cells; pandoc (pypandoc-binary) converts the text's
reStructuredText (scripts/tutorial_rst.py). Relative links and :ref:/:doc: roles point at the tutorial's
page on docs.pytorch.org (from the file's place in a pytorch/tutorials checkout, or --url), or at this
site's page on the same topic (scripts/tutorial_links.py); each rewrite is printed. A tutorial that imports
a package this project does not install fails here, before a page is written. The tutorial's closing sections
become the page's "Key points" and "Further reading", or stubs to fill in (scripts/tutorial_sections.py). The zh
page is the same text with the "to translate" marker, which `python -m torchnotes check` reports until a
translator removes it. Nav entry and paired notebooks are written as by scripts/new_page.py.

The report: what reading the code finds (scripts/tutorial_code.py: modules used without an import, sketches,
outdated calls), then the page's one run (scripts/tutorial_run.py: every failing cell, every deprecation warning).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import jupytext
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from new_page import ROOT, add_to_nav  # noqa: E402
from tutorial_code import check_imports, read_code  # noqa: E402
from tutorial_links import Links, UnresolvedLink, published_url, relative_link, tutorial_key  # noqa: E402
from tutorial_rst import TutorialImportError, convert_text  # noqa: E402
from tutorial_run import deprecations, run_once  # noqa: E402
from tutorial_sections import FILL_IN, closing_sections  # noqa: E402

from torchnotes.errors import NotebookError  # noqa: E402
from torchnotes.pages.freshness import Ledger  # noqa: E402
from torchnotes.pages.read import read_page  # noqa: E402
from torchnotes.pages.translations import TRANSLATE_MARKER  # noqa: E402
from torchnotes.publish.paired import sync_pairs  # noqa: E402
from torchnotes.settings import load as load_settings  # noqa: E402

CELL = "TORCHNOTESCODECELL{}"  # a code cell's place in the text handed to pandoc: one plain word survives it


def clean_code(source: str) -> str:
    """Drop IPython magics (`%matplotlib inline`) and sphinx-gallery's configuration comments."""
    kept = [x for x in source.split("\n") if not x.lstrip().startswith(("%", "# sphinx_gallery_"))]
    return "\n".join(kept).strip("\n")


def convert(path: Path, links: Links) -> tuple[str, str, str]:
    """(title, description, Markdown body starting with the H1) of a sphinx-gallery file."""
    source = path.read_text(encoding="utf-8")
    # sphinx-gallery takes a raw docstring (r""" for the backslashes of math); jupytext reads only a plain one.
    notebook = jupytext.reads(re.sub(r'\A((?:\s*#.*\n)*\s*)[rR]"""', r'\1"""', source), fmt="py:sphinx")
    code, text = [], []
    for cell in notebook.cells:
        if cell.cell_type == "code":
            kept = clean_code(cell.source)
            if kept:
                code.append(kept)
                text.append(CELL.format(len(code) - 1))
        else:
            text.append(cell.source)
    check_imports(code, str(path))
    body = convert_text("\n\n".join(text) + "\n", links, str(path), source)
    body = re.sub(CELL.format(r"(\d+)"), lambda m: f"```python\n{code[int(m.group(1))]}\n```", body) + "\n"
    # Front matter and nav show the title as plain text, without the id an rST label above it gave it.
    title = re.sub(r"[`*]", "", re.match(r"# (.+?)(?: \{#[^}]*\})?\n", body).group(1))
    after = body.split("\n\n")[1:]
    paragraph = next((p for p in after if p and not p.startswith(("#", "```", "!!!", "$$", "[", "-", "1."))
                      and not about_video(p, links.videos) and not AUTHOR.match(p)), title)
    # The description: the first sentence, up to a full stop before a capital that is not "i.e." or "e.g.".
    plain = re.sub(r"\[([^]]*)\]\([^)]*\)|[*`]", lambda m: m.group(1) or "", " ".join(paragraph.split()))
    sentence = re.split(r"(?<=[.!?])(?<!i\.e\.)(?<!e\.g\.)\s+(?=[A-Z])", plain, maxsplit=1)[0]
    return title, sentence, body


# "**Author**: Szymon Migacz", "Author: ...", "**Authors:** ...": the attribution stays on the page, but it is no
# description of it.
AUTHOR = re.compile(r"^\**(?:Authors?|Translators?|Edited by)\b\**\s*:?\**\s*:?", re.IGNORECASE)


def about_video(paragraph: str, videos: list[str]) -> bool:
    """A paragraph that points at an embedded video ("Follow along with the video below or on youtube."), or
    the video's own link line: no description of the page."""
    if not videos:
        return False
    hosts = ("youtube.com", "youtu.be", "bilibili.com")
    return any(url in paragraph for url in videos) or any(f"{host}/" in paragraph for host in hosts)


def front_matter(title: str, description: str, source: str | None) -> str:
    meta = {"title": title, "description": description} | ({"source": source} if source else {})
    text = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, width=10**6)
    return f"---\n{text}---\n\n"


def zh_twin(body: str) -> str:
    """The English body with the marker right under the title: the site shows the reader a notice there."""
    head, _, rest = body.partition("\n")
    return f"{head}\n\n{TRANSLATE_MARKER}\n{rest}"


def link_back(docs: Path, rel: str, source: str | None, skip: set[Path]) -> list[str]:
    """Pages imported before this one that link to its tutorial on docs.pytorch.org now link to it here."""
    key = tutorial_key(source or "")
    if key is None:
        return []
    done = []
    link = re.compile(r"\]\((https?://(?:docs\.)?pytorch\.org/tutorials/[^)#\s]+)(#[^)\s]*)?\)")
    for lang in ("en", "zh"):
        for page in sorted((docs / lang).rglob("*.md")):
            if page in skip:
                continue
            text = page.read_text(encoding="utf-8")
            here = relative_link(page.relative_to(docs / lang).as_posix(), rel)
            new = link.sub(lambda m, here=here: f"]({here})" if tutorial_key(m.group(1)) == key else m.group(0), text)
            if new != text:
                page.write_text(new, encoding="utf-8")
                done.append(f"{page}: {source} -> {here}")
    return done


def relink(root: Path, docs: Path, rel: str, source: str | None, skip: set[Path]) -> list[str]:
    """link_back, keeping each translation as fresh as it was: a link rewritten in both twins is no change of the
    English prose a translator must follow (translations/ledger.yml)."""
    settings = load_settings(root / "mkdocs.yml")
    ledger = Ledger(root, docs, settings.languages)
    stale = {item.page.resolve() for item in ledger.stale()}
    done = link_back(docs, rel, source, skip)
    changed = {Path(line.split(": ", 1)[0]).resolve() for line in done}
    fresh = [docs / lang / page.relative_to((docs / "en").resolve())
             for page in changed if page.is_relative_to((docs / "en").resolve())
             for lang in settings.languages[1:]
             if (docs / lang / page.relative_to((docs / "en").resolve())).resolve() in changed
             and (docs / lang / page.relative_to((docs / "en").resolve())).resolve() not in stale]
    if fresh and ledger.path.exists():  # a site without a ledger tracks no translation
        ledger.mark(fresh)
    if done:
        sync_pairs(docs, root / "notebooks", ["en", "zh"])
    return done


def nav_translation(config: Path, section: str, zh: str | None) -> str:
    """Give a nav section its Chinese name under the zh language's nav_translations (mkdocs-static-i18n), or say
    how; the line is written into mkdocs.yml as text, so its comments and layout stay."""
    data = yaml.load(config.read_text(encoding="utf-8"), Loader=yaml.BaseLoader) or {}
    plugins = [p["i18n"] for p in data.get("plugins", []) if isinstance(p, dict) and "i18n" in p]
    languages = plugins[0].get("languages", []) if plugins else []
    zh_language = next((lang for lang in languages if lang.get("locale") == "zh"), None)
    if zh_language is None:
        return "nav: the site has no zh language in its i18n plugin; nothing to translate"
    known = zh_language.get("nav_translations") or {}
    if section in known:
        return f"nav: '{section}' is '{known[section]}' in the Chinese navigation"
    if not zh:
        return (f"nav: the section '{section}' has no Chinese name yet: add '{section}: <中文名>' under nav_translations "
                f"of the zh language in {config}, or import with --section-zh <中文名>")
    lines = config.read_text(encoding="utf-8").split("\n")
    start = next(i for i, line in enumerate(lines) if re.fullmatch(r"\s*- locale: zh\s*", line))
    indent = len(lines[start]) - len(lines[start].lstrip()) + 2  # the keys of the zh language's entry
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) >= indent):
        end += 1
    entry = " " * (indent + 2) + yaml.safe_dump({section: zh}, allow_unicode=True, width=10**6).strip()
    block = [i for i in range(start, end) if lines[i].strip() == "nav_translations:"]
    if block:
        at = block[0] + 1
        while at < end and len(lines[at]) - len(lines[at].lstrip()) > indent and lines[at].strip():
            at += 1
        lines.insert(at, entry)
    else:
        while not lines[end - 1].strip():
            end -= 1
        lines[end:end] = [" " * indent + "nav_translations:", entry]
    config.write_text("\n".join(lines), encoding="utf-8")
    return f"nav: '{section}' is '{zh}' in the Chinese navigation (added to {config})"


def nav_section(config: Path, section_dir: str) -> str:
    """The nav title under which pages of `section_dir/` already sit, else the folder name titled."""
    nav = yaml.load(config.read_text(encoding="utf-8"), Loader=yaml.BaseLoader).get("nav", [])
    for item in nav:
        if isinstance(item, dict):
            (name, entries), = item.items()
            if isinstance(entries, list) and any(str(e).startswith(section_dir + "/") for e in entries):
                return name
    return section_dir.replace("-", " ").capitalize()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", type=Path, help="a sphinx-gallery .py file")
    parser.add_argument("path", help="section/name, without .md (e.g. tensors/tutorial)")
    parser.add_argument("--section", help="nav section title (default: the section already holding section/)")
    parser.add_argument("--section-zh", help="the section's name in the Chinese navigation, when it has none yet")
    parser.add_argument("--no-run", action="store_true", help="write the pages without running them once")
    parser.add_argument("--url", help="the tutorial's page on docs.pytorch.org, for its relative links "
                        "(default: from the file's path in a pytorch/tutorials checkout, *_source/...)")
    parser.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args(argv)
    if not re.fullmatch(r"[a-z0-9-]+(/[a-z0-9-]+)+", args.path):
        parser.error("path: section/name in lower-case words with '-', e.g. tensors/tutorial")
    rel = f"{args.path}.md"
    docs = args.root / "docs"
    targets = {lang: docs / lang / rel for lang in ("en", "zh")}
    for target in targets.values():
        if target.exists():
            parser.error(f"{target} exists already")
    source = args.url or published_url(args.source)
    links = Links(source, docs, rel, str(args.source))
    try:
        title, description, body = convert(args.source, links)
    except (TutorialImportError, UnresolvedLink) as error:
        print(f"import failed: {error}", file=sys.stderr)
        return 1
    body, renamed, stubs = closing_sections(body)
    for line in links.rewritten:
        print(f"link: {line}")
    for line in renamed:
        print(f"section: {line}")
    for lang, text in (("en", body), ("zh", zh_twin(body))):
        targets[lang].parent.mkdir(parents=True, exist_ok=True)
        targets[lang].write_text(front_matter(title, description, source) + text, encoding="utf-8")
        print(f"wrote {targets[lang]}")
    for section in stubs:
        print(f"to fill in: the tutorial has no section to make the page's '{section}' from: it is a stub marked "
              f"'{FILL_IN} ...' in {targets['en']} and {targets['zh']}; write it in both")
    config = args.root / "mkdocs.yml"
    section = args.section or nav_section(config, args.path.split("/")[0])
    add_to_nav(config, section, rel)
    print(nav_translation(config, section, args.section_zh))
    written = [*targets.values(), config]
    for path in sync_pairs(docs, args.root / "notebooks", ["en", "zh"]):
        print(f"wrote {path}")
        written.append(path)
    print(f"added {rel} to nav under '{section}'")
    # Read before run: what the code shows however its cells run, each with its fix (the twins' code is the same).
    try:
        problems = read_code(read_page(targets["en"]), shown(args.root, targets["en"]))
    except NotebookError:
        problems = []  # a page that cannot be read: the run names why
    for problem in problems:
        print(problem.message, file=sys.stderr)
    if not args.no_run:
        report = run_once(args.root, list(targets.values()))
        failures = report.failures
        # The twins share their code and so their failures: each is reported once, under the English page.
        for error in {e.details: e for e in reversed(failures)}.values():
            print(error.message, file=sys.stderr)
        for warning in deprecations(report):
            print(warning.message, file=sys.stderr)
        if failures:
            print(f"import: the pages are written, but they do not run on this torch: fix the cells above in both "
                  f"{targets['en']} and {targets['zh']} (the code is the same), then build. The import wrote only "
                  f"these files, and changed no other page: " + ", ".join(str(p) for p in written), file=sys.stderr)
            return 1
        print("ran the page once: every cell runs; its outputs are in the cache")
    # Only a page that runs takes over the links of pages imported before it.
    for line in relink(args.root, docs, rel, source, set(targets.values())):
        print(f"link: {line}")
    if problems:
        print(f"Next: fix the {len(problems)} problem(s) listed above in both pages", file=sys.stderr)
    print(f"Next: translate {targets['zh']} and remove {TRANSLATE_MARKER}; until then the site shows it in English "
          "under a notice")
    return 0


def shown(root: Path, path: Path) -> str:
    """A page's path as the engine's messages show it: from the project's root."""
    path, root = path.resolve(), root.resolve()
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)

if __name__ == "__main__":
    sys.exit(main())
