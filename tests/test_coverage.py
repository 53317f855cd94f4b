"""Every section of every note reaches a page that exists in both languages (CONTENT.md's coverage table)."""

import hashlib
import re
from pathlib import Path

import pytest
import yaml
from helpers import ROOT

SEEDS = ROOT / "tests" / "seeds"
DOCS = ROOT / "docs"


def note_sections(path: Path) -> list[str]:
    """Headings outside code fences, with #s and ** removed, as the coverage files name them."""
    sections, fence = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not fence and match:
            sections.append(match.group(1).strip().strip("*").strip())
    return sections


def manifest() -> dict[str, str]:
    """name -> sha256 of the vendored seed copies (taken from shared/seeds)."""
    return dict(line.split()[::-1] for line in (SEEDS / "SHA256SUMS").read_text().splitlines())


def table() -> list[dict]:
    rows = []
    for file in sorted((ROOT / "tests" / "coverage").glob("*.yml")):
        rows += yaml.safe_load(file.read_text(encoding="utf-8")) or []
    return rows


def test_seed_copies_are_the_originals():
    """The copies match the checksums taken from shared/seeds; where shared/ sits beside the clone (CI), the files too."""
    sums = manifest()
    assert sorted(sums) == sorted(p.name for p in SEEDS.glob("*.txt"))
    for name, digest in sums.items():
        assert hashlib.sha256((SEEDS / name).read_bytes()).hexdigest() == digest, name
    shared = ROOT.parent / "shared" / "seeds"
    originals = sorted(shared.glob("*.txt")) if shared.exists() else []
    for original in originals:
        assert original.read_bytes() == (SEEDS / original.name).read_bytes(), original.name


def test_the_table_covers_exactly_the_five_notes():
    """Parametrised from the manifest, not a glob: a seed copy that goes missing fails instead of dropping out."""
    notes = sorted(name[:3] for name in manifest())
    assert notes == ["000", "001", "002", "003", "004"]
    assert sorted({row["note"] for row in table()}) == notes


@pytest.mark.parametrize("seed", sorted(manifest()))
def test_every_section_is_mapped(seed):
    note = seed[:3]
    mapped = {row["section"] for row in table() if row["note"] == note}
    missing = [s for s in note_sections(SEEDS / seed) if s not in mapped]
    assert missing == [], f"note {note}: sections with no page in tests/coverage/*.yml: {missing}"


def test_mapped_pages_exist_in_both_languages():
    rows = table()
    assert rows
    for row in rows:
        assert row["pages"], row
        for rel in row["pages"]:
            for lang in ("en", "zh"):
                assert (DOCS / lang / rel).exists(), f"{row['note']} '{row['section']}' -> docs/{lang}/{rel} missing"
