"""Where ``RedisRunStore`` keeps each thing: one layout on a single Redis, one on a Redis Cluster.

A single Redis keeps the layout of every release before cluster support, key for key, so that
workers of the old and the new release share one Redis during a rolling restart (each reads
the runs the other writes; ``tests/store/test_redis_cluster.py`` pins the names):

- ``{prefix}run:{id}``, ``{prefix}run:{id}:events``, ``{prefix}run:{id}:alive``
- ``{prefix}thread:{thread_id}``
- ``{prefix}runs``, ``{prefix}finished``

A Redis Cluster refuses a script or a transaction whose keys hash to different slots
(``CROSSSLOT``), and a key's slot comes from its hash tag: the text between its first ``{`` and
the next ``}``. So on a cluster the run id is the hash tag of every per-run key, which puts a
run's hash, stream and heartbeat on one slot (one master), and the scripts and pipelines of one
run run there; the indexes shared by all runs have tags of their own:

- ``{prefix}run:{<id>}``, ``{prefix}run:{<id>}:events``, ``{prefix}run:{<id>}:alive``
- ``{prefix}thread:{<thread_id>}``
- ``{prefix}{runs}``, ``{prefix}{runs}:finished``: the run bound's two sorted sets, on one slot

The old layout never worked on a cluster (creating a run failed with ``CROSSSLOT``), so there is
no cluster holding runs of the old layout to read.
"""

from __future__ import annotations

__all__ = ["RedisKeys"]


class RedisKeys:
    """The key names of one store: ``cluster`` picks the hash-tagged layout."""

    __slots__ = ("cluster", "finished", "prefix", "runs")

    def __init__(self, prefix: str, *, cluster: bool) -> None:
        if cluster and ("{" in prefix or "}" in prefix):
            # A brace in the prefix would become (part of) every key's hash tag: all runs on
            # one slot, or tags that no longer hold the run id.
            raise ValueError(
                f"prefix {prefix!r}: a Redis Cluster store's prefix may not hold '{{' or '}}' "
                "(the store puts the hash tags in its keys itself)"
            )
        self.prefix = prefix
        self.cluster = cluster
        self.runs = f"{prefix}{{runs}}" if cluster else f"{prefix}runs"
        self.finished = f"{prefix}{{runs}}:finished" if cluster else f"{prefix}finished"

    def _run(self, key: str) -> str:
        return f"{self.prefix}run:{{{key}}}" if self.cluster else f"{self.prefix}run:{key}"

    def meta(self, key: str) -> str:
        """The run's hash (thread id, owner, finished flag, ``beats``)."""
        return self._run(key)

    def alive(self, key: str) -> str:
        """Present while the run's writer beats."""
        return f"{self._run(key)}:alive"

    def stream(self, key: str) -> str:
        """The run's events."""
        return f"{self._run(key)}:events"

    def thread(self, thread_id: str) -> str:
        """The thread's run ids, oldest first."""
        if self.cluster:
            return f"{self.prefix}thread:{{{thread_id}}}"
        return f"{self.prefix}thread:{thread_id}"

    def check_run_key(self, key: str) -> None:
        """An empty run id makes an empty hash tag, which Redis ignores (the whole key is
        hashed, so the run's keys would land on different slots)."""
        if self.cluster and not key:
            raise ValueError("a run key may not be empty on a Redis Cluster")
