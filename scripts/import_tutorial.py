"""Import a sphinx-gallery tutorial (the format of the official PyTorch tutorials) as a page pair.

    .venv/bin/python scripts/import_tutorial.py ~/tutorials/beginner_source/basics/tensorqs_tutorial.py tutorials/tensors

jupytext splits the .py file into text and code cells; pandoc (pypandoc-binary) converts the text's
reStructuredText (scripts/tutorial_rst.py). Relative links and :ref:/:doc: roles point at the tutorial's
page on docs.pytorch.org (from the file's place in a pytorch/tutorials checkout, or --url), or at this
site's page on the same topic (scripts/tutorial_links.py); each rewrite is printed. A tutorial that imports
a package this project does not install fails here, before a page is written. The zh page is the same text
with the "to translate" marker, which `python -m torchnotes check` reports until a translator removes it.
Nav entry and paired notebooks are written as by scripts/new_page.py.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import re
import sys
from pathlib import Path

import jupytext
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from new_page import ROOT, add_to_nav  # noqa: E402
from tutorial_links import Links, UnresolvedLink, published_url  # noqa: E402
from tutorial_rst import TutorialImportError, convert_text  # noqa: E402

from torchnotes.pages.checks import TRANSLATE_MARKER, sync_pairs  # noqa: E402

ZH_NOTICE = """!!! info "本页尚未翻译"
    下面仍是英文原文。翻译完成后，请删除本说明和上一行的标记。"""
CELL = "TORCHNOTESCODECELL{}"  # a code cell's place in the text handed to pandoc: one plain word survives it


class MissingModule(TutorialImportError):
    """The tutorial imports a package this project does not install: its page could never build."""


def clean_code(source: str) -> str:
    """Drop IPython magics (`%matplotlib inline`) and sphinx-gallery's configuration comments."""
    kept = [x for x in source.split("\n") if not x.lstrip().startswith(("%", "# sphinx_gallery_"))]
    return "\n".join(kept).strip("\n")


def check_imports(code: list[str], where: str) -> None:
    """Fail on the first imported top-level module that this interpreter (the build's kernel) cannot find."""
    for number, source in enumerate(code, 1):
        for node in ast.walk(ast.parse(source)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
            for name in names:
                top = name.split(".")[0]
                if top != "__future__" and importlib.util.find_spec(top) is None:
                    raise MissingModule(
                        f"{where} (code cell {number}, line {node.lineno}): imports '{top}', which this project does "
                        f"not install, so the page cannot run. Either add the package to requirements.txt with a "
                        f"pinned version (e.g. {top}==X.Y.Z) and run 'bash scripts/setup.sh', or drop the import "
                        "and the code that uses it from the .py file; then import again.")


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
    paragraph = next((p for p in after if p and not p.startswith(("#", "```", "!!!", "$$", "[", "-", "1."))), title)
    # The description: the first sentence, up to a full stop before a capital that is not "i.e." or "e.g.".
    plain = re.sub(r"\[([^]]*)\]\([^)]*\)|[*`]", lambda m: m.group(1) or "", " ".join(paragraph.split()))
    sentence = re.split(r"(?<=[.!?])(?<!i\.e\.)(?<!e\.g\.)\s+(?=[A-Z])", plain, maxsplit=1)[0]
    return title, sentence, body


def front_matter(title: str, description: str) -> str:
    meta = yaml.safe_dump({"title": title, "description": description}, allow_unicode=True, sort_keys=False, width=10**6)
    return f"---\n{meta}---\n\n"


def zh_twin(body: str) -> str:
    """The English body with the marker and a visible notice right under the title."""
    head, _, rest = body.partition("\n")
    return f"{head}\n\n{TRANSLATE_MARKER}\n\n{ZH_NOTICE}\n{rest}"


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
    links = Links(args.url or published_url(args.source), docs, rel, str(args.source))
    try:
        title, description, body = convert(args.source, links)
    except (TutorialImportError, UnresolvedLink) as error:
        print(f"import failed: {error}", file=sys.stderr)
        return 1
    for line in links.rewritten:
        print(f"link: {line}")
    for lang, text in (("en", body), ("zh", zh_twin(body))):
        targets[lang].parent.mkdir(parents=True, exist_ok=True)
        targets[lang].write_text(front_matter(title, description) + text, encoding="utf-8")
        print(f"wrote {targets[lang]}")
    config = args.root / "mkdocs.yml"
    section = args.section or nav_section(config, args.path.split("/")[0])
    add_to_nav(config, section, rel)
    for path in sync_pairs(docs, args.root / "notebooks", ["en", "zh"]):
        print(f"wrote {path}")
    print(f"added {rel} to nav under '{section}'. Next: translate {targets['zh']} and remove {TRANSLATE_MARKER}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
