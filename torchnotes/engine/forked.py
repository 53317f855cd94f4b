"""jupyter_client's side of the zygote (zygote.py): a kernel manager whose kernels are the zygote's forks, the
process handle of such a kernel, and a client ready as soon as the kernel answers."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from queue import Empty

from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning import LocalProvisioner
from traitlets import DottedObjectName, Type


class ForkedProcess:
    """Popen's interface for a kernel that is the zygote's child, not ours: the zygote reaps it, so a dead
    kernel is one whose pid is gone."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
                self.returncode = -signal.SIGKILL  # the real status went to the zygote
        return self.returncode

    def wait(self, timeout: float | None = None) -> int | None:
        return self.poll()

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, signum)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


def _is_our_ipykernel(cmd: list[str], python: str) -> bool:
    """The kernel is the zygote's interpreter's ipykernel. Compared by the folder of the command, not its real path:
    every virtual environment of one Python resolves to the same binary, yet each has its own torch."""
    return (len(cmd) >= 3 and cmd[1:3] == ["-m", "ipykernel_launcher"]
            and Path(os.path.abspath(cmd[0])).parent == Path(os.path.abspath(python)).parent)


class ForkedProvisioner(LocalProvisioner):
    zygote = None  # the zygote.Zygote its kernels are forked from (ForkedKernelManager sets it)

    async def launch_kernel(self, cmd: list[str], **kwargs):
        if self.zygote is None or not _is_our_ipykernel(cmd, self.zygote.python):
            return await super().launch_kernel(cmd, **kwargs)
        cwd = str(kwargs.get("cwd") or Path.cwd())
        self.process = self.zygote.fork(cmd[3:], dict(kwargs.get("env") or os.environ), cwd)
        self.pid = self.pgid = self.process.pid  # the child leads a process group of its own
        self.cwd = cwd
        return self.connection_info


class ReadyKernelClient(AsyncKernelClient):
    """jupyter_client's client, ready as soon as the kernel has answered kernel_info on the shell channel and sent
    something on IOPub (both channels connected), as jupyter_client checks it. jupyter_client then also waits for
    0.2 s of silence on IOPub, to drop the start-up's status messages: a fixed 0.2 s for every page, and nothing
    for nbclient, which reads only the messages whose parent is the request it sent."""

    async def _ready(self, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (timeout if timeout is not None else float("inf"))
        while True:
            self.kernel_info()
            try:
                reply = await self.shell_channel.get_msg(timeout=1)
            except Empty:
                reply = None
            if reply is not None and reply["msg_type"] == "kernel_info_reply":
                try:
                    await self.iopub_channel.get_msg(timeout=0.2)
                except Empty:
                    pass  # IOPub not connected yet: ask again
                else:
                    self._handle_kernel_info_reply(reply)
                    return
            if not await self._async_is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.monotonic() > deadline:
                raise RuntimeError(f"Kernel didn't respond in {timeout:g} seconds")

    wait_for_ready = _ready


class ForkedKernelManager(AsyncKernelManager):
    """A kernel manager whose provisioner forks kernels from `zygote` (Zygote.kernel_manager_class sets it), with a
    client ready without jupyter_client's fixed wait (ReadyKernelClient)."""

    zygote = None  # the zygote.Zygote its kernels are forked from (Zygote.kernel_manager_class sets it)
    client_class = DottedObjectName("torchnotes.engine.forked.ReadyKernelClient")
    client_factory = Type(ReadyKernelClient, klass=AsyncKernelClient)

    async def _async_finish_shutdown(self, waittime: float | None = None, pollinterval: float = 0.1,
                                     restart: bool = False) -> None:
        # A kernel that was asked to shut down is gone within milliseconds; jupyter_client looks every 0.1 s.
        await super()._async_finish_shutdown(waittime, pollinterval=0.01, restart=restart)

    finish_shutdown = _async_finish_shutdown

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw) -> None:
        local = self.provisioner
        forked = ForkedProvisioner(kernel_id=local.kernel_id, kernel_spec=local.kernel_spec, parent=self)
        forked.connection_info = local.connection_info
        forked.ports_cached = local.ports_cached
        forked.zygote = self.zygote
        self.provisioner = forked
        await super()._async_launch_kernel(kernel_cmd, **kw)

    _launch_kernel = _async_launch_kernel
