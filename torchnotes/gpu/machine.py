"""What ran a recording: the GPU machine, read by a child interpreter (the build process never imports torch)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass

# Run in a child interpreter, like environment.probe: the build process never imports torch.
_PROBE = """
import json, platform, torch
cuda = torch.cuda.is_available()
count = torch.cuda.device_count() if cuda else 0
print(json.dumps({
    "gpu": torch.cuda.get_device_name(0) if cuda else "CPU",
    "gpu_count": count,
    "gpu_memory_mib": torch.cuda.get_device_properties(0).total_memory // 2**20 if cuda else 0,
    "cuda": torch.version.cuda or "",
    "torch": torch.__version__,
    "torch_build": "cuda " + str(torch.version.cuda) if torch.version.cuda else "cpu",
    "torch_git": (torch.version.git_version or "")[:12],
    "python": platform.python_version(),
}))
"""


@dataclass(frozen=True)
class Machine:
    """What ran the recording: GPU name, count and memory, driver, CUDA runtime, torch and its build, Python."""

    gpu: str
    gpu_count: int
    gpu_memory_mib: int
    driver: str
    cuda: str
    torch: str
    torch_build: str
    torch_git: str
    python: str


def probe_machine(python: str = sys.executable) -> Machine:
    done = subprocess.run([python, "-c", _PROBE], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"cannot import torch in {python}; install the requirements first:\n{done.stderr[-2000:]}")
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return Machine(driver=_driver_version(), **found)


def _driver_version() -> str:
    """The NVIDIA driver, which torch does not report; empty where nvidia-smi is absent (CPU machines)."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return ""
    done = subprocess.run([smi, "--query-gpu=driver_version", "--format=csv,noheader"], capture_output=True,
                          text=True, check=False)
    lines = done.stdout.split()
    return lines[0] if done.returncode == 0 and lines else ""
