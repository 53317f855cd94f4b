"""Import a sphinx-gallery tutorial (the format of the official PyTorch tutorials) as a page pair.

    .venv/bin/python scripts/import_tutorial.py beginner/tensor_tutorial.py tensors/tutorial

jupytext reads the .py file; the reStructuredText of its text cells becomes Markdown (math, links,
inline code, notes and warnings as admonitions, headings); the `%matplotlib` magic is dropped. The zh
page is the same text with the "to translate" marker, which `python -m torchnotes check` reports until a
translator removes it. Nav entry and paired notebooks are written as by scripts/new_page.py.
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from pathlib import Path

import jupytext
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from new_page import ROOT, add_to_nav  # noqa: E402

from torchnotes.checks import TRANSLATE_MARKER, sync_pairs  # noqa: E402

ADMONITIONS = {"note": "note", "warning": "warning", "tip": "tip", "hint": "tip", "important": "info",
               "caution": "warning", "attention": "warning", "danger": "danger", "seealso": "info"}
CONSOLE = {"bash", "sh", "shell", "console"}
SHOWN = {"cpp", "cmake", "yaml", "text"}
ZH_NOTICE = """!!! info "本页尚未翻译"
    下面仍是英文原文。翻译完成后，请删除本说明和上一行的标记。"""
_DIRECTIVE = re.compile(r"\.\. ([\w-]+)::\s*(.*)$")
_TARGET = re.compile(r"\.\. _([^:]+):\s*(\S*)\s*$")
_ADORNMENT = re.compile(r"([=\-~^\"'`#*+:.<>_])\1+$")


class TutorialImportError(Exception):
    """A construct the importer cannot convert; the message names the file, the line and what to do."""


def inline(text: str, targets: dict[str, str]) -> str:
    """Inline reStructuredText -> Markdown: ``code``, :math:, roles and links."""
    codes: list[str] = []

    def keep(code: str) -> str:
        codes.append(code)
        return f"\0{len(codes) - 1}\0"

    text = re.sub(r"``(.+?)``", lambda m: keep(f"`{m.group(1)}`"), text)
    text = re.sub(r":math:`(.+?)`", lambda m: keep(f"${m.group(1)}$"), text)
    text = re.sub(r":(?:ref|doc):`([^`<]+?)\s*<[^`>]+>`", r"\1", text)
    text = re.sub(r":(?:ref|doc):`([^`]+)`", r"\1", text)
    text = re.sub(r":(?:py:)?(?:func|class|meth|attr|mod|data|obj|exc):`~?([^`]+)`", lambda m: keep(f"`{m.group(1)}`"), text)
    text = re.sub(r"`([^`<]+?)\s*<([^`>]+)>`__?", r"[\1](\2)", text)
    text = re.sub(r"`([^`]+)`__?", lambda m: f"[{m.group(1)}]({targets[m.group(1)]})"
                  if m.group(1) in targets else m.group(0), text)
    return re.sub(r"\0(\d+)\0", lambda m: codes[int(m.group(1))], text)


def _block(lines: list[str], start: int) -> int:
    """Index just past the indented block (blank lines included) that starts at `start`."""
    end = start
    while end < len(lines) and (not lines[end].strip() or lines[end].startswith((" ", "\t"))):
        end += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return end


def _fence(lang: str) -> str:
    lang = lang.strip().lower()
    if lang in CONSOLE:
        return "```console"
    if lang in ("python", "py"):
        return '```python tags=["skip-execution"]'
    return f"```{lang}" if lang in SHOWN else "```text"


def rst_to_markdown(text: str, styles: list[str], targets: dict[str, str], where: str) -> str:
    """One text cell. `styles` (heading adornments in order of first use) is shared across cells."""
    lines = text.split("\n")
    for line in lines:
        found = _TARGET.match(line.strip())
        if found and found.group(2):
            targets[found.group(1)] = found.group(2)
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if _TARGET.match(stripped):
            i += 1
            continue
        directive = _DIRECTIVE.match(stripped) if not line.startswith(" ") else None
        if directive:
            name, argument = directive.groups()
            end = _block(lines, i + 1)
            body = textwrap.dedent("\n".join(lines[i + 1:end])).strip("\n")
            if name == "math":
                out += ["$$", (argument + "\n" + body).strip(), "$$"]
            elif name in ADMONITIONS:
                inner = rst_to_markdown((argument + "\n" + body).strip(), styles, targets, where)
                title = ' "See also"' if name == "seealso" else ""
                out.append(f"!!! {ADMONITIONS[name]}{title}")
                out += [("    " + x) if x.strip() else "" for x in inner.split("\n")]
            elif name in ("code-block", "code", "sourcecode"):
                body = "\n".join(x for x in body.split("\n") if not x.strip().startswith(":"))
                out += [_fence(argument), body.strip("\n"), "```"]
            else:
                raise TutorialImportError(
                    f"{where}: the '.. {name}::' directive has no Markdown equivalent here; "
                    f"rewrite it by hand in the .py file (or remove it) and import again")
            i = end
            continue
        if stripped.startswith(".. "):  # a comment, with its indented continuation
            i = _block(lines, i + 1)
            continue
        over = _ADORNMENT.match(stripped) and i + 2 < len(lines) and lines[i + 2].strip() == stripped
        if over or (stripped and _ADORNMENT.match(nxt.strip()) and len(nxt.strip()) >= len(stripped)):
            title, style = (nxt.strip(), "over" + stripped[0]) if over else (stripped, nxt.strip()[0])
            if style not in styles:
                styles.append(style)
            level = styles.index(style) + 1
            if level == 1 and any(x.startswith("# ") for x in out):
                raise TutorialImportError(f"{where}: a second top-level title '{title}'; a page has one title")
            out.append("#" * level + " " + inline(title, targets))
            i += 3 if over else 2
            continue
        if stripped.endswith("::") and i + 2 < len(lines) and not lines[i + 1].strip() and lines[i + 2].startswith(" "):
            end = _block(lines, i + 1)
            prose = line.rstrip()[:-1].rstrip()
            if prose.strip() and prose.strip() != ":":
                out += [inline(prose, targets), ""]
            out += ["```text", textwrap.dedent("\n".join(lines[i + 1:end])).strip("\n"), "```"]
            i = end
            continue
        out.append(inline(line, targets))
        i += 1
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n")


def clean_code(source: str) -> str:
    """Drop IPython magics (`%matplotlib inline`) and sphinx-gallery's configuration comments."""
    kept = [x for x in source.split("\n") if not x.lstrip().startswith(("%", "# sphinx_gallery_"))]
    return "\n".join(kept).strip("\n")


