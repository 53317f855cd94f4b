"""What the outputs depend on besides the code: Python, torch and its build, the device, the requirements,
the allow-listed environment variables, and the fonts matplotlib can draw text with."""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import os
import platform
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from torchnotes.engine.fonts import font_fingerprint

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


# Set in every kernel whatever the shell says: one thread per kernel (kernels run side by side, and float sums
# stay in one order), a fixed hash seed, and a quiet profiler back-end: Kineto otherwise writes lines with a
# timestamp and the process id to stderr at each profile (profiler_start, gpuGetDeviceCount failed), which
# differ on every run. Kineto reads the level when torch loads it, so the zygote gets it too (kernel_env).
FIXED_VARIABLES = {
    "PYTHONHASHSEED": "0",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    "KINETO_LOG_LEVEL": "6",
}
# Variables that change what PyTorch computes or prints; their values as the kernel sees them are in the cache
# key (README, "How the build works"). Others (PATH, HOME, ...) are not: they would make every machine a miss.
KEYED_VARIABLES = (
    "PYTHONHASHSEED", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "CUBLAS_WORKSPACE_CONFIG", "CUDA_VISIBLE_DEVICES",
    "CUDA_LAUNCH_BLOCKING", "PYTORCH_CUDA_ALLOC_CONF", "NVIDIA_TF32_OVERRIDE", "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE",
    "TORCH_SHOW_CPP_STACKTRACES", "TORCH_LOGS", "ATEN_CPU_CAPABILITY", "MKL_CBWR", "KMP_DETERMINISTIC_REDUCTION",
    "KINETO_LOG_LEVEL",
)


def kernel_variables(base: dict | None = None) -> dict:
    """The environment a kernel starts with."""
    env = dict(os.environ if base is None else base)
    env.update(FIXED_VARIABLES)
    return env


def keyed_variables(base: dict | None = None) -> str:
    env = kernel_variables(base)
    return json.dumps({name: env[name] for name in KEYED_VARIABLES if name in env}, sort_keys=True)


@dataclass(frozen=True)
class Environment:
    python: str
    torch: str
    torch_build: str
    torch_git: str
    device: str
    cuda: bool
    requirements: str
    variables: str = "{}"  # keyed_variables(): the allow-listed environment variables the kernels see
    # font_fingerprint(): not in the key; entries of pages that drew with matplotlib hold only while it is the
    # same (torchnotes.engine.inputs), so installing a font re-runs the pages with figures and no others.
    fonts: str = ""

    def key(self) -> dict:
        return asdict(self)

    def label(self) -> str:
        return f"PyTorch {self.torch} · {self.device} · Python {self.python}"


def probe(requirements: Path | None = None, python: str = sys.executable) -> Environment:
    found = read_build() if python == sys.executable else None
    if found is None:
        found = probe_child(python)
    return Environment(requirements=requirements_hash(requirements), variables=keyed_variables(),
                       fonts=font_fingerprint(), **found)


def probe_child(python: str = sys.executable, env: dict[str, str] | None = None) -> dict:
    """What a child interpreter that imports torch reports (seconds of start-up: importing torch)."""
    done = subprocess.run([python, "-c", _PROBE], capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"cannot import torch in {python}; install the requirements first:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# The device files a GPU driver makes: without them no CUDA or ROCm device can be used (WSL: /dev/dxg).
GPU_DEVICE_FILES = ("/dev/nvidiactl", "/dev/nvidia0", "/dev/kfd", "/dev/dxg")


def read_build(device_files: tuple[str, ...] = GPU_DEVICE_FILES) -> dict | None:
    """The probe's answer for this interpreter's torch, read from torch/version.py without importing torch, when no
    device can change it: a CPU-only build, or a CUDA or ROCm build (PyPI's Linux wheel is CUDA's) on a machine
    with no GPU device file. None otherwise (a GPU is there, an XPU build, an unreadable file): the child probe
    runs. torch.__version__ and torch.version.* are the values of that file."""
    values = _version_file()
    if values is None or values.get("xpu") is not None:
        return None
    cuda, hip = values.get("cuda"), values.get("hip")
    if (cuda is not None or hip is not None) and any(os.path.exists(path) for path in device_files):
        return None
    return {"python": platform.python_version(), "torch": values["__version__"],
            "torch_build": f"cuda {cuda}" if cuda else "cpu",
            "torch_git": (values.get("git_version") or "")[:12], "device": "CPU", "cuda": False}


def _version_file() -> dict | None:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        return None
    try:
        tree = ast.parse(Path(spec.origin).with_name("version.py").read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return None
    values = {}
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else getattr(node, "target", None)
        if isinstance(target, ast.Name) and isinstance(getattr(node, "value", None), ast.Constant):
            values[target.id] = node.value.value
    if not isinstance(values.get("__version__"), str) or not all(k in values for k in ("cuda", "hip", "xpu")):
        return None
    return values


def requirements_hash(path: Path | None) -> str:
    if path is None or not Path(path).exists():
        return "none"
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
