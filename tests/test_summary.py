"""The pull request's job summary: counts, failures, and the pages whose outputs changed compared with main."""

import json

from torchnotes.cache import Cache
from torchnotes.summary import summary

ENV = {"torch": "2.13.0+cpu", "device": "CPU", "python": "3.11.7"}


def report(path, pages):
    path.write_text(json.dumps({"env": ENV, "kernels": 1, "seconds": 3.0, "pages": pages}))
    return path


def row(page, key, status="cached", error=None):
    return {"page": page, "key": key, "status": status, "error": error}


def out(text):
    return {"outputs": [[{"output_type": "stream", "name": "stdout", "text": text}]]}


def test_changed_outputs_against_main(tmp_path):
    cache = Cache(tmp_path / "cache")
    for key, text in {"a1": "1\n", "b1": "2\n", "b2": "2\n", "c1": "3\n", "c2": "4\n"}.items():
        cache.put(key, out(text))
    main = report(tmp_path / "main.json", [row("a.md", "a1"), row("b.md", "b1"), row("c.md", "c1")])
    pr = report(tmp_path / "pr.json", [
        row("a.md", "a1"),                  # untouched
        row("b.md", "b2", "run"),           # code edited, same output (a comment, a rename)
        row("c.md", "c2", "run"),           # code edited, output changed
        row("d.md", "d1", "run"),           # new page
        row("e.md", "", "failed", "docs/en/e.md:3 (code cell 1): RuntimeError: boom\n  -> fix it"),
    ])
    text = summary(pr, cache, main)
    assert "### Pages: 5 · run 3 · cached 1 · failed 1" in text
    assert "- `docs/en/e.md`" not in text and "- `e.md`: docs/en/e.md:3 (code cell 1): RuntimeError: boom" in text
    changed = text.split("Outputs changed compared with main")[1]
    assert "`c.md`: code cells 1" in changed and "`d.md`: new page" in changed
    assert "`a.md`" not in changed and "`b.md`" not in changed


def test_no_changes(tmp_path):
    cache = Cache(tmp_path / "cache")
    cache.put("a1", out("1\n"))
    same = report(tmp_path / "r.json", [row("a.md", "a1")])
    assert "None: every page shows the same outputs as on main." in summary(same, cache, same)
