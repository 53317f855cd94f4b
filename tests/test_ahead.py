"""The fork that converts a cold build's pages ahead (torchnotes/generators/mkdocs/ahead.py): where it starts, where
it stops, and what it says when it fails. The site it helps build is compared with one built without it in
tests/test_kept.py."""

import select
import sys
import time
from types import SimpleNamespace

from torchnotes.generators.mkdocs.ahead import Ahead


class Plugins:
    """MkDocs' plugin collection as the fork calls it: every event hands its value on; Material's search plugin, with
    its options, if the site has search."""

    def __init__(self, search: bool):
        self.search = SimpleNamespace(config=_Options(lang=["en"])) if search else None

    def get(self, name):
        return self.search if name == "material/search" else None

    def on_pre_page(self, page, config, files):
        return page

    def on_page_markdown(self, markdown, page, config, files):
        return markdown

    def on_page_content(self, html, page, config, files):
        return html


class _Options(dict):
    enabled = True


class Page:
    def __init__(self, name: str, log, fail: bool = False, gate=None, begun=None):
        self.file = SimpleNamespace(src_uri=name, page=self)
        self.log, self.fail, self.gate, self.begun = log, fail, gate, begun
        self.markdown = self.content = None

    def read_source(self, config):
        if self.fail:
            raise RuntimeError("no such file")
        self.markdown = "text"

    def render(self, config, files):
        if self.begun is not None:
            self.begun.touch()
        if self.gate is not None:  # held until the test lets it go
            deadline = time.monotonic() + 30
            while not self.gate.exists() and time.monotonic() < deadline:
                time.sleep(0.01)
        with open(self.log, "a", encoding="utf-8") as log:
            log.write(self.file.src_uri + "\n")
        self.content = "<p>text</p>"


class KeptSearch:
    """What the fork asks of kept_search.py: before(page) indexes the page (here: says so in the log)."""

    def __init__(self, log):
        self.log = log
        self.own_index = False

    def before(self, page, options):
        with open(self.log, "a", encoding="utf-8") as log:
            log.write(f"indexed {page.file.src_uri}\n")


def site(pages, search: bool = False):
    config = SimpleNamespace(plugins=Plugins(search))
    files = SimpleNamespace(documentation_pages=lambda: [page.file for page in pages])
    return config, files


def lines(path, count: int) -> list[str]:
    """The log's lines once it has count of them (the fork writes them meanwhile)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if path.exists() and len(path.read_text(encoding="utf-8").splitlines()) >= count:
            break
        time.sleep(0.01)
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


NOTHING_KEPT = SimpleNamespace(kept_count=lambda: 0)


def test_the_fork_converts_from_the_last_page_back_until_this_process_has_begun_one(tmp_path):
    log, gate = tmp_path / "log", tmp_path / "go"
    pages = [Page(name, log, gate=gate if name == "e.md" else None) for name in ("a.md", "b.md", "c.md", "d.md", "e.md")]
    config, files = site(pages)
    ahead = Ahead()
    ahead.start(config, files, NOTHING_KEPT, None)
    assert ahead.pid is not None
    for page in pages[:2]:  # this process begins a.md, then b.md, while the fork is held at e.md
        ahead.begun(page)
    gate.touch()
    assert lines(log, 3) == ["e.md", "d.md", "c.md"]  # then it stops: b.md is begun
    assert ahead.wait() is None
    assert lines(log, 3) == ["e.md", "d.md", "c.md"]


def test_the_fork_then_indexes_the_pages_this_process_converted_until_it_writes_one(tmp_path):
    log, gate = tmp_path / "log", tmp_path / "go"
    pages = [Page(name, log, gate=gate if name == "d.md" else None) for name in ("a.md", "b.md", "c.md", "d.md")]
    config, files = site(pages, search=True)
    ahead = Ahead()
    ahead.start(config, files, NOTHING_KEPT, KeptSearch(log))
    for page in pages[:3]:  # this process has converted a.md and b.md, and begun c.md (the fork is held at d.md)
        ahead.begun(page)
    ahead.writing(pages[0])  # and begun writing a.md
    gate.touch()
    assert lines(log, 4) == ["d.md", "indexed d.md", "b.md", "indexed b.md"]
    assert ahead.wait() is None
    assert lines(log, 4) == ["d.md", "indexed d.md", "b.md", "indexed b.md"]


def test_a_fork_that_fails_says_where_and_why_and_this_process_goes_on(tmp_path, caplog):
    log = tmp_path / "log"
    pages = [Page("a.md", log), Page("b.md", log, fail=True)]
    config, files = site(pages)
    ahead = Ahead()
    ahead.start(config, files, NOTHING_KEPT, None)
    select.select([ahead.said], [], [], 30)  # what it says, or its end: stopped before, it would not have failed
    with caplog.at_level("INFO", logger="mkdocs.plugins.torchnotes"):
        stopped = ahead.wait()
    assert stopped == "the conversions made ahead stopped at b.md: RuntimeError: no such file; this process made the rest"
    assert stopped in caplog.text
    assert not log.exists()  # it converted nothing before it failed


def test_no_fork_when_most_pages_are_kept_or_for_mkdocs_serve(tmp_path, monkeypatch):
    log = tmp_path / "log"
    pages = [Page(name, log) for name in ("a.md", "b.md")]
    config, files = site(pages)
    ahead = Ahead()
    ahead.start(config, files, SimpleNamespace(kept_count=lambda: 1), None)  # half of them kept
    assert ahead.pid is None and ahead.wait() is None
    assert not Ahead.for_command("serve").active
    assert Ahead.for_command("build").active == sys.platform.startswith("linux")
    monkeypatch.setenv("TORCHNOTES_AHEAD", "0")
    assert not Ahead.for_command("build").active


def test_a_fork_that_does_not_stop_is_killed_and_this_process_goes_on(tmp_path, monkeypatch):
    """A fork stuck in its page (a lock some thread held when the process forked would hold it for ever) must not
    hold the build: past the limit it is killed, and said so."""
    monkeypatch.setattr("torchnotes.generators.mkdocs.ahead.STOP_LIMIT", 0.5)
    log = tmp_path / "log"
    begun = tmp_path / "begun"
    pages = [Page("a.md", log), Page("b.md", log, gate=tmp_path / "never", begun=begun)]  # b.md waits 30 s for a file
    config, files = site(pages)
    ahead = Ahead()
    ahead.start(config, files, NOTHING_KEPT, None)
    deadline = time.monotonic() + 30
    while not begun.exists() and time.monotonic() < deadline:  # the fork is in b.md
        time.sleep(0.01)
    begin = time.monotonic()
    stopped = ahead.wait()
    assert time.monotonic() - begin < 10
    assert stopped == ("the conversions made ahead stopped at it was killed, still at work 0.5 s after it was asked "
                       "to stop; this process made the rest")
