"""Evidence and bundles for the bundle tests, built in memory."""

from __future__ import annotations

import io
from functools import cache

from tracekit.bundle import keys
from tracekit.bundle.seal import FindingInput, seal
from tracekit.bundle.verify import BundleReport, verify_bundle
from tracekit.kernel.evidence import (
    Arguments,
    Episode,
    EvidenceFile,
    Message,
    ModelTurn,
    RunFacts,
    ToolCall,
    ToolResult,
)

SECRET = "AKIAZZCANARY7EXAMPL3"


@cache
def key_pair() -> tuple[bytes, bytes]:
    """A fixed key pair (from a fixed seed), so bundles are reproducible across tests."""
    seed = bytes(range(32))
    return seed, keys.public_of(seed)


def loop_evidence(turns: int, secret: str | None = None, epochs: int = 1) -> EvidenceFile:
    """An agent loop as the evidence model holds it: each message once (a turn's input is the
    history so far, by index), one tool call and result per turn. ``epochs`` repeats the run as
    further episodes that share every text, as Inspect epochs of one sample do."""
    messages: list[Message] = [Message(0, "system", "You are a careful agent."), Message(1, "user", "Fix it.")]
    calls: list[ToolCall] = []
    model_turns: list[ModelTurn] = []
    for turn in range(turns):
        # each model turn resends the whole history so far, as an agent loop does
        model_turns.append(
            ModelTurn(index=turn, input_runs=((0, len(messages)),) if messages else (), model="model-x", finish_reason="tool_calls")
        )
        body = f"step {turn}: " + ("x" * 200)
        if secret is not None and turn == turns // 2:
            body += f" key={secret}"
        args = (
            Arguments(shape="object", value={"cmd": f"run {turn}", "n": turn})
            if turn % 2
            else Arguments(shape="string", text='{"cmd": "ls -la", "n": ' + str(turn) + '}')
        )
        result = ToolResult(text=f"output {turn}\n" + ("y" * 300))
        calls.append(ToolCall(index=turn, turn=turn, name="bash", call_id=f"c{turn}", arguments=args, result=result))
        messages.append(Message(len(messages), "assistant", body))
        messages.append(Message(len(messages), "tool", f"output {turn}"))
    episodes = tuple(
        Episode(id=f"sample-1-epoch-{e}", facts=RunFacts(tool="inspect_ai"), messages=tuple(messages), calls=tuple(calls), turns=tuple(model_turns))
        for e in range(epochs)
    )
    return EvidenceFile(format="inspect", format_version="2", episodes=episodes)


def original_for(evidence: EvidenceFile) -> bytes:
    """Stand-in original bytes that hold every message (as a real trace file would)."""
    texts = [m.text or "" for e in evidence.episodes for m in e.messages]
    return ("\n".join(texts) + "\n").encode()


def sealed(turns: int = 3, secret: str | None = None, signed: bool = True, campaign: int = 0) -> bytes:
    seed = key_pair()[0] if signed else None
    if campaign:
        items = [FindingInput(original_for(ev), ev) for ev in (loop_evidence(turns + i) for i in range(campaign))]
        return b"".join(seal(items, seed, True))
    evidence = loop_evidence(turns, secret)
    return b"".join(seal([FindingInput(original_for(evidence), evidence)], seed, False))


def check(data: bytes, trusted: bool = True) -> BundleReport:
    return verify_bundle(io.BytesIO(data), [key_pair()[1]] if trusted else [])


def codes(report: BundleReport) -> list[str]:
    return [f.code.value for f in report.findings]
