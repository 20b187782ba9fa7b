"""The inspector page in a real headless Chromium (Debian's, driven by Playwright).

One browser for the whole module; each test opens a fresh page. Live tests talk to the demo
agent on a real uvicorn through an inspector that is itself served by uvicorn; recording tests
use a second inspector with a broken and a paced recording. Screenshots go to the test's temp
directory.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from ag_ui.demo import create_demo_app, lookup_weather
from ag_ui.inspect import Inspector, create_inspector_app
from ag_ui.recording import read_recording
from tests.inspect.conftest import broken_run, serve, timed_recording, weather_run, write
from tests.support.chromium import chromium_context

PACE = 0.3  # seconds between the paced recording's events
PACED_EVENTS = 6


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    profile = tmp_path_factory.mktemp("chromium-profile")
    with chromium_context(profile, accept_downloads=True) as context:
        yield context


@pytest.fixture(scope="module")
def demo_base() -> Iterator[str]:
    with serve(create_demo_app(delay=0.002, tap=True), lifespan="off") as base:
        yield base


@pytest.fixture(scope="module")
def live(demo_base: str) -> Iterator[str]:
    inspector = Inspector(url=demo_base + "/agent", tap=True)
    inspector.new_thread()
    with serve(create_inspector_app(inspector)) as base:
        yield base


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("recordings")
    inspector = Inspector()
    inspector.open(write(folder, "broken.jsonl", timed_recording(broken_run())))
    # Six events: the start of the weather run up to the tool call's end, then the finish.
    paced = [*weather_run()[:5], weather_run()[-1]]
    assert len(paced) == PACED_EVENTS
    inspector.open(write(folder, "paced.jsonl", timed_recording(paced, gap=PACE)))
    with serve(create_inspector_app(inspector)) as base:
        yield base


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.requests = []  # type: ignore[attr-defined]
    page.on("request", lambda request: page.requests.append(request.url))  # type: ignore[attr-defined]
    yield page
    page.close()
    assert errors == [], f"the page raised: {errors}"


def open_page(page: Any, base: str) -> None:
    page.goto(base + "/")
    page.wait_for_selector("body[data-ready=true]")


def send(page: Any, text: str) -> None:
    page.fill("#message", text)
    page.keyboard.press("Control+Enter")


def new_thread(page: Any) -> None:
    before = page.evaluate("window.__inspector.sessionId")
    page.click("#new-thread")
    page.wait_for_function("(before) => window.__inspector.sessionId !== before", arg=before)


def choose_session(page: Any, title: str) -> None:
    value = page.eval_on_selector(
        "#session-select",
        "(select, title) => [...select.options].find(o => o.text.startsWith(title)).value",
        title,
    )
    page.select_option("#session-select", value)


def test_a_live_conversation_streams_into_every_view(page: Any, live: str, tmp_path: Path) -> None:
    open_page(page, live)
    send(page, "weather in Paris")
    page.wait_for_selector(".trow[data-type=RUN_FINISHED]")
    page.wait_for_function("() => document.getElementById('run-status').textContent === 'idle'")
    # The conversation: the user's message, the tool call with its result, the answer.
    assert page.inner_text(".msg.user").endswith("weather in Paris")
    tool_call = page.inner_text(".toolcall")
    assert "get_weather" in tool_call
    assert (
        '"temperature_c": 23' in tool_call
        or str(lookup_weather("Paris")["temperature_c"]) in tool_call
    )
    assert "It is" in page.inner_text("#conversation")
    # The timeline holds every event of the run, in order, with categories.
    types = page.evaluate("window.__inspector.timeline.rows.map(r => r.type)")
    assert types[0] == "RUN_STARTED"
    assert types[-1] == "RUN_FINISHED"
    assert page.get_attribute(".trow[data-type=TOOL_CALL_START]", "data-cat") == "tool"
    assert page.inner_text("#counts").endswith(" events")
    # The state tree after the last state change, and what that change did.
    last_delta = max(i for i, kind in enumerate(types) if kind == "STATE_DELTA")
    page.click(f".trow[data-index='{last_delta}']")
    page.click("#tab-state")
    value = page.wait_for_selector("#state-tree [data-path='/weather/Paris/temperature_c']")
    assert value.inner_text().endswith(str(lookup_weather("Paris")["temperature_c"]))
    assert page.inner_text("#state-tree [data-path='/last_city']") == 'last_city: "Paris"'
    assert "/weather" in page.inner_text("#state-diff")
    # Event JSON, decoded and as received.
    page.click("#tab-event")
    decoded = json.loads(page.inner_text("#decoded"))
    assert decoded["type"] == "STATE_DELTA"
    assert json.loads(page.inner_text("#raw")) == decoded
    # Timing: first event, first text, rates and a waterfall with the tool call in it.
    page.click("#tab-timing")
    assert page.inner_text(
        "#timing-runs [data-measure='time to first text'] td:nth-child(2)"
    ).endswith("s")
    kinds = page.eval_on_selector_all("#waterfall .wf-row", "rows => rows.map(r => r.dataset.kind)")
    assert {"run", "tool", "step", "message", "reasoning"} <= set(kinds)
    page.screenshot(path=str(tmp_path / "live-light.png"))
    page.keyboard.press("t")
    assert page.get_attribute("html", "data-theme") == "dark"
    page.screenshot(path=str(tmp_path / "live-dark.png"))
    page.keyboard.press("t")
    # Nothing but the inspector's own server was asked for anything.
    assert all(url.startswith(live) for url in page.requests), page.requests


def test_an_interrupt_is_answered_from_the_page(page: Any, live: str) -> None:
    open_page(page, live)
    page.click("#new-thread")
    page.wait_for_function("() => document.querySelectorAll('#timeline .trow').length === 0")
    send(page, "book a table for two")
    page.wait_for_selector("[data-interrupt-card] button.primary")
    assert json.loads(page.input_value("textarea[data-interrupt]")) == {"approved": True}
    page.click("[data-interrupt-card] button.primary")
    page.wait_for_function(
        "() => document.getElementById('conversation').innerText"
        ".includes('your booking is confirmed')"
    )
    assert page.is_hidden("#waiting")


def test_a_subagent_gets_its_own_lane_and_a_crash_its_status(page: Any, live: str) -> None:
    open_page(page, live)
    new_thread(page)
    send(page, "research tides")
    page.wait_for_selector(".lane[data-lane]")
    # The lane's text streams in as the subagent's deltas arrive and the view is redrawn
    # on each one, so wait for the finished text rather than for a status change that can
    # land one frame before the last redraw.
    page.wait_for_function(
        "() => (document.querySelector('.lane[data-lane]')?.textContent ?? '')"
        ".includes('tides is worth a closer look')"
    )
    page.wait_for_function("() => document.getElementById('run-status').textContent === 'idle'")
    # The run's end redraws the view once more; read at once, the lane was seen mid-redraw
    # with its header only: wait until its shown text holds the finished reply.
    page.wait_for_function(
        "() => (document.querySelector('.lane[data-lane]')?.innerText ?? '')"
        ".includes('tides is worth a closer look')"
    )
    lane = page.inner_text(".lane[data-lane]")
    assert lane.startswith("subagent researcher")
    assert "tides is worth a closer look" in lane
    send(page, "crash")
    page.wait_for_selector(".trow[data-type=RUN_ERROR]")
    page.wait_for_function(
        "() => document.getElementById('run-status').textContent.includes('RunError')"
    )


def test_runs_of_other_clients_arrive_through_the_tap(page: Any, live: str, demo_base: str) -> None:
    open_page(page, live)
    page.wait_for_function(
        "() => document.getElementById('mode').textContent.includes('tap: watching')"
    )
    body = {
        "threadId": "from-elsewhere",
        "runId": "r1",
        "messages": [{"id": "u1", "role": "user", "content": "weather in Rome"}],
    }
    with httpx.stream("POST", demo_base + "/agent", json=body, timeout=10) as response:
        response.read()
    page.wait_for_function(
        "() => [...document.querySelectorAll('#session-select option')].some(o => o.text.startsWith('tapped thread from-elsewhere'))"  # noqa: E501
    )
    choose_session(page, "tapped thread from-elsewhere")
    page.wait_for_selector(".trow[data-type=RUN_FINISHED]")
    assert "weather in Rome" in page.inner_text(".msg.user")
    assert "Rome" in page.inner_text("#conversation")


def test_a_broken_recording_shows_the_finding_at_its_event(page: Any, recordings: str) -> None:
    open_page(page, recordings)
    choose_session(page, "broken.jsonl")
    page.wait_for_selector("#error-badge")
    assert page.inner_text("#error-badge") == "1 error"
    row = page.wait_for_selector(".trow[data-index='2']")
    assert "f-error" in row.get_attribute("class")
    assert row.get_attribute("data-type") == "TEXT_MESSAGE_CONTENT"
    assert "unverified" in page.get_attribute(".trow[data-index='3']", "class")
    page.click("#tab-findings")
    finding = page.wait_for_selector(".finding.error")
    assert "[T2]" in finding.inner_text()
    assert "at #2" in finding.inner_text()
    finding.click()
    assert page.get_attribute(".trow[data-index='2']", "aria-selected") == "true"
    page.wait_for_selector("#panel-event .finding.error")
    # The state after the violating event is still shown.
    page.click(".trow[data-index='3']")
    page.click("#tab-state")
    assert page.inner_text("#state-tree [data-path='/step']") == "step: 2"


def test_playback_keeps_the_recorded_timing_at_the_chosen_speed(page: Any, recordings: str) -> None:
    open_page(page, recordings)
    choose_session(page, "paced.jsonl")
    page.wait_for_selector(f".trow[data-index='{PACED_EVENTS - 1}']")
    page.select_option("#speed", "2")
    page.wait_for_function("() => window.__inspector.summary.status.playback.speed === 2")
    page.click("#play")  # at the end, Play starts over from the first event
    page.wait_for_function("() => window.__inspector.summary.status.playback.playing")
    page.wait_for_function(
        f"() => Object.keys(window.__inspector.arrivals).length === {PACED_EVENTS}"
        " && !window.__inspector.summary.status.playback.playing",
        timeout=15000,
    )
    arrivals = page.evaluate("window.__inspector.arrivals")
    times = [arrivals[str(i)] / 1000 for i in range(PACED_EVENTS)]
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    expected = PACE / 2
    assert all(abs(gap - expected) < 0.1 for gap in gaps), gaps
    assert abs((times[-1] - times[0]) - expected * (PACED_EVENTS - 1)) < 0.2
    # Jump to any event: the timeline then ends there.
    page.fill("#jump", "2")
    page.press("#jump", "Enter")
    page.wait_for_function("() => document.querySelectorAll('#timeline .trow').length === 3")
    assert page.get_attribute(".trow[data-index='2']", "aria-selected") == "true"


def test_the_page_is_usable_from_the_keyboard(page: Any, recordings: str) -> None:
    open_page(page, recordings)
    choose_session(page, "broken.jsonl")
    page.wait_for_selector(".trow[data-index='4']")
    page.focus("#timeline")
    for _ in range(3):
        page.keyboard.press("ArrowDown")
    assert page.get_attribute(".trow[aria-selected=true]", "data-index") == "2"
    page.keyboard.press("End")
    assert page.get_attribute(".trow[aria-selected=true]", "data-index") == "4"
    page.keyboard.press("Home")
    page.keyboard.press("n")  # the next finding
    assert page.get_attribute(".trow[aria-selected=true]", "data-index") == "2"
    page.keyboard.press("2")
    assert page.get_attribute("#tab-state", "aria-selected") == "true"
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "search"
    page.keyboard.type("ghost")
    page.wait_for_function(
        "() => document.getElementById('counts').textContent === '1 of 5 events'"
    )
    page.keyboard.press("Escape")
    page.wait_for_function("() => document.getElementById('counts').textContent === '5 events'")
    page.click("button[data-category=state]")
    page.wait_for_function(
        "() => document.getElementById('counts').textContent === '3 of 5 events'"
    )
    page.keyboard.press("?")
    assert page.is_visible("#help-dialog")
    page.keyboard.press("Escape")


def test_export_downloads_a_recording_the_sdk_reads(page: Any, recordings: str) -> None:
    open_page(page, recordings)
    choose_session(page, "broken.jsonl")
    page.wait_for_selector(".trow[data-index='4']")
    with page.expect_download() as download:
        page.click("#export")
    path = Path(download.value.path())
    recording = read_recording(path.read_bytes())
    assert download.value.suggested_filename == "broken.jsonl"
    assert [
        e.model_dump(by_alias=True, mode="json", exclude_none=True) for e in recording.events
    ] == broken_run()
    assert [e.at for e in recording.runs[0].events] == [0.1, 0.2, 0.3, 0.4, 0.5]


def test_the_page_server_refuses_other_sites(recordings: str) -> None:
    # DNS rebinding: a request naming another host is refused; a POST needs the page's header.
    assert httpx.get(recordings + "/api/info", headers={"host": "evil.example"}).status_code == 403
    refused = httpx.post(recordings + "/api/threads", json={})
    assert refused.status_code == 403
    assert "X-AGUI-Inspector" in refused.json()["error"]
    time.sleep(0)  # (nothing to wait for: both answers are immediate)


def test_stored_threads_are_listed_and_one_opens_with_its_conversation(
    page: Any, tmp_path: Path
) -> None:
    from ag_ui.store import SqliteThreadStore

    store = SqliteThreadStore(tmp_path / "threads.db")
    app = create_demo_app(delay=0, threads=store, public_thread_history=True)
    with serve(app, lifespan="off") as agent_base:
        agent_url = agent_base + "/agent"
        body = {
            "threadId": "kept-1",
            "runId": "r1",
            "messages": [{"id": "u1", "role": "user", "content": "weather in Lisbon"}],
        }
        assert httpx.post(agent_url, json=body, timeout=20).status_code == 200
        inspector = Inspector(url=agent_url)
        inspector.new_thread()
        with serve(create_inspector_app(inspector)) as base:
            open_page(page, base)
            page.click("#stored-threads")
            entry = page.wait_for_selector(".stored-thread[data-thread-id=kept-1]")
            assert "weather in Lisbon" in entry.inner_text()
            entry.click()
            page.wait_for_function(
                "() => document.getElementById('run-status').textContent === 'idle'"
            )
            page.wait_for_selector(".msg.user")
            # The stored conversation, as one restoring run: snapshots, not a replay.
            assert page.inner_text(".msg.user").endswith("weather in Lisbon")
            assert "Lisbon" in page.inner_text("#conversation")
            types = page.evaluate("window.__inspector.timeline.rows.map(r => r.type)")
            assert types == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT", "RUN_FINISHED"]
            # And it goes on: the next turn continues the stored thread.
            send(page, "weather in Oslo")
            page.wait_for_function(
                "() => window.__inspector.timeline.rows.filter(r => r.type === 'RUN_FINISHED')"
                ".length === 2"
            )
        stored = httpx.get(agent_url + "/threads/kept-1", timeout=20).json()
        assert stored["runCount"] == 2
        assert [m["content"] for m in stored["messages"] if m["role"] == "user"] == [
            "weather in Lisbon",
            "weather in Oslo",
        ]


def test_a_cancelled_runs_half_reply_opens_marked_incomplete(page: Any, tmp_path: Path) -> None:
    import anyio

    from ag_ui.core import AssistantMessage, UserMessage
    from ag_ui.store import RunSummary, SqliteThreadStore
    from ag_ui.store._thread_base import INCOMPLETE_KEY

    store = SqliteThreadStore(tmp_path / "threads.db")
    messages = [
        UserMessage(id="u1", content="Tell me a story"),
        AssistantMessage(
            id="a1", content="Once upon a", metadata={INCOMPLETE_KEY: {"incomplete": "cancelled"}}
        ),
    ]
    run = RunSummary(run_id="r1", outcome="cancelled", started_at=0.0, finished_at=1.0)

    async def save() -> None:
        await store.save("cut-1", owner=None, messages=messages, state=None, run=run)

    with ThreadPoolExecutor(1) as pool:  # this thread runs the browser's event loop
        pool.submit(anyio.run, save).result()
    app = create_demo_app(delay=0, threads=store, public_thread_history=True)
    with serve(app, lifespan="off") as agent_base:
        inspector = Inspector(url=agent_base + "/agent")
        inspector.new_thread()
        with serve(create_inspector_app(inspector)) as base:
            open_page(page, base)
            page.click("#stored-threads")
            page.wait_for_selector(".stored-thread[data-thread-id=cut-1]").click()
            reply = page.wait_for_selector(".msg.assistant.incomplete")
            assert "Once upon a" in reply.inner_text()
            assert reply.inner_text().endswith("incomplete: run cancelled")


def test_an_agent_without_threads_says_so(page: Any, live: str) -> None:
    open_page(page, live)
    page.click("#stored-threads")
    page.wait_for_selector("#stored-list p:has-text('keeps no threads')")