def convert(path: Path) -> tuple[str, str, str]:
    """(title, description, Markdown body starting with the H1) of a sphinx-gallery file."""
    notebook = jupytext.read(path, fmt="py:sphinx")
    styles: list[str] = []
    targets: dict[str, str] = {}
    parts = []
    for number, cell in enumerate(notebook.cells, 1):
        if cell.cell_type == "code":
            code = clean_code(cell.source)
            if code:
                parts.append(f"```python\n{code}\n```")
        else:
            parts.append(rst_to_markdown(cell.source, styles, targets, f"{path} (text cell {number})"))
    body = "\n\n".join(p for p in parts if p.strip()) + "\n"
    title = re.search(r"^# (.+)$", body, flags=re.M)
    if title is None:
        raise TutorialImportError(f"{path}: no title (an underlined heading) in the first text cell")
    after = body[title.end():].strip().split("\n\n")
    paragraph = next((p for p in after if p and not p.startswith(("#", "```", "!!!", "$$"))), title.group(1))
    sentence = re.split(r"(?<=[.!?])\s", " ".join(paragraph.split()), maxsplit=1)[0]
    return title.group(1), sentence, body


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
    try:
        title, description, body = convert(args.source)
    except TutorialImportError as error:
        print(f"import failed: {error}", file=sys.stderr)
        return 1
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
