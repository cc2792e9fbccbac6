"""Forked workers at the end of two plain pipes, without ``multiprocessing`` (docs/performance.md,
"Campaigns").

Importing ``multiprocessing`` and its ``connection`` module costs the parent about 14 ms of
CPU before the first batch can leave (they import ``tempfile``, ``shutil``, ``socket``, ``random``
and more), and a campaign command's parent is the serial part of a ``--jobs`` run. Where the
workers are forked from the parent itself (workers.py, ``Workers``), a worker needs only what
this module holds: a pipe each way, messages framed by an 8-byte length (as
``multiprocessing.connection`` frames ``send_bytes``), ``os.fork`` and ``os.waitpid``. Workers
started by a fork server still go through ``multiprocessing``.

A worker leaves only through ``os._exit``: never through the parent's stack, its ``finally``
blocks, its ``atexit`` handlers or its buffered output. A worker that dies closes its ends of the
pipes, so the parent reads an end of file (``EOFError``), never waits forever.
"""

from __future__ import annotations

import contextlib
import os
import struct
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar


class _Readable(Protocol):
    """What :func:`ready` waits on: an open descriptor to read."""

    def fileno(self) -> int: ...


C = TypeVar("C", bound=_Readable)

_SIZE = struct.Struct("!Q")
"""A message's length, before its bytes."""
POLL_SECONDS = 0.005
"""How often a worker given time to exit is looked at."""


class Channel:
    """The parent's (or a worker's) end of a worker's two pipes: ``recv_bytes`` reads from one,
    ``send_bytes`` writes to the other; ``fileno`` is the one read, for ``poll``."""

    __slots__ = ("_read", "_write")

    def __init__(self, read: int, write: int) -> None:
        self._read, self._write = read, write

    def fileno(self) -> int:
        return self._read

    def send_bytes(self, data: bytes) -> None:
        _write_all(self._write, _SIZE.pack(len(data)))
        _write_all(self._write, data)

    def recv_bytes(self) -> bytearray:
        """The next message; ``EOFError`` when the other end closed first (a dead worker)."""
        return self._read_exactly(_SIZE.unpack(self._read_exactly(_SIZE.size))[0])

    def _read_exactly(self, size: int) -> bytearray:
        buffer = bytearray(size)
        view, got = memoryview(buffer), 0
        while got < size:
            count = os.readv(self._read, [view[got:]])
            if count == 0:
                raise EOFError
            got += count
        return buffer

    def writes_ahead(self, least: int) -> bool:
        """Whether the pipe written holds ``least`` bytes unread (Linux's ``F_GETPIPE_SZ``;
        False where it cannot be asked)."""
        import fcntl

        try:
            return int(fcntl.fcntl(self._write, fcntl.F_GETPIPE_SZ)) >= least
        except (AttributeError, OSError):
            return False

    def close(self) -> None:
        for fd in (self._read, self._write):
            with contextlib.suppress(OSError):  # closed already
                os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def fork_worker(serve: Callable[[Channel], None], parents: Sequence[Channel]) -> tuple[int, Channel]:
    """A worker forked from this process that runs ``serve`` on its end of two new pipes, after
    closing ``parents`` (this process's ends of the earlier workers' pipes, which it inherited:
    a worker holding them would keep a dead sibling's pipe open); its pid and this end."""
    import sys

    down_read, down_write = os.pipe()
    try:
        up_read, up_write = os.pipe()
    except OSError:
        Channel(down_read, down_write).close()
        raise
    for stream in (sys.stdout, sys.stderr):  # nothing buffered is written twice
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    pid = os.fork()
    if pid == 0:  # the worker
        code = 1
        try:
            os.close(down_write)
            os.close(up_read)
            for channel in parents:
                channel.close()
            serve(Channel(down_read, up_write))
            code = 0
        finally:
            os._exit(code)
    os.close(down_read)
    os.close(up_write)
    return pid, Channel(up_read, down_write)


def ready(channels: Sequence[C]) -> list[C]:
    """The channels (anything with a ``fileno``: a :class:`Channel`, a ``multiprocessing``
    Connection) with something to read (a message, or the end of a dead worker's pipe), waiting
    until one has."""
    import select

    poller = select.poll()
    for channel in channels:
        poller.register(channel.fileno(), select.POLLIN)
    by_fd = {channel.fileno(): channel for channel in channels}
    return [by_fd[fd] for fd, _ in poller.poll()]


def stop(pid: int, now: bool, seconds: float) -> int:
    """Wait for worker ``pid`` to exit (terminated first when ``now``; after ``seconds``
    regardless) and reap it; its exit status (negative: the signal that ended it)."""
    import signal

    if now:
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + seconds
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # reaped already
            return 0
        if done:
            return _code(status)
        if time.monotonic() >= deadline:
            _signal(pid, signal.SIGTERM)
            return _code(os.waitpid(pid, 0)[1])
        time.sleep(POLL_SECONDS)


def _signal(pid: int, number: Any) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, number)


def _code(status: int) -> int:
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
