"""The line under each executed page's title: the torch, device and Python that produced its outputs, when, the
parts other features add (releases compared, GPU recordings), and the downloads. Not how long the page ran: that
changes with every execution, and two builds of the same pages must give the same bytes (the report page lists
the seconds)."""

from __future__ import annotations

from pathlib import Path

from torchnotes.publish.features.base import Feature, PageOut, after_title
from torchnotes.publish.script import script_name
from torchnotes.strings import strings


class Provenance(Feature):
    def page(self, out: PageOut, body: str) -> str:
        if not out.executed:
            return body
        w, env, result, stem = strings(out.lang), self.build.env, out.result, out.stem
        line = w["provenance"].format(torch=env.torch, device=env.device, python=env.python, date=result.date)
        # Markdown links, resolved against the page's source file by every generator (raw HTML links are not).
        notebook_link = f"{stem}.ipynb" if stem == "index" else f"{stem}/{stem}.ipynb"
        links = [f'[{w["download"]}]({notebook_link}){{ download }}',
                 f'[{w["download_py"]}]({notebook_link[:-len(stem + ".ipynb")]}{script_name(stem)}){{ download }}']
        settings = self.build.settings
        if settings.github_repo:
            notebook = Path(settings.notebooks_dir) / out.lang / out.rel.with_suffix(".ipynb")
            colab = (f"https://colab.research.google.com/github/{settings.github_repo}/blob/{settings.branch}/"
                     f"{notebook.as_posix()}")
            links.append(f'[{w["colab"]}]({colab}){{ rel=noopener }}')
        for part in (feature.provenance(out) for feature in self.build.features):
            if part:
                line += " · " + part
        return after_title(body, f'{line} · {" · ".join(links)}\n{{ .nb-provenance data-search-exclude }}')
