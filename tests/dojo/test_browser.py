"""Every dojo feature in a real browser: CopilotKit's own React packages (``tests/dojo/web``,
pinned) on Debian's headless Chromium, the CopilotKit runtime on Node proxying to the feature
server (``create_dojo_app``, scripted) on a real uvicorn. Each test asserts what the dojo's
specs for the server-starter-all-features integration assert, and more where they are loose
(the background really changes, the steps kept are the ones the agent carries out, an edit made
in the page reaches the agent). Screenshots go to ``$AG_UI_DOJO_SCREENSHOTS`` when set (how
``docs/images/dojo-*.png`` are made), else to the test's temp directory.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import playwright.sync_api as playwright_api  # a dev dependency: imported, never skipped
import pytest

from ag_ui.demo import create_dojo_app
from tests.demo.chat_replies import text_reply, tool_call_reply
from tests.dojo.web_build import ensure_built
from tests.providers.agui_server import UvicornThread
from tests.providers.fake_provider import CHAT, FakeProvider
from tests.support.chromium import chromium_context

expect = playwright_api.expect

TIMEOUT_MS = 20_000
expect.set_options(timeout=TIMEOUT_MS)


@pytest.fixture(scope="module")
def feature_server() -> Iterator[str]:
    # A little delay between streamed pieces, so that the page sees them arrive one by one.
    server = UvicornThread(create_dojo_app(delay=0.02))
    server.start()
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        server.stop()


@contextmanager
def copilotkit_runtime(feature_base: str, log: Path) -> Iterator[str]:
    """The built pages and the CopilotKit runtime (``server.mjs``) on a port the OS picks,
    proxying to the feature server at ``feature_base``; yields the pages' base URL. Its output
    goes to ``log`` (shown when it stops on its own)."""
    if shutil.which("node") is None:
        pytest.fail("node is missing: the dojo browser tests need Node.js 20.19+")
    web = ensure_built()
    with log.open("w") as output:
        node = subprocess.Popen(
            ["node", "server.mjs", "0", feature_base],
            cwd=web,
            stdout=output,
            stderr=subprocess.STDOUT,
            text=True,
        )
    try:
        deadline = time.monotonic() + 30
        while not (match := re.search(r"dojo pages on (http://127\.0\.0\.1:\d+)", log.read_text())):
            if node.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"server.mjs did not start:\n{log.read_text()}")
            time.sleep(0.05)
        yield match.group(1)
        if node.poll() is not None:
            pytest.fail(f"server.mjs stopped during the tests:\n{log.read_text()}")
    finally:
        node.terminate()
        node.wait(timeout=10)


@pytest.fixture(scope="module")
def pages(feature_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("runtime") / "server.mjs.log"
    with copilotkit_runtime(feature_server, log) as base:
        yield base


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    profile = tmp_path_factory.mktemp("chromium-profile")
    with chromium_context(profile) as context:
        context.set_default_timeout(TIMEOUT_MS)
        yield context


@contextmanager
def feature_pages(browser: Any, base: str, folder: Path, prefix: str) -> Iterator[Any]:
    """``open_page(name)``: a fresh page on ``base/feature/<name>``; screenshots at the end
    (``<prefix><name>.png`` in ``folder``), and no uncaught error in any page."""
    opened: list[tuple[str, Any]] = []
    errors: list[str] = []

    def open_page(feature: str) -> Any:
        page = browser.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{base}/feature/{feature}")
        page.wait_for_load_state("networkidle")  # CopilotKit has asked the runtime for its agents
        opened.append((feature, page))
        return page

    yield open_page
    for feature, page in opened:
        page.screenshot(path=str(folder / f"{prefix}{feature}.png"))
        page.close()
    assert errors == []


def screenshots(tmp_path: Path) -> Path:
    return Path(os.environ.get("AG_UI_DOJO_SCREENSHOTS") or tmp_path)


@pytest.fixture
def open_feature(browser: Any, pages: str, tmp_path: Path) -> Iterator[Any]:
    with feature_pages(browser, pages, screenshots(tmp_path), "dojo-") as open_page:
        yield open_page


def send(page: Any, text: str) -> None:
    """Type ``text`` in the chat and send it, until the chat keeps it as the user's message. A
    message sent before CopilotKit has loaded the runtime's agents (slow on a busy machine) is
    not kept: it is shown, then taken back into the box, or dropped; it is sent again."""
    chat = page.locator(".chat")
    box = chat.get_by_role("textbox").last
    shown = chat.get_by_text(text, exact=True)
    already = shown.count()
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while time.monotonic() < deadline:
        if box.input_value() == "":
            box.fill(text)
        box.press("Enter")
        try:
            expect(shown).to_have_count(already + 1, timeout=1000)
            page.wait_for_timeout(300)  # kept, not taken back
            expect(shown).to_have_count(already + 1, timeout=100)
            expect(box).to_have_value("", timeout=100)
        except AssertionError:
            continue
        return
    raise AssertionError(f"the chat did not take the message {text!r}")


def test_agentic_chat_counts_down_then_changes_the_background(open_feature: Any) -> None:
    page = open_feature("agentic_chat")
    expect(page.get_by_text("Hi, I'm an agent. Want to chat?")).to_be_visible()
    send(page, "Hey there")
    countdown = page.locator(".chat").get_by_text("counting down:")
    expect(countdown).to_contain_text("✓")
    assert re.search(
        r"counting down:\s*10\s+9\s+8\s+7\s+6\s+5\s+4\s+3\s+2\s+1\s+✓", countdown.inner_text()
    )
    send(page, "Change the background to blue")
    expect(page.get_by_test_id("background-container")).to_have_css(
        "background-color", "rgb(0, 0, 255)"
    )
    expect(page.locator(".chat").get_by_text("background changed ✓")).to_be_visible()


def test_backend_tool_rendering_shows_the_weather_card(open_feature: Any) -> None:
    page = open_feature("backend_tool_rendering")
    send(page, "What is the weather in Tokyo?")
    expect(page.get_by_test_id("weather-city")).to_have_text("Tokyo")
    expect(page.get_by_test_id("weather-details")).to_contain_text("sunny, 20°C")
    expect(page.get_by_text("It is sunny in Tokyo")).to_be_visible()
    # A second city (the dojo's spec asks two): a second card, the first one kept.
    send(page, "And the weather in New York?")
    expect(page.get_by_test_id("weather-city")).to_have_text(["Tokyo", "New York"])
    expect(page.get_by_test_id("weather-details")).to_have_count(2)


def test_human_in_the_loop_performs_the_steps_the_user_kept(open_feature: Any) -> None:
    page = open_feature("human_in_the_loop")
    send(page, "Please plan a trip to Mars in 10 steps")
    steps = page.get_by_test_id("step-item")
    expect(steps).to_have_count(10)
    perform = page.get_by_test_id("perform-steps")
    expect(perform).to_be_enabled()
    steps.nth(1).click()  # untick "Step 2"
    expect(perform).to_have_text("Perform steps (9)")
    perform.click()
    expect(page.get_by_test_id("steps-answer")).to_have_text("✓ Accepted")
    answer = page.get_by_text("Ok! I'm working on it: 9 steps")
    expect(answer).to_contain_text("Done ✓")
    assert "Step 1, Step 3," in answer.inner_text()


def test_agentic_generative_ui_renders_the_plan_as_it_progresses(open_feature: Any) -> None:
    page = open_feature("agentic_generative_ui")
    send(page, "Go to Mars")
    expect(page.get_by_test_id("plan-step")).to_have_count(10)
    expect(page.get_by_test_id("plan-progress")).to_have_text("10/10 steps completed")
    expect(page.locator(".step.completed")).to_have_count(10)
    expect(page.get_by_text("All 10 steps are completed ✓")).to_be_visible()


def test_tool_based_generative_ui_renders_the_haiku(open_feature: Any) -> None:
    page = open_feature("tool_based_generative_ui")
    send(page, "Write me a haiku about frogs")
    card = page.get_by_test_id("haiku-card")
    expect(card.get_by_test_id("haiku-japanese-line")).to_have_text(
        ["古池や", "蛙飛び込む", "水の音"]
    )
    expect(card.get_by_test_id("haiku-english-line").first).to_have_text("An old silent pond")
    expect(page.locator(".chat").get_by_text("Haiku created")).to_be_visible()
    # A second prompt (the dojo's spec asks two): a second card, rendered the same way.
    send(page, "And one about the moon")
    expect(page.get_by_test_id("haiku-card")).to_have_count(2)
    expect(
        page.get_by_test_id("haiku-card").last.get_by_test_id("haiku-japanese-line")
    ).to_have_count(3)
    expect(page.locator(".chat").get_by_text("Haiku created")).to_have_count(2)


def test_shared_state_syncs_the_recipe_both_ways(open_feature: Any) -> None:
    page = open_feature("shared_state")
    send(page, 'Please give me a pasta recipe, with "Pasta" as one of the ingredients')
    cards = page.get_by_test_id("ingredient-card")
    expect(cards).to_have_count(4)
    expect(page.locator(".ingredient-name-input").nth(2)).to_have_value("Salt")
    expect(page.locator(".instruction-item")).to_have_count(3)
    # The user's edit, in the page: it reaches the agent with the next run's state.
    page.get_by_test_id("add-ingredient").click()
    expect(cards).to_have_count(5)
    cards.last.locator(".ingredient-name-input").fill("Potatoes")
    cards.last.locator(".ingredient-amount-input").fill("12")
    send(page, "Give me all the ingredients")
    # The agent names the ingredient the user added: the page's edit reached it.
    expect(page.get_by_text("Your recipe has 5 ingredients:")).to_contain_text("Potatoes")
    names = page.locator(".ingredient-name-input")
    expect(names).to_have_count(5)
    values = names.evaluate_all("inputs => inputs.map(input => input.value)")
    assert values == ["chicken breast", "chili powder", "Salt", "Lettuce leaves", "Potatoes"]
    expect(page.locator(".instruction-item")).to_have_count(3)


STORY = re.compile(r"Once upon a time, there was a dog named (\w+)\. \1 was a very good dog\.")


def write_and_answer(page: Any, message: str, round_number: int, button: str) -> str:
    """Ask for a document, watch the draft stream, answer with ``button``; the draft's text."""
    send(page, message)
    draft = page.get_by_test_id("document-draft").nth(round_number)
    expect(draft).to_contain_text(STORY)
    modal = page.get_by_test_id("confirm-changes-modal").nth(round_number)
    expect(modal.get_by_test_id(button)).to_be_enabled()
    modal.get_by_test_id(button).click()
    expected = "✓ Accepted" if button == "confirm-button" else "✗ Rejected"
    expect(modal.get_by_test_id("status-display")).to_have_text(expected)
    text: str = draft.inner_text()
    return text


