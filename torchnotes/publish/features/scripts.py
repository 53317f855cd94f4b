"""The page as a Python script (<page>-page.py) beside it: what a learner downloads to run without Jupyter
(torchnotes.publish.script makes it and keeps it between builds)."""

from __future__ import annotations

from pathlib import Path

from torchnotes.publish.features.base import Feature, PageOut
from torchnotes.publish.script import Scripts as Kept
from torchnotes.publish.script import script_name
from torchnotes.strings import strings


class Scripts(Feature):
    def __init__(self, build):
        super().__init__(build)
        self.kept = Kept(build.folder.scripts)

    def files(self, out: PageOut) -> dict[str, bytes]:
        if not out.executed:
            return {}
        w, env, page = strings(out.lang), self.build.env, out.page
        header = w["script_header"].format(title=page.meta.get("title", ""), torch=env.torch, device=env.device,
                                           source=Path(page.path).name, source_py=script_name(out.stem))
        script = self.kept.script(page, out.result.outputs, header, out.lang, self.build.notebook_features)
        return {script_name(out.stem): script.encode()}

    def finish(self) -> None:
        self.kept.prune()
