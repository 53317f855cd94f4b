"""A cold build's page conversions, half of them made ahead by a forked helper on the other core.

MkDocs converts one page after another, then Material indexes each for search: after the pages have executed, a
cold build spends most of its last 16 s on one core, with the other idle. When a build of one language starts with
few of its pages kept (kept_html.py, kept_search.py), the process forks once it has its files and navigation. The
fork takes the pages from the last one backwards: it reads, converts and indexes each exactly as MkDocs does (the
same plugin events, the same Markdown extensions, the kept conversion stored by the same extension), while this
process goes from the first page forwards. When this process reaches a page, the fork's conversion and entries are
kept ones, under the same keys as its own would be: it reads them instead of making them again. The two meet in
the middle; the fork stops at the first page this process has begun. It then indexes this process's pages for
search, from the last one it converted backwards (their conversions are kept by then), while this process writes
its pages from the first forwards, until they meet again.

What the fork writes is only what a build keeps anyway, each file written whole (torchnotes.storage). A
conversion that warned (a broken link) is not kept, by the fork either, so it is made again here and warns here,
where `--strict` counts it. The fork logs nothing and ends with os._exit: it never writes the site, and never
runs what this process does when it closes (the zygotes are this process's).

Only `mkdocs build` forks (mkdocs serve has threads of its own, whose locks a fork would copy held);
TORCHNOTES_AHEAD=0 turns it off, to compare.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import sys
import time

log = logging.getLogger("mkdocs.plugins.torchnotes")

# A build keeping at least this share of its pages' conversions has too little left to share.
KEPT_SHARE = 0.5
STOP_LIMIT = 30.0  # seconds a fork asked to stop may take to finish its page


class Ahead:
    """One fork per build of one language, from its on_nav to the end of its pages."""

    def __init__(self, active: bool = True):
        """active: False for one that never forks (mkdocs serve)."""
        self.active = active
        self.pid: int | None = None
        self.in_fork = False
        self.order: dict[str, int] = {}  # each page's place in the build's order, by source
        # The last page this process has begun converting, and begun writing: memory the fork shares.
        self.reached, self.indexed = multiprocessing.RawValue("q", -1), multiprocessing.RawValue("q", -1)

    @classmethod
    def for_command(cls, command: str) -> Ahead:
        """Active for `mkdocs build` on Linux, unless TORCHNOTES_AHEAD=0 (every page made by this process, as before).
        Windows has no fork, and on macOS a fork of a process that has started system frameworks may crash."""
        return cls(active=command == "build" and sys.platform.startswith("linux")
                   and os.environ.get("TORCHNOTES_AHEAD", "1") != "0")

    def start(self, config, files, kept_html, kept_search) -> None:
        """Call in on_nav, once this language's files and navigation are final; kept_html, kept_search: the build's
        (kept_html.py, kept_search.py; None: the plugin is off, and nothing is kept)."""
        self.wait()
        if not self.active or kept_html is None:
            return
        search = config.plugins.get("material/search")
        search_options = dict(search.config) if search is not None and search.config.enabled else None  # as it indexes
        pages = [f.page for f in files.documentation_pages() if f.page is not None]
        self.order = {page.file.src_uri: i for i, page in enumerate(pages)}
        self.reached.value = self.indexed.value = -1
        if len(pages) < 2 or kept_html.kept_count() >= KEPT_SHARE * len(pages):
            return
        self.said, told = os.pipe()
        pid = os.fork()
        if pid:
            os.close(told)
            self.pid = pid
            return
        os.close(self.said)
        self.in_fork = True
        if kept_search is not None:
            kept_search.own_index = True  # the fork's copy indexes with Material's indexer, and keeps the entries
        status, index = 0, len(pages) - 1
        try:  # the fork: what it raises is told to this process, never raised into the build it was copied from
            _quiet()
            # The pages from the last one back, converted and indexed, until this process has begun converting one.
            for index in range(len(pages) - 1, -1, -1):
                if self.reached.value >= index:
                    break
                _convert(pages[index], config, files, kept_search, search_options)
            # Then the pages this process has converted, from its last one back, indexed (their conversions are
            # the kept ones it made), until it has begun writing one: it indexes the pages it writes first.
            if search_options is not None:
                for index in range(self.reached.value - 1, -1, -1):
                    if self.indexed.value >= index:
                        break
                    _convert(pages[index], config, files, kept_search, search_options)
        except BaseException as error:  # noqa: BLE001 - told below; this process converts the page itself
            os.write(told, f"{pages[index].file.src_uri}: {type(error).__name__}: {error}".encode()[:4000])
            status = 1
        finally:
            os._exit(status)

    def begun(self, page) -> None:
        """Call as this process begins converting a page (on_page_markdown); in the fork, whose own pages go through
        the same event, nothing."""
        self._mark(self.reached, page)

    def writing(self, page) -> None:
        """Call as this process begins writing a page (on_page_context, before Material indexes it)."""
        self._mark(self.indexed, page)

    def _mark(self, where, page) -> None:
        index = self.order.get(page.file.src_uri)
        if not self.in_fork and index is not None and index > where.value:
            where.value = index

    def wait(self) -> str | None:
        """Stop the fork and wait for it (call once this language's pages are written, or when the build fails): it
        stops after the page it is at. Logs and returns what stopped it early, if anything did."""
        if self.pid is None:
            return None
        self.reached.value = self.indexed.value = len(self.order)
        status = _stopped(self.pid)
        self.pid = None
        with os.fdopen(self.said, "rb") as said:
            told = said.read().decode("utf-8", "replace")
        if os.waitstatus_to_exitcode(status) == 0:
            return None
        why = told or (f"it was killed, still at work {STOP_LIMIT:g} s after it was asked to stop" if os.WIFSIGNALED(status)
                       else f"exit status {os.waitstatus_to_exitcode(status)}")
        stopped = f"the conversions made ahead stopped at {why}; this process made the rest"
        log.info(stopped)
        return stopped


def _stopped(pid: int) -> int:
    """The fork's exit status, once it has stopped; one still at work after STOP_LIMIT seconds (a page that takes that
    long, or a lock some thread of this process held when it forked) is killed: this process makes its pages."""
    deadline = time.monotonic() + STOP_LIMIT
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.005)
    os.kill(pid, signal.SIGKILL)
    return os.waitpid(pid, 0)[1]


def _convert(page, config, files, kept_search, search_options: dict | None) -> None:
    """The page as MkDocs' build reads and converts it (mkdocs.commands.build), then its search entries."""
    page = config.plugins.on_pre_page(page, config=config, files=files)
    page.read_source(config)
    page.markdown = config.plugins.on_page_markdown(page.markdown, page=page, config=config, files=files)
    page.render(config, files)
    page.content = config.plugins.on_page_content(page.content, page=page, config=config, files=files)
    if search_options is not None and kept_search is not None:
        kept_search.before(page, search_options)


def _quiet() -> None:
    """The fork says nothing: every handler goes (this process says what there is to say). kept_html's own
    handler, which tells a conversion that warned, is added per conversion and still hears them."""
    loggers = [logging.getLogger()] + [logger for logger in logging.Logger.manager.loggerDict.values()
                                       if isinstance(logger, logging.Logger)]
    for logger in loggers:
        for handler in list(logger.handlers):
            logger.removeHandler(handler)

