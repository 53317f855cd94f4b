"""python -m torchnotes.generators.pdf: print the built site as one PDF book per language."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from torchnotes.errors import NotebookError
from torchnotes.generators.pdf import build


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m torchnotes.generators.pdf", description=__doc__)
    parser.add_argument("--config", type=Path, default=Path("mkdocs.yml"), help="the site's mkdocs.yml")
    parser.add_argument("--site", type=Path, default=Path("site"), help="the built site (mkdocs build)")
    parser.add_argument("--out", type=Path, help="where the PDFs go (default: SITE/pdf, published with the site)")
    parser.add_argument("--lang", action="append", help="one language (repeatable; default: every language)")
    args = parser.parse_args(argv)
    try:
        build(args.config, args.site, args.out or args.site / "pdf", args.lang)
    except NotebookError as error:
        print(f"error: {error.message}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
