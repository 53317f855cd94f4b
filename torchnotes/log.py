"""The build's one logger, `torchnotes`: the engine, the publish step and the commands log to it (or to a child,
logging.getLogger(__name__)), and whoever runs them decides where the records go: the CLI prints them
(print_records), the MkDocs adapter hands them to MkDocs, tests read them with caplog."""

from __future__ import annotations

import logging
import sys

logger = logging.getLogger("torchnotes")
# Progress is information: kept, not shown, until a handler (the CLI's, MkDocs', caplog's) takes the records.
logger.setLevel(logging.INFO)


class Printed(logging.Formatter):
    """What a contributor reads in a terminal: the message, with 'warning: ' before a warning's."""

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        return f"warning: {text}" if record.levelno == logging.WARNING else text


def print_records() -> list[logging.Handler]:
    """Progress to stdout, warnings and errors to stderr (the CLI's `main`); returns the handlers it added."""
    progress = logging.StreamHandler(sys.stdout)
    progress.addFilter(lambda record: record.levelno < logging.WARNING)
    problems = logging.StreamHandler(sys.stderr)
    problems.setLevel(logging.WARNING)
    handlers = [progress, problems]
    for handler in handlers:
        handler.setFormatter(Printed())
        logger.addHandler(handler)
    return handlers


def stop_printing(handlers: list[logging.Handler]) -> None:
    for handler in handlers:
        logger.removeHandler(handler)
