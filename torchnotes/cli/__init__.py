"""Command line: the same engine as the MkDocs build, without MkDocs. One table of commands (COMMANDS, below), one
module per subject (pages, build, ci, versions): `python -m torchnotes --help` lists them.

A command returns its exit status; a failure it cannot go past is raised as one of torchnotes.errors and printed
here, the same way for every command (its message names the file, the cell and what to do; exit status 1 unless the
error says otherwise). The build's progress and warnings are log records (torchnotes/log.py), printed here.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from torchnotes.cli import build, ci, pages, versions
from torchnotes.errors import BuildFailed, NotebookError
from torchnotes.generators.offline.tree import OfflineError
from torchnotes.log import print_records, stop_printing
from torchnotes.settings import load as load_settings


def _none(command) -> None:
    pass


# name: (function, what it does, its arguments)
COMMANDS = {
    "sync": (pages.sync, "write every paired notebook (notebooks/) from its page", _none),
    "check": (pages.check, "the page features' checks (translations, notebook pairs, tokens, GPU recordings, ...), "
                           "safe prose, glossary", pages.check_arguments),
    "run": (pages.run_page, "execute one page and print its cells with their outputs", pages.page_argument),
    "translated": (pages.translated, "mark translations as up to date with their English page "
                                     "(translations/ledger.yml)", pages.translated_arguments),
    "execute": (build.execute, "execute pages through the cache and write the report (--explain: why each is a hit "
                               "or miss)", build.execute_arguments),
    "render": (build.render, "execute what the cache lacks and write the publish tree (plain Markdown per language)",
               build.render_arguments),
    "zensical": (build.render, "render, then build every language with Zensical", build.zensical_arguments),
    "pdf": (build.pdf, "print the built site as one PDF book per language", build.pdf_arguments),
    "offline": (build.offline, "build the offline copy and zip it, one zip per language", build.offline_arguments),
    "summary": (ci.summarise, "Markdown summary of the last report, for CI job summaries (drift included)",
                ci.summary_arguments),
    "shards": (ci.shards, "split the pages into balanced shards (the deploy workflow's plan)", ci.shards_arguments),
    "merge": (ci.merge, "merge cache folders (shards, compared releases) into this site's cache", ci.merge_arguments),
    "cache": (ci.prune, "look after the execution cache (prune: remove entries no current page uses)",
              ci.cache_arguments),
    "versions": (versions.versions, "execute every page under each older torch of versions.yml and report what "
                                    "differs", versions.versions_arguments),
    "upgrade": (versions.upgrade, "pin a new torch, install it, run every version, write the drift report",
                versions.upgrade_arguments),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="torchnotes", description=__doc__.split("\n\n")[0])
    parser.add_argument("-f", "--config-file", type=Path, default=Path("mkdocs.yml"))
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (run, text, arguments) in COMMANDS.items():
        command = sub.add_parser(name, help=text, description=text)
        arguments(command)
        command.set_defaults(run=run)
    args = parser.parse_args(argv)
    handlers = print_records()
    try:
        return args.run(load_settings(args.config_file), args)
    except (NotebookError, BuildFailed, OfflineError) as error:
        print(getattr(error, "message", None) or str(error), file=sys.stderr)
        return getattr(error, "exit_code", 1)
    finally:
        stop_printing(handlers)