def test_predictive_state_updates_stream_the_document_then_save_it(open_feature: Any) -> None:
    page = open_feature("predictive_state_updates")
    saved = page.get_by_test_id("saved-document")
    first = write_and_answer(page, "Write a story about a dog", 0, "confirm-button")
    expect(saved).to_contain_text(STORY)
    expect(page.get_by_text("The document is saved.")).to_have_count(1)
    original = saved.inner_text()
    assert original in first
    # The dojo's spec: a change asked for, approved, changes the document.
    write_and_answer(page, "Change the dog name", 1, "confirm-button")
    expect(page.get_by_text("The document is saved.")).to_have_count(2)
    expect(saved).not_to_have_text(original)
    expect(saved).to_contain_text(STORY)


def test_predictive_state_updates_keep_the_document_on_reject(open_feature: Any) -> None:
    page = open_feature("predictive_state_updates")
    saved = page.get_by_test_id("saved-document")
    write_and_answer(page, "Write a story about a dog", 0, "confirm-button")
    expect(saved).to_contain_text(STORY)
    original = saved.inner_text()
    proposed = write_and_answer(page, "Change the dog name", 1, "reject-button")
    assert original not in proposed  # another dog was proposed...
    expect(page.get_by_text("I left the document as it was.")).to_be_visible()
    expect(saved).to_have_text(original)  # ...and the document kept


