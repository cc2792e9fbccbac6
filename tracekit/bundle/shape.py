"""The order and counts of one finding's records (docs/bundle-format.md section 4, checked in
verification step 5): a manifest, then per episode its record, its messages, its calls, its
turns."""

from __future__ import annotations

from tracekit.bundle.container import bad
from tracekit.bundle.records import (
    CallRecord,
    EpisodeRecord,
    Manifest,
    MessageRecord,
    Record,
    TurnRecord,
)
from tracekit.kernel.errors import Code


class FindingShape:
    """A state machine fed one record at a time; constant memory per finding."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.manifest: Manifest | None = None
        self._next_seq = 0
        self._episodes = 0
        self._episode: EpisodeRecord | None = None
        self._messages = 0
        self._calls = 0
        self._turns = 0
        self._total_messages = 0
        self._total_calls = 0
        self._total_turns = 0

    def accept(self, record: Record, frame: int) -> None:
        if record.seq != self._next_seq:
            code = Code.BUNDLE_RECORD_DUPLICATE if record.seq < self._next_seq else Code.BUNDLE_RECORD_ORDER
            raise bad(code, frame=frame)
        self._next_seq += 1
        episode = self._episode
        if type(record) is MessageRecord and episode is not None and record.episode == episode.episode:
            self._message(record, episode, frame)  # the most frequent record, as checked below
            return
        if isinstance(record, Manifest):
            if self.manifest is not None:
                raise bad(Code.BUNDLE_RECORD_DUPLICATE, frame=frame)
            self.manifest = record
            return
        manifest = self.manifest
        if manifest is None:
            raise bad(Code.BUNDLE_RECORD_ORDER, frame=frame)
        if isinstance(record, EpisodeRecord):
            self._episode_done(frame)
            if record.episode != self._episodes or self._episodes >= manifest.episodes:
                raise bad(Code.BUNDLE_RECORD_INVALID, frame=frame, rule="episode order or count")
            self._episodes += 1
            self._episode, self._messages, self._calls, self._turns = record, 0, 0, 0
            return
        if episode is None or record.episode != episode.episode:
            raise bad(Code.BUNDLE_RECORD_INVALID, frame=frame, rule="record outside its episode")
        if isinstance(record, TurnRecord):
            self._turn(record, episode, frame)
            return
        if isinstance(record, MessageRecord):
            self._message(record, episode, frame)
            return
        assert isinstance(record, CallRecord)
        if (
            self._messages != episode.messages
            or self._turns
            or record.index != self._calls
            or self._calls >= episode.calls
        ):
            raise bad(Code.BUNDLE_RECORD_INVALID, frame=frame, rule="call order or count")
        self._calls += 1
        self._total_calls += 1

    def accept_message(self, seq: int, episode: int, index: int) -> bool:
        """:meth:`accept` for a message record (its ``seq``, ``episode`` and ``index``) that
        passes its checks: the next in sequence, in the current episode, after its messages and
        before its calls and turns. True once accepted; False, with nothing changed, for any
        other, which :meth:`accept` then refuses or accepts as it always did."""
        current = self._episode
        if (
            seq != self._next_seq
            or current is None
            or episode != current.episode
            or self._calls
            or self._turns
            or index != self._messages
            or self._messages >= current.messages
        ):
            return False
        self._next_seq += 1
        self._messages += 1
        self._total_messages += 1
        return True

    def accept_turn(self, seq: int, episode: int, index: int, runs: list[tuple[int, int]] | None) -> bool:
        """As :meth:`accept_message`, for a turn record (``runs``: its input, section 4)."""
        current = self._episode
        if (
            seq != self._next_seq
            or current is None
            or episode != current.episode
            or (self._messages, self._calls) != (current.messages, current.calls)
            or index != self._turns
            or self._turns >= current.turns
        ):
            return False
        end = -1
        for start, count in runs or ():
            if start + count > current.messages or start == end:
                return False
            end = start + count
        self._next_seq += 1
        self._turns += 1
        self._total_turns += 1
        return True

    def current_episode(self) -> EpisodeRecord | None:
        """The episode whose records come now (None before the first)."""
        return self._episode

    def messages_fit(self, seq: int, index: int, count: int) -> bool:
        """True when ``count`` messages of the current episode, from ``seq`` and ``index`` on
        and counting up by one, pass :meth:`accept` (for :meth:`accept_messages`)."""
        current = self._episode
        return (
            current is not None
            and seq == self._next_seq
            and index == self._messages
            and not self._calls
            and not self._turns
            and self._messages + count <= current.messages
        )

    def accept_messages(self, count: int) -> None:
        """``count`` messages that :meth:`messages_fit`."""
        self._next_seq += count
        self._messages += count
        self._total_messages += count

    def turns_fit(self, seq: int, index: int, count: int) -> bool:
        """As :meth:`messages_fit`, for turns without input runs."""
        current = self._episode
        return (
            current is not None
            and seq == self._next_seq
            and index == self._turns
            and (self._messages, self._calls) == (current.messages, current.calls)
            and self._turns + count <= current.turns
        )

    def accept_turns(self, count: int) -> None:
        """``count`` turns that :meth:`turns_fit`."""
        self._next_seq += count
        self._turns += count
        self._total_turns += count

    def _message(self, record: MessageRecord, episode: EpisodeRecord, frame: int) -> None:
        if self._calls or self._turns or record.index != self._messages or self._messages >= episode.messages:
            raise bad(Code.BUNDLE_RECORD_INVALID, frame=frame, rule="message order or count")
        self._messages += 1
        self._total_messages += 1

    def _turn(self, record: TurnRecord, episode: EpisodeRecord, frame: int) -> None:
        """Turns follow the calls; each input run lies within the episode's messages, and runs
        are maximal (two that touch would be one), so a turn has one encoding."""
        if (
            (self._messages, self._calls) != (episode.messages, episode.calls)
            or record.index != self._turns
            or self._turns >= episode.turns
        ):
            raise bad(Code.BUNDLE_RECORD_INVALID, frame=frame, rule="turn order or count")
        end = -1
        for start, count in record.input or ():
            if start + count > episode.messages or start == end:
                raise bad(Code.BUNDLE_RECORD_INVALID, frame=frame, rule="turn input")
            end = start + count
        self._turns += 1
        self._total_turns += 1

    def _episode_done(self, frame: int) -> None:
        episode = self._episode
        if episode is not None and (self._messages, self._calls, self._turns) != (
            episode.messages,
            episode.calls,
            episode.turns,
        ):
            raise bad(Code.BUNDLE_RECORD_INVALID, frame=frame, rule="episode counts")

    def close(self) -> None:
        """After the finding's last record: every count the manifest declares was met."""
        manifest = self.manifest
        self._episode_done(0)
        if manifest is None or (
            self._episodes,
            self._total_messages,
            self._total_calls,
            self._total_turns,
        ) != (manifest.episodes, manifest.messages, manifest.calls, manifest.turns):
            raise bad(Code.BUNDLE_RECORD_INVALID, frame=0, rule="manifest counts")
