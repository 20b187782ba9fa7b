"""``agui threads list|show|rename|delete TARGET``: the stored conversations of a thread store.

``TARGET`` is either a thread store URL (``sqlite:///threads.db``, ``memory:`` is pointless
here; read directly, as the owner ``--owner`` names, anonymous by default) or an agent's URL
(``http://127.0.0.1:8000/agent``: its ``/threads`` endpoints, with ``--header`` for the
credentials the server's ``authorize`` hook reads).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, Optional

from ag_ui.cli._arguments import header_options
from ag_ui.core._surrogates import escape_lone_surrogates, replace_lone_surrogates

if TYPE_CHECKING:
    from ag_ui.store import ThreadStore

__all__ = ["register"]


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "threads",
        help="list, show, rename or delete stored conversations (a thread store or an agent)",
        description="The stored conversations of a thread store (TARGET: sqlite:///PATH, or "
        "another thread store URL) or of an agent served with a thread store (TARGET: its "
        "http(s) URL, e.g. http://127.0.0.1:8000/agent).",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="the threads, newest first")
    _common(listing)
    listing.add_argument("--limit", type=_limit, default=50, help="how many (1-500, default 50)")
    show = actions.add_parser("show", help="one thread's messages and state")
    _common(show)
    show.add_argument("thread_id", metavar="THREAD_ID")
    rename = actions.add_parser("rename", help="set a thread's title")
    _common(rename)
    rename.add_argument("thread_id", metavar="THREAD_ID")
    rename.add_argument("title", metavar="TITLE", type=_title)
    delete = actions.add_parser("delete", help="delete a thread and its runs")
    _common(delete)
    delete.add_argument("thread_id", metavar="THREAD_ID")
    for action in (listing, show, rename, delete):
        action.set_defaults(func=run, parser=action, extra="server")


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="TARGET", help="a thread store URL or an agent URL")
    parser.add_argument(
        "--owner",
        default=None,
        help="(thread store URL) the principal whose threads these are (default: anonymous)",
    )
    parser.add_argument(
        "-H",
        "--header",
        action="append",
        default=[],
        metavar="NAME:VALUE",
        help="(agent URL) a request header, e.g. 'Authorization: Bearer ...' (repeatable)",
    )
    parser.add_argument(
        "--output", choices=("text", "json"), default="text", help="text (default) or JSON"
    )


def _limit(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= value <= 500:
        raise argparse.ArgumentTypeError(f"{value} is not from 1 to 500")
    return value


def _title(text: str) -> str:
    """A title as the threads endpoint takes it: not blank, at most 320 characters."""
    title = text.strip()
    if not title or len(title) > 320:
        raise argparse.ArgumentTypeError("a title is 1 to 320 characters, not only spaces")
    return title


def run(args: argparse.Namespace) -> int:
    import anyio

    target: str = args.target
    if target.startswith(("http://", "https://")):
        headers = header_options(args.parser, args.header)
        answer = anyio.run(_over_http, args, headers)
    else:
        from ag_ui.cli._thread_store import quiet_pool_log
        from ag_ui.store import open_thread_store

        quiet_pool_log()

        try:
            store = open_thread_store(target)
        except ValueError as exc:
            args.parser.error(f"TARGET: {exc}; or an agent's http(s) URL")
        path = getattr(store, "path", None)  # a file store: reading must not create it
        if path is not None and not path.exists():
            print(f"agui threads: no thread database at {path}", file=sys.stderr)
            return 1
        answer = anyio.run(_in_store, args, store)
    if answer is None:
        print(f"agui threads: no thread {args.thread_id!r} here", file=sys.stderr)
        return 1
    _print(args, answer)
    return 0


async def _in_store(args: argparse.Namespace, store: ThreadStore) -> Optional[dict[str, Any]]:
    from ag_ui.store import ThreadNotFoundError

    owner = args.owner
    try:
        if args.action == "list":
            page = await store.list_threads(owner=owner, limit=args.limit)
            return {
                "threads": [summary.to_json() for summary in page.threads],
                "nextCursor": page.next_cursor,
            }
        if args.action == "show":
            return (await store.load(args.thread_id, owner=owner)).to_json()
        if args.action == "rename":
            summary = await store.rename(args.thread_id, owner=owner, title=args.title)
            return summary.to_json()
        await store.delete(args.thread_id, owner=owner)
        return {"deleted": args.thread_id}
    except ThreadNotFoundError:
        return None
    finally:
        await store.aclose()


async def _over_http(args: argparse.Namespace, headers: dict[str, str]) -> Optional[dict[str, Any]]:
    import httpx

    from ag_ui.core.errors import HTTPStatusError, TransportError

    base = args.target.rstrip("/") + "/threads"
    try:
        async with httpx.AsyncClient(timeout=30, headers=headers) as client:
            if args.action == "list":
                response = await client.get(base, params={"limit": args.limit})
            elif args.action == "show":
                response = await client.get(f"{base}/{args.thread_id}")
            elif args.action == "rename":
                response = await client.patch(
                    f"{base}/{args.thread_id}", json={"title": args.title}
                )
            else:
                response = await client.delete(f"{base}/{args.thread_id}")
    except httpx.TransportError as exc:
        raise TransportError(f"request to {base} failed: {type(exc).__name__}: {exc}") from None
    if response.status_code == 404 and args.action != "list":
        return None
    if not response.is_success:
        try:
            body: Any = response.json()
        except ValueError:
            body = response.text[:500]
        raise HTTPStatusError(response.status_code, body, url=str(response.url))
    if response.status_code == 204:
        return {"deleted": args.thread_id}
    answer: dict[str, Any] = response.json()
    return answer


def _print(args: argparse.Namespace, answer: dict[str, Any]) -> None:
    if args.output == "json":
        # Half an emoji (a lone surrogate) stays the escape it is stored as: the same string.
        print(escape_lone_surrogates(json.dumps(answer, ensure_ascii=False, indent=2)))
        return
    # A terminal cannot show a lone surrogate (no UTF-8 form): U+FFFD, as the titles do.
    answer = replace_lone_surrogates(answer)
    if args.action == "list":
        threads = answer["threads"]
        if not threads:
            print("no threads")
        for summary in threads:
            print(
                f"{summary['threadId']}  {summary['messageCount']} messages, "
                f"{summary['runCount']} runs  {summary['title'] or '(untitled)'}"
            )
        if answer.get("nextCursor"):
            print("(more: raise --limit, up to 500)")
    elif args.action == "show":
        print(f"thread {answer['threadId']}: {answer['title'] or '(untitled)'}")
        for message in answer["messages"]:
            print(f"{message['role']}> {_text(message)}")
        if answer.get("state") is not None:
            print("state: " + json.dumps(answer["state"], ensure_ascii=False))
    elif args.action == "rename":
        print(f"thread {answer['threadId']} is now titled {answer['title']!r}")
    else:
        print(f"deleted thread {answer['deleted']}")


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        content = " ".join(str(part.get("text", f"[{part.get('type')}]")) for part in content)
    text = str(content) if content is not None else ""
    calls = message.get("toolCalls") or []
    if calls:
        names = ", ".join(call["function"]["name"] for call in calls)
        text = (text + " " if text else "") + f"[calls {names}]"
    from ag_ui.store._thread_base import INCOMPLETE_KEY  # the server extra, checked by `run`

    cut = (message.get("metadata") or {}).get(INCOMPLETE_KEY)
    if isinstance(cut, dict) and cut.get("incomplete"):
        # A cancelled run's half reply: kept as far as it went, and said so.
        text = (text + " " if text else "") + f"[incomplete: run {cut['incomplete']}]"
    return text