# -- --model: the same pages, a model behind the feature server (the fake OpenAI server) --------


@pytest.fixture(scope="module")
def fake_model() -> Iterator[FakeProvider]:
    with FakeProvider() as fake:
        yield fake


@pytest.fixture(scope="module")
def model_pages(
    fake_model: FakeProvider, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    app = create_dojo_app(model="openai:gpt-4o-mini", base_url=fake_model.openai_url, api_key="k")
    server = UvicornThread(app)
    server.start()
    try:
        log = tmp_path_factory.mktemp("model-runtime") / "server.mjs.log"
        with copilotkit_runtime(f"http://127.0.0.1:{server.port}", log) as base:
            yield base
    finally:
        server.stop()


def test_a_model_changes_the_background_through_copilotkit(
    browser: Any, model_pages: str, fake_model: FakeProvider, tmp_path: Path
) -> None:
    fake_model.queue(
        CHAT,
        tool_call_reply("change_background", '{"background": "rgb(255, 200, 0)"}'),
        text_reply("Done: ", "the background is now yellow."),
    )
    with feature_pages(browser, model_pages, screenshots(tmp_path), "dojo-model-") as open_page:
        page = open_page("agentic_chat")
        send(page, "Make the background yellow")
        expect(page.get_by_test_id("background-container")).to_have_css(
            "background-color", "rgb(255, 200, 0)"
        )
        expect(page.get_by_text("Done: the background is now yellow.")).to_be_visible()
    first, second = fake_model.bodies(CHAT)[-2:]
    assert "change_background" in [t["function"]["name"] for t in first["tools"]]
    answer = second["messages"][-1]
    assert answer["role"] == "tool"
    assert "Background changed to rgb(255, 200, 0)" in answer["content"]
