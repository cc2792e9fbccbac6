"""The local executor's worker processes: one pipe each, no helper threads (docs/performance.md,
"Campaigns").

``multiprocessing.Pool`` runs three threads in the parent (one hands out tasks, one collects
results, one watches the workers and wakes on every submission); on two cores their CPU is taken
from the workers, and on a campaign of small files it was most of the parent's time during the
work. Here the parent alone writes each batch to a worker's pipe and reads results with one
``poll`` over the pipes (pipes.ready, for either kind of worker). A worker holds at most one
batch beyond the one it runs, and only a small one (:data:`AHEAD_BYTES`, pickled, on a pipe
whose buffer holds several): so a worker
never waits for the parent between batches (the parent may be busy, or not yet scheduled, on
two busy cores), the parent's write never blocks on a worker that is itself blocked writing a
large answer (the batch fits the buffer), and a slow batch holds up only its own worker and the
one behind it. Results are yielded in batch order; at most ``window`` batches are sent ahead of
the one the caller waits for, so memory is bounded.

A worker that dies (killed, out of memory) closes its pipe: the parent stops with
``internal.error``, never hangs. An exception raised by the work is raised again in the parent,
as ``Pool`` does. Workers ignore SIGINT; the parent's handler stops them (kernel/executors).

Workers forked from the parent itself need nothing of ``multiprocessing`` (pipes.py: a pipe each
way and ``os.fork``, which spares the parent importing it); those of a fork server are
``multiprocessing`` processes at the end of a socket pair. Both run :func:`serve`.
"""

from __future__ import annotations

import pickle
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from tracekit.kernel.errors import Code, TracekitError, finding

if TYPE_CHECKING:
    import multiprocessing.context
    from multiprocessing.connection import Connection

    Context = multiprocessing.context.ForkContext | multiprocessing.context.ForkServerContext

T = TypeVar("T")
R = TypeVar("R")

QUEUED = 2
"""Batches sent to a worker and not yet answered: the one it runs and one sent ahead."""
AHEAD_BYTES = 16 * 1024
"""The most a batch sent ahead may take, pickled; a larger batch waits until its worker has
answered (it could otherwise fill the pipe of a worker blocked on its own answer: a deadlock)."""
PIPE_BYTES = 4 * AHEAD_BYTES
"""Batches are sent ahead only on pipes that buffer at least this much (a pipe's
``F_GETPIPE_SZ``, a socket pair's ``SO_SNDBUF``)."""
JOIN_SECONDS = 5.0
"""How long a worker has to exit once its pipe is closed before it is terminated."""


