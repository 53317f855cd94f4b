"""What the outputs depend on besides the code: Python, torch and its build, the device, the requirements."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

# Run in a child interpreter: importing torch into the build process would cost memory and time.
_PROBE = """
import json, platform, torch
cuda = torch.cuda.is_available()
print(json.dumps({
    "python": platform.python_version(),
    "torch": torch.__version__,
    "torch_build": "cuda " + str(torch.version.cuda) if torch.version.cuda else "cpu",
    "torch_git": (torch.version.git_version or "")[:12],
    "device": torch.cuda.get_device_name(0) if cuda else "CPU",
    "cuda": cuda,
}))
"""


@dataclass(frozen=True)
class Environment:
    python: str
    torch: str
    torch_build: str
    torch_git: str
    device: str
    cuda: bool
    requirements: str

    def key(self) -> dict:
        return asdict(self)

    def label(self) -> str:
        return f"PyTorch {self.torch} · {self.device} · Python {self.python}"


def probe(requirements: Path | None = None, python: str = sys.executable) -> Environment:
    done = subprocess.run([python, "-c", _PROBE], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"cannot import torch in {python}; install the requirements first:\n{done.stderr[-2000:]}")
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return Environment(requirements=requirements_hash(requirements), **found)


def requirements_hash(path: Path | None) -> str:
    if path is None or not Path(path).exists():
        return "none"
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
