"""Scaffold a page in both languages, its paired notebooks and its nav entry.

    .venv/bin/python scripts/new_page.py tensors/einsum "Einstein summation" "爱因斯坦求和" --section Tensors
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from torchnotes.publish.paired import sync_pairs  # noqa: E402

TEMPLATE = {
    "en": """---
title: {title}
description: One sentence on what this page answers.
---

# {title}

One or two sentences: the question this page answers.

## First section

```python
import torch

torch.manual_seed(0)
x = torch.arange(6).view(2, 3)
print(x)
```

## Key points

- ...

## Further reading

- [PyTorch documentation](https://docs.pytorch.org/docs/stable/index.html)
""",
    "zh": """---
title: {title}
description: 用一句话说明本页回答的问题。
---

# {title}

用一两句话说明本页要回答的问题。

## 第一节

```python
import torch

torch.manual_seed(0)
x = torch.arange(6).view(2, 3)
print(x)
```

## 要点

- ...

## 延伸阅读

- [PyTorch 文档](https://docs.pytorch.org/docs/stable/index.html)
""",
}


# The nav section of the site's own pages (the report, the benchmarks, the sources): it stays last.
ABOUT = "About the site"


def add_to_nav(config: Path, section: str, rel: str) -> None:
    """Append `- rel` under the nav section titled `section` (created if absent: before the site's own pages,
    else at the end of nav)."""
    lines = config.read_text(encoding="utf-8").splitlines()
    start = lines.index("nav:")
    header = f"  - {section}:"
    if header in lines[start:]:
        at = lines.index(header, start) + 1
        while at < len(lines) and lines[at].startswith("      - "):
            at += 1
        lines.insert(at, f"      - {rel}")
    else:
        # At the end of the nav block, which need not be the end of the file; lessons before the site's own pages.
        end = start + 1
        while end < len(lines) and (lines[end].startswith(" ") or not lines[end].strip()):
            end += 1
        while not lines[end - 1].strip():
            end -= 1
        about = next((i for i in range(start + 1, end) if lines[i] == f"  - {ABOUT}:"), end)
        lines[about:about] = [header, f"      - {rel}"]
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", help="section/name, without .md (e.g. tensors/einsum)")
    parser.add_argument("title_en")
    parser.add_argument("title_zh")
    parser.add_argument("--section", required=True, help="nav section title in English (e.g. Tensors)")
    parser.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args(argv)
    if not re.fullmatch(r"[a-z0-9-]+(/[a-z0-9-]+)*", args.path):
        parser.error("path: lower-case words with '-' and '/', e.g. tensors/einsum")
    rel = f"{args.path}.md"
    docs = args.root / "docs"
    for lang, title in (("en", args.title_en), ("zh", args.title_zh)):
        target = docs / lang / rel
        if target.exists():
            parser.error(f"{target} exists already")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(TEMPLATE[lang].format(title=title), encoding="utf-8")
        print(f"wrote {target}")
    add_to_nav(args.root / "mkdocs.yml", args.section, rel)
    for path in sync_pairs(docs, args.root / "notebooks", ["en", "zh"]):
        print(f"wrote {path}")
    print(f"added {rel} to nav under '{args.section}'. Preview: bash scripts/serve.sh")
    print(f"once both languages are written: .venv/bin/python -m torchnotes translated docs/zh/{rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