def serve(conn: Any) -> None:
    """A worker's loop: run each ``(work, batch)`` it receives on ``conn`` (a pipes.Channel, or
    a ``multiprocessing`` Connection) and send back ``(True, result)`` or ``(False, exception)``,
    until the parent closes the pipe (module-level: a fork server imports it by name)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            work, batch = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):
            return
        try:
            answer: tuple[bool, Any] = (True, work(batch))
        except BaseException as error:  # noqa: BLE001 - sent to the parent, which raises it
            answer = (False, error)
        try:
            data = pickle.dumps(answer, pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 - an exception that does not pickle
            data = pickle.dumps((False, RuntimeError("a worker's exception could not be sent")))
        try:
            conn.send_bytes(data)
        except OSError:  # the parent stopped (Ctrl-C, an error elsewhere): nothing to answer
            return


def dead() -> TracekitError:
    return TracekitError(finding(Code.INTERNAL_ERROR))


def buffered(conn: Connection) -> bool:
    """Whether ``conn`` (the parent's end of a worker's pipe) buffers :data:`PIPE_BYTES`."""
    import socket

    try:
        with socket.fromfd(conn.fileno(), socket.AF_UNIX, socket.SOCK_STREAM) as end:
            return end.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) >= PIPE_BYTES
    except OSError:  # not a socket (a platform's plain pipe): send nothing ahead
        return False


class Workers:
    """``jobs`` worker processes, each at the end of its own pipe: forked here without
    ``multiprocessing`` when ``context`` is None or a fork context (pipes.py), else started by
    ``context`` (a fork server); a context manager that stops them (closing the pipes, then
    terminating any that lingers)."""

    def __init__(self, context: Context | None, jobs: int) -> None:
        self._conns: list[Any] = []  # pipes.Channel, or multiprocessing's Connection
        self._procs: list[Any] = []  # pids, or multiprocessing's Process
        self._forked = context is None or context.get_start_method() == "fork"
        self.exitcodes: list[int | None] = []
        """Each worker's exit status, once it has been stopped."""
        try:
            for _ in range(jobs):
                self._start(context)
        except BaseException:
            self.close()
            raise
        self._ahead = all(self._buffered(conn) for conn in self._conns)

    def _start(self, context: Context | None) -> None:
        if self._forked:
            from tracekit.kernel.executors.pipes import fork_worker

            pid, channel = fork_worker(serve, self._conns)
            self._procs.append(pid)
            self._conns.append(channel)
            return
        assert context is not None
        mine, theirs = context.Pipe(duplex=True)
        proc = context.Process(target=serve, args=(theirs,), daemon=True)
        proc.start()
        theirs.close()
        self._conns.append(mine)
        self._procs.append(proc)

    def _buffered(self, conn: Any) -> bool:
        return bool(conn.writes_ahead(PIPE_BYTES)) if self._forked else buffered(conn)

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        self.close(now=kind is not None)

    def close(self, now: bool = False) -> None:
        """Close every pipe (a worker exits when it reads the end), then reap the workers; with
        ``now`` (the parent is stopping: Ctrl-C, an error), terminate them first, as ``Pool``
        did, so that nothing they write outlives the command."""
        if self._forked:
            from tracekit.kernel.executors.pipes import stop

            for conn in self._conns:
                conn.close()
            self.exitcodes += [stop(pid, now, JOIN_SECONDS) for pid in self._procs]
            self._conns, self._procs = [], []
            return
        for proc in self._procs if now else ():
            proc.terminate()
        for conn in self._conns:
            conn.close()
        for proc in self._procs:
            proc.join(JOIN_SECONDS)
            if proc.is_alive():
                proc.terminate()
                proc.join()
            self.exitcodes.append(proc.exitcode)
        self._conns, self._procs = [], []

    def map(self, work: Callable[[T], R], batches: Iterable[T], window: int) -> Iterator[R]:
        """``work(batch)`` for each of ``batches``, run on the workers, yielded in order."""
        from tracekit.kernel.executors.pipes import ready

        queued: list[deque[int]] = [deque() for _ in self._conns]
        done: dict[int, R] = {}
        todo = iter(batches)
        sent = wanted = 0
        more = True
        pending = b""  # the next batch, pickled, until a worker may take it
        while True:
            while more and sent - wanted < max(1, window):
                if not pending:
                    batch = next(todo, _END)
                    if batch is _END:
                        more = False
                        break
                    pending = pickle.dumps((work, batch), pickle.HIGHEST_PROTOCOL)
                worker = min(range(len(queued)), key=lambda i: len(queued[i]))
                if not self._takes(len(queued[worker]), len(pending)):
                    break
                self._send(worker, pending)
                pending = b""
                queued[worker].append(sent)
                sent += 1
            while wanted in done:
                yield done.pop(wanted)
                wanted += 1
            if not more and wanted == sent:
                return
            busy = [conn for conn, waiting in zip(self._conns, queued, strict=True) if waiting]
            if not busy:  # the window was full and has just been yielded: send more first
                continue
            for conn in ready(busy):
                worker = self._conns.index(conn)
                done[queued[worker].popleft()] = self._receive(conn)

    def _takes(self, queued: int, size: int) -> bool:
        """Whether a worker with ``queued`` unanswered batches may be sent one of ``size``
        bytes now: an idle one always; a busy one a small batch ahead (the module's text)."""
        return queued == 0 or (queued < QUEUED and self._ahead and size <= AHEAD_BYTES)

    def _send(self, worker: int, data: bytes) -> None:
        try:
            self._conns[worker].send_bytes(data)
        except OSError:  # the worker died (its end is closed): its answer will never come
            raise dead() from None

    @staticmethod
    def _receive(conn: Any) -> Any:
        try:
            ok, value = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):
            raise dead() from None
        if not ok:
            raise value
        return value


_END: Any = object()
