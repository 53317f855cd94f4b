"""Outputs of needs-cuda cells recorded on a GPU machine, committed under recorded/, replayed by CPU builds.

One pretty-printed JSON file per page and language (recorded/<lang>/<page path>.json) with the machine and
software that ran it, one entry per recorded cell, and a checksum of its own content (torchnotes.storage) so
that a hand-edited or damaged file is never shown: a build names it and shows its cells as not recorded, and
`check` fails on it. A recorded cell is replayed only while the code of
that cell and of every code cell before it is unchanged: each entry carries the hash of that prefix.
No MkDocs here: the renderer calls lookup() and the text helpers at the end of this module.
"""

from torchnotes.gpu.machine import Machine, probe_machine
from torchnotes.gpu.report import ReportRow, report_markdown, report_rows
from torchnotes.gpu.shown import cell_html, label, notice, provenance_text
from torchnotes.gpu.store import (
           FORMAT,
           STORE_DIR,
           TAG,
           TEST_TAG,
           Missing,
           Recorded,
           Stale,
           Store,
           check,
           pages_with,
           prefix_hashes,
           record,
           tagged,
)

__all__ = ["FORMAT", "STORE_DIR", "TAG", "TEST_TAG", "Machine", "Missing", "Recorded", "ReportRow", "Stale", "Store",
           "cell_html", "check", "label", "notice", "pages_with", "prefix_hashes", "probe_machine", "provenance_text",
           "record", "report_markdown", "report_rows", "tagged"]
