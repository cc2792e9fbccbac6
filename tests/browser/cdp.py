"""A headless Chromium driven over the DevTools protocol with the standard library only (no
browser-driving package is available offline): start the Debian ``chromium``, open a page, and
collect what a report must never cause: console messages, CSP violations, exceptions and network
requests (docs/report.md, "Tested in a real browser").

The WebSocket client speaks just what CDP needs (RFC 6455: a client handshake, masked text frames
out, unmasked frames in, continuation frames joined, pings answered).
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
LISTENING = re.compile(rb"DevTools listening on (ws://[^\s]+)")


class WebSocket:
    """A minimal RFC 6455 client over one TCP connection."""

    def __init__(self, url: str, timeout: float = 30.0) -> None:
        match = re.fullmatch(r"ws://([^/:]+):(\d+)(/.*)", url)
        assert match, url
        host, port, path = match.group(1), int(match.group(2)), match.group(3)
        self.sock = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            assert chunk, "closed during the handshake"
            head += chunk
        assert head.startswith(b"HTTP/1.1 101"), head[:80]
        self.buffer = head.split(b"\r\n\r\n", 1)[1]

    def _exact(self, n: int) -> bytes:
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            assert chunk, "connection closed"
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def send(self, text: str) -> None:
        data = text.encode()
        head = bytearray([0x81])
        if len(data) < 126:
            head.append(0x80 | len(data))
        elif len(data) < 1 << 16:
            head += bytes([0x80 | 126]) + struct.pack("!H", len(data))
        else:
            head += bytes([0x80 | 127]) + struct.pack("!Q", len(data))
        mask = os.urandom(4)
        self.sock.sendall(bytes(head) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _frame(self) -> tuple[int, bool, bytes]:
        first, second = self._exact(2)
        length = second & 0x7F
        if length == 126:
            length = struct.unpack("!H", self._exact(2))[0]
        elif length == 127:
            length = struct.unpack("!Q", self._exact(8))[0]
        mask = self._exact(4) if second & 0x80 else b""
        data = self._exact(length)
        if mask:
            data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        return first & 0x0F, bool(first & 0x80), data

    def receive(self) -> str:
        parts: list[bytes] = []
        while True:
            opcode, final, data = self._frame()
            if opcode == 0x9:  # ping: answer, keep reading
                self.sock.sendall(bytes([0x8A, 0x80 | len(data)]) + b"\0\0\0\0" + data)
                continue
            assert opcode != 0x8, "closed by the browser"
            parts.append(data)
            if final:
                return b"".join(parts).decode()

    def close(self) -> None:
        self.sock.close()


@dataclass
class Observed:
    """What a page did while it loaded."""

    console: list[dict[str, Any]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    exceptions: list[dict[str, Any]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    issues: list[dict[str, Any]] = field(default_factory=list)

    @property
    def csp_violations(self) -> list[dict[str, Any]]:
        found = [e for e in self.log if "Content Security Policy" in e.get("text", "")]
        found += [i for i in self.issues if i.get("code") == "ContentSecurityPolicyIssue"]
        found += [c for c in self.console if "Content Security Policy" in json.dumps(c)]
        return found


class Browser:
    """One headless Chromium with one page; use as a context manager."""

    def __init__(self) -> None:
        assert CHROMIUM is not None
        self.profile = tempfile.mkdtemp(prefix="tracekit-chromium-")
        # Chromium's log goes to a file, never a pipe: a full pipe would stall the browser.
        self.log_path = Path(self.profile) / "stderr.log"
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1200,1500", "--remote-debugging-port=0", "--remote-allow-origins=*",
                 f"--user-data-dir={self.profile}", "about:blank"],
                stdout=subprocess.DEVNULL, stderr=log,
            )
        self.ws: WebSocket | None = None
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        try:
            browser_url = self._listening()
            port = re.search(r":(\d+)/", browser_url).group(1)  # type: ignore[union-attr]
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30) as answer:
                pages = [t for t in json.load(answer) if t["type"] == "page"]
            self.ws = WebSocket(pages[0]["webSocketDebuggerUrl"])
            for domain in ("Page", "Runtime", "Log", "Network", "Audits"):
                self.call(f"{domain}.enable")
        except BaseException:
            self.close()
            raise

    def _listening(self) -> str:
        deadline = time.monotonic() + 60
        seen = b""
        while time.monotonic() < deadline and self.proc.poll() is None:
            seen = self.log_path.read_bytes()
            match = LISTENING.search(seen)
            if match:
                return match.group(1).decode()
            time.sleep(0.05)
        raise AssertionError(f"chromium did not start: {seen[-500:]!r}")

    @property
    def _live(self) -> WebSocket:
        assert self.ws is not None, "not connected"
        return self.ws

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        mine = self.next_id
        self._live.send(json.dumps({"id": mine, "method": method, "params": params}))
        while True:
            message = json.loads(self._live.receive())
            if message.get("id") == mine:
                assert "error" not in message, message
                result: dict[str, Any] = message.get("result", {})
                return result
            if "method" in message:
                self.events.append(message)

    def _pump(self, until: str, timeout: float) -> None:
        self._live.sock.settimeout(timeout)
        try:
            while not any(e["method"] == until for e in self.events):
                self.events.append(json.loads(self._live.receive()))
        finally:
            self._live.sock.settimeout(30)

    def open(self, path: Path, settle: float = 1.0) -> Observed:
        """Load ``path``; return what it did from navigation until ``settle`` seconds after load."""
        self.events.clear()
        self.call("Page.navigate", url=path.resolve().as_uri())
        self._pump("Page.loadEventFired", 30)
        # Anything late (a timer, a lazy image) would arrive now: drain until quiet.
        self._live.sock.settimeout(settle)
        try:
            while True:
                self.events.append(json.loads(self._live.receive()))
        except TimeoutError:
            pass
        finally:
            self._live.sock.settimeout(30)
        seen = Observed()
        document = path.resolve().as_uri()
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled":
                seen.console.append(params)
            elif method == "Log.entryAdded":
                seen.log.append(params["entry"])
            elif method == "Runtime.exceptionThrown":
                seen.exceptions.append(params)
            elif method == "Network.requestWillBeSent" and params["request"]["url"] != document:
                seen.requests.append(params["request"]["url"])
            elif method == "Audits.issueAdded":
                seen.issues.append(params["issue"])
        return seen

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        assert "exceptionDetails" not in result, result
        return result["result"].get("value")

    def screenshot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the browser this object started (by its own process handle) and remove its profile."""
        if self.ws is not None:
            self.ws.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)
