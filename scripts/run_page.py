"""Execute one page and print every code cell with its outputs as plain text (a preview for authors)."""
import re
import sys
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient
from nbconvert.filters import strip_ansi

SETUP = "import random, numpy, torch\nrandom.seed(0); numpy.random.seed(0); torch.manual_seed(0)\n%matplotlib inline"


def main(path: str) -> int:
    page = Path(path)
    nb = jupytext.read(page)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    import torch

    cuda = torch.cuda.is_available()
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if cell.cell_type == "code" and ("skip-execution" in tags or ("needs-cuda" in tags and not cuda)):
            cell.metadata.setdefault("tags", []).append("skip-execution")
    nb.cells.insert(0, nbformat.v4.new_code_cell(SETUP))
    client = NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(page.parent)}})
    failed = 0
    try:
        client.execute()
    except Exception as exc:  # preview only: report and continue to print what ran
        print(f"!! execution stopped: {type(exc).__name__}: {strip_ansi(str(exc))[-2000:]}")
        failed = 1
    for i, cell in enumerate(nb.cells[1:], 1):
        if cell.cell_type != "code":
            continue
        tags = cell.metadata.get("tags", [])
        print(f"----- cell {i} tags={tags}")
        print(cell.source)
        print("-- output:")
        errors = []
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                print(out.text, end="")
            elif out.output_type in ("execute_result", "display_data"):
                data = out.get("data", {})
                if "image/png" in data:
                    print("[image/png]")
                else:
                    print(data.get("text/plain", ""))
            elif out.output_type == "error":
                errors.append(out.ename)
                print(strip_ansi("\n".join(out.traceback[-3:])))
        want = cell.metadata.get("raises")
        if "raises-exception" in tags:
            if not want:
                print("!! raises-exception needs raises=\"ExceptionType\"")
                failed = 1
            elif want not in errors:
                print(f"!! expected {want}, got {errors or 'no error'}")
                failed = 1
            elif cell.metadata.get("match") and not any(
                re.search(cell.metadata["match"], strip_ansi(o.get("evalue", ""))) for o in cell.outputs if o.output_type == "error"
            ):
                print("!! error message does not match", cell.metadata["match"])
                failed = 1
        elif errors:
            failed = 1
    print("FAILED" if failed else "OK")
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
