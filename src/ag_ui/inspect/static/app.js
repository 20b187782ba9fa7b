// The AG-UI inspector page. Talks only to the server that served it: GET /api/info once, an SSE
// stream per followed session (/api/stream), event details on selection, and POSTs for turns,
// tool results, interrupt answers and playback controls. No framework, no build step.
import {api, clear, h, pretty, seconds} from "./dom.js";
import {Timeline} from "./timeline.js";
import {renderConversation, renderEvent, renderFindings, renderState, renderTiming} from "./views.js";

const $ = (id) => document.getElementById(id);
const TABS = ["event", "state", "findings", "timing"];

// Everything the page knows, in one place (also handy from the devtools console and in tests).
const page = {
  info: null, sessionId: null, summary: null, conversation: {messages: [], interrupts: []},
  timing: null, findings: {findings: [], total: 0}, detail: null, tab: "event",
  arrivals: {}, subagentNames: new Map(), source: null, detailRequest: 0,
};
window.__inspector = page;

const timeline = new Timeline($("timeline"), $("timeline-spacer"), {onSelect: showDetail});
page.timeline = timeline;

// -- theme --------------------------------------------------------------------------------
function applyTheme(theme) {
  document.documentElement.dataset.theme = theme;
  try { localStorage.setItem("agui-inspector-theme", theme); } catch (_) { /* private mode */ }
}
function initialTheme() {
  try {
    const saved = localStorage.getItem("agui-inspector-theme");
    if (saved) return saved;
  } catch (_) { /* private mode */ }
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}
applyTheme(initialTheme());
$("theme").addEventListener("click", () => applyTheme(document.documentElement.dataset.theme === "dark" ? "light" : "dark"));

// -- sessions and the stream ------------------------------------------------------------------
function showSessions(info) {
  page.info = {...page.info, ...info};
  const select = $("session-select");
  clear(select);
  for (const s of info.sessions) {
    select.append(h("option", {value: s.id, selected: s.id === page.sessionId},
      `${s.title} (${s.kind}, ${s.events} events)`));
  }
  const tap = info.tap ? ` · tap: ${info.tap}` : "";
  $("mode").textContent = info.mode === "live" ? `agent ${info.url}${tap}` : "recording playback";
  if (!page.sessionId && info.sessions.length) follow(info.sessions[0].id);
}

function follow(sessionId) {
  if (page.source) page.source.close();
  page.sessionId = sessionId;
  page.detail = null;
  timeline.reset({keepSelection: false});
  page.arrivals = {};
  page.subagentNames = new Map();
  page.allMessages = false;
  $("session-select").value = sessionId;
  clear($("panel-event")).append(h("p", {class: "muted"}, "Select an event."));
  const source = new EventSource(`/api/stream?session=${encodeURIComponent(sessionId)}`);
  source.onmessage = (message) => handle(JSON.parse(message.data));
  page.source = source;
}

function handle(message) {
  switch (message.kind) {
    case "sessions": showSessions(message); break;
    case "reset":
      timeline.reset();
      page.arrivals = {};
      break;
    case "rows": {
      const now = performance.now();
      for (const row of message.rows) {
        page.arrivals[row.i] = now;
        if (row.type === "SUBAGENT_STARTED") {
          const wire = JSON.parse(row.json);
          page.subagentNames.set(wire.subagentRunId, wire.name);
        }
      }
      timeline.append(message.from, message.rows);
      showCounts();
      break;
    }
    case "conversation":
      page.conversation = message;
      drawConversation();
      break;
    case "timing":
      page.timing = message;
      if (page.tab === "timing") renderTiming($("panel-timing"), message, pick);
      break;
    case "findings":
      page.findings = message;
      $("findings-count").textContent = message.total ? `(${message.total})` : "";
      if (page.tab === "findings") renderFindings($("panel-findings"), message, page.summary?.notices || [], pick);
      break;
    case "summary": showSummary(message.session); break;
  }
}

function drawConversation() {
  renderConversation($("conversation"), page.conversation, page.subagentNames, {
    all: page.allMessages,
    onShowAll: () => { page.allMessages = true; drawConversation(); },
  });
}

function showCounts() {
  const total = timeline.rows.length;
  const shown = timeline.shown.length;
  $("counts").textContent = shown === total ? `${total} events` : `${shown} of ${total} events`;
}

function showSummary(summary) {
  page.summary = summary;
  const option = $("session-select").querySelector(`option[value="${summary.id}"]`);
  if (option) option.textContent = `${summary.title} (${summary.kind}, ${summary.events} events)`;
  const status = summary.status || {};
  const badges = clear($("badges"));
  if (summary.errors) badges.append(h("span", {class: "badge error", id: "error-badge"}, `${summary.errors} error${summary.errors > 1 ? "s" : ""}`));
  else if (summary.events) badges.append(h("span", {class: "badge ok"}, "verified"));
  if (summary.notices.length) badges.append(h("span", {class: "badge warn"}, `${summary.notices.length} note${summary.notices.length > 1 ? "s" : ""}`));
  const live = summary.kind === "live";
  $("composer").hidden = !live;
  $("run-status").textContent = live ? `${status.state || "idle"}${status.error ? ` · ${status.error}` : ""}` : "";
  $("run-status").classList.toggle("error", Boolean(status.error));
  $("send").disabled = status.state === "running";
  $("stop").disabled = status.state !== "running";
  showWaiting(live ? status : {});
  showPlayback(summary.kind === "recording" ? status.playback : null, summary);
  if (page.tab === "findings") renderFindings($("panel-findings"), page.findings, summary.notices, pick);
}

// -- playback -----------------------------------------------------------------------------------
function showPlayback(playback, summary) {
  $("playback").hidden = !playback;
  if (!playback) return;
  $("play").textContent = playback.playing ? "⏸" : "▶";
  $("play").setAttribute("aria-label", playback.playing ? "Pause" : "Play");
  const position = $("position");
  position.max = String(playback.total);
  if (document.activeElement !== position) position.value = String(playback.position);
  $("speed").value = String(playback.speed);
  const rows = timeline.rows;
  const now = playback.position > 0 && rows[playback.position - 1] ? rows[playback.position - 1].t : 0;
  $("clock").textContent = `${playback.position}/${playback.total}` +
    (summary.duration !== null ? ` · ${seconds(now || 0, 2)} of ${seconds(summary.duration, 2)}` : "");
}

function playback(action, value) {
  return api(`/api/sessions/${page.sessionId}/playback`, {action, value}).catch(showError);
}

$("play").addEventListener("click", () => playback(page.summary?.status?.playback?.playing ? "pause" : "play"));
$("speed").addEventListener("change", (e) => playback("speed", Number(e.target.value)));
$("position").addEventListener("change", (e) => playback("seek", Number(e.target.value)));
$("jump").addEventListener("keydown", (e) => {
  if (e.key !== "Enter") return;
  const n = Number(e.target.value);
  timeline.selected = n;  // shown selected as soon as the row is there again
  playback("seek", n + 1).then(() => showDetail(n));
});

// -- details -------------------------------------------------------------------------------------
async function showDetail(index) {
  const request = ++page.detailRequest;
  const detail = await api(`/api/sessions/${page.sessionId}/events/${index}`).catch(showError);
  if (!detail || request !== page.detailRequest) return;
  page.detail = detail;
  renderEvent($("panel-event"), detail);
  renderState($("panel-state"), detail);
}

function pick(index) {
  timeline.select(index);
  selectTab(page.tab === "findings" || page.tab === "timing" ? "event" : page.tab);
}

function selectTab(name) {
  page.tab = name;
  for (const tab of TABS) {
    const button = $(`tab-${tab}`);
    button.setAttribute("aria-selected", String(tab === name));
    button.tabIndex = tab === name ? 0 : -1;
    $(`panel-${tab}`).hidden = tab !== name;
  }
  if (name === "timing" && page.timing) renderTiming($("panel-timing"), page.timing, pick);
  if (name === "findings") renderFindings($("panel-findings"), page.findings, page.summary?.notices || [], pick);
}
for (const tab of TABS) $(`tab-${tab}`).addEventListener("click", () => selectTab(tab));
document.querySelector(".tabs").addEventListener("keydown", (e) => {
  const at = TABS.indexOf(page.tab);
  if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
    const next = TABS[(at + (e.key === "ArrowRight" ? 1 : TABS.length - 1)) % TABS.length];
    selectTab(next);
    $(`tab-${next}`).focus();
  }
});

// -- filters ------------------------------------------------------------------------------------
function buildFilters(categories) {
  const chips = $("categories");
  for (const category of categories) {
    chips.append(h("button", {type: "button", class: `chip cat-${category}`, "aria-pressed": "true", "data-category": category,
      onclick: (e) => {
        const hidden = timeline.filters.categories;
        if (hidden.has(category)) hidden.delete(category); else hidden.add(category);
        e.currentTarget.setAttribute("aria-pressed", String(!hidden.has(category)));
        timeline.refilter();
        showCounts();
      }}, category));
  }
}
let searchTimer = 0;
$("search").addEventListener("input", (e) => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => {
    timeline.filters.query = e.target.value.trim().toLowerCase();
    timeline.refilter();
    showCounts();
  }, 60);
});
$("only-findings").addEventListener("change", (e) => {
  timeline.filters.findingsOnly = e.target.checked;
  timeline.refilter();
  showCounts();
});

// -- live conversations ----------------------------------------------------------------------------
function showError(error) {
  $("run-status").textContent = error.message;
  $("run-status").classList.add("error");
}

function jsonOption(id, label, fallback) {
  const text = $(id).value.trim();
  if (!text) return fallback;
  try { return JSON.parse(text); } catch (error) { throw new Error(`${label} is not valid JSON: ${error.message}`); }
}

$("composer").addEventListener("submit", async (e) => {
  e.preventDefault();
  $("options-error").textContent = "";
  let body;
  try {
    body = {
      message: $("message").value,
      transport: $("transport").value,
      state: jsonOption("opt-state", "Initial state", undefined),
      forwardedProps: jsonOption("opt-props", "Forwarded props", undefined),
      context: jsonOption("opt-context", "Context", []),
      tools: jsonOption("opt-tools", "Frontend tools", []),
    };
  } catch (error) {
    $("options-error").textContent = error.message;
    $("composer").querySelector("details").open = true;
    return;
  }
  try {
    await api(`/api/sessions/${page.sessionId}/turn`, body);
    $("message").value = "";
    $("opt-state").value = "";  // the initial state goes with one run only
  } catch (error) { showError(error); }
});
$("message").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); $("composer").requestSubmit(); }
});
$("stop").addEventListener("click", () => api(`/api/sessions/${page.sessionId}/stop`, {}).catch(showError));
$("new-thread").addEventListener("click", async () => {
  const session = await api("/api/threads", {}).catch(showError);
  if (session) follow(session.id);
});

// Threads the agent keeps (an AgentEndpoint with a thread store): list them, open one; the
// opened thread is a live conversation that starts by restoring it (HttpAgent.load_thread).
$("stored-threads").addEventListener("click", async () => {
  const list = $("stored-list");
  const opening = list.hidden;
  list.hidden = !opening;
  $("stored-threads").setAttribute("aria-expanded", String(opening));
  if (!opening) return;
  clear(list).append(h("p", {class: "muted"}, "Loading…"));
  let answer;
  try {
    answer = await api("/api/stored-threads");
  } catch (error) { showError(error); list.hidden = true; return; }
  clear(list);
  if (!answer.available) { list.append(h("p", {class: "muted"}, answer.reason)); return; }
  if (!answer.threads.length) { list.append(h("p", {class: "muted"}, "No stored threads yet.")); return; }
  for (const thread of answer.threads) {
    const when = new Date(thread.updatedAt * 1000).toLocaleString();
    list.append(h("button", {type: "button", class: "stored-thread", "data-thread-id": thread.threadId,
      title: `${thread.threadId} · updated ${when}`, onclick: async () => {
        list.hidden = true;
        $("stored-threads").setAttribute("aria-expanded", "false");
        const session = await api("/api/stored-threads", {threadId: thread.threadId, title: thread.title || null}).catch(showError);
        if (session) follow(session.id);
      }}, h("strong", {}, thread.title || "(untitled)"),
      h("span", {class: "muted"}, ` ${thread.messageCount} messages · ${thread.runCount} runs · ${when}`)));
  }
});

function skeleton(schema) {
  if (!schema || typeof schema !== "object") return {};
  if (schema.type === "object") {
    const value = {};
    for (const [key, sub] of Object.entries(schema.properties || {})) value[key] = skeleton(sub);
    return value;
  }
  return {boolean: true, string: "", number: 0, integer: 0, array: []}[schema.type] ?? null;
}

function showWaiting(status) {
  const box = clear($("waiting"));
  const tools = status.pendingTools || [];
  const interrupts = status.interrupts || [];
  box.hidden = !tools.length && !interrupts.length;
  for (const call of tools) {
    const answer = h("textarea", {rows: 2, spellcheck: "false", "aria-label": `Result of ${call.name}`, "data-tool-call": call.id}, "");
    box.append(h("div", {class: "card"}, h("strong", {}, `Frontend tool ${call.name}`), h("pre", {class: "json"}, call.arguments),
      h("label", {}, "Result (JSON or text)", answer),
      h("button", {type: "button", class: "primary", onclick: () => {
        let result = answer.value;
        try { result = JSON.parse(result); } catch (_) { /* plain text result */ }
        api(`/api/sessions/${page.sessionId}/tools`, {results: {[call.id]: result}}).catch(showError);
      }}, "Send result")));
  }
  for (const interrupt of interrupts) {
    const payload = h("textarea", {rows: 2, spellcheck: "false", "aria-label": `Answer to ${interrupt.id}`, "data-interrupt": interrupt.id},
      pretty(skeleton(interrupt.responseSchema)));
    const answer = (status) => {
      let response = {status};
      if (status === "resolved") {
        try { response.payload = JSON.parse(payload.value); } catch (error) { showError(new Error(`the answer is not JSON: ${error.message}`)); return; }
      }
      api(`/api/sessions/${page.sessionId}/resume`, {responses: {[interrupt.id]: response}}).catch(showError);
    };
    box.append(h("div", {class: "card", "data-interrupt-card": interrupt.id},
      h("strong", {}, `Interrupt: ${interrupt.message || interrupt.reason}`),
      interrupt.responseSchema ? h("pre", {class: "json"}, pretty(interrupt.responseSchema)) : null,
      h("label", {}, "Answer (JSON)", payload),
      h("div", {class: "row-buttons"},
        h("button", {type: "button", class: "primary", onclick: () => answer("resolved")}, "Resolve"),
        h("button", {type: "button", onclick: () => answer("cancelled")}, "Cancel interrupt"))));
  }
}

// -- export ------------------------------------------------------------------------------------------
$("export").addEventListener("click", () => {
  const format = $("export-format").value;
  const link = h("a", {href: `/api/sessions/${page.sessionId}/export?format=${format}`, download: ""});
  document.body.append(link);
  link.click();
  link.remove();
});

// -- keyboard ------------------------------------------------------------------------------------------
$("help").addEventListener("click", () => $("help-dialog").showModal());
$("help-close").addEventListener("click", () => $("help-dialog").close());
$("session-select").addEventListener("change", (e) => follow(e.target.value));
$("timeline").addEventListener("keydown", (e) => {
  const moves = {ArrowDown: 1, j: 1, ArrowUp: -1, k: -1, PageDown: timeline.pageSize(), PageUp: -timeline.pageSize()};
  if (e.key in moves) { timeline.move(moves[e.key]); e.preventDefault(); }
  else if (e.key === "Home") { timeline.move(-Infinity); e.preventDefault(); }
  else if (e.key === "End") { timeline.move(Infinity); e.preventDefault(); }
  else if (e.key === "Enter") { $(`panel-${page.tab}`).focus(); e.preventDefault(); }
});
document.addEventListener("keydown", (e) => {
  const typing = e.target.closest("input, textarea, select");
  if (e.key === "Escape" && e.target === $("search")) { $("search").value = ""; $("search").dispatchEvent(new Event("input")); return; }
  if (typing || e.ctrlKey || e.metaKey || e.altKey || $("help-dialog").open) return;
  if (e.key === "/") { $("search").focus(); e.preventDefault(); }
  else if (e.key === "?") $("help-dialog").showModal();
  else if (e.key === "t") $("theme").click();
  else if (e.key === "n") timeline.nextFinding(1);
  else if (e.key === "N") timeline.nextFinding(-1);
  else if (e.key >= "1" && e.key <= "4") selectTab(TABS[Number(e.key) - 1]);
  else if (e.key === " " && !e.target.closest("button") && page.summary?.kind === "recording") { $("play").click(); e.preventDefault(); }
  else if (e.key === "g" && timeline.selected >= 0 && page.summary?.kind === "recording") playback("seek", timeline.selected).then(() => playback("play"));
});

// -- start ---------------------------------------------------------------------------------------------
(async () => {
  const info = await api("/api/info");
  buildFilters(info.categories);
  for (const speed of info.speeds) $("speed").append(h("option", {value: String(speed)}, `${speed}×`));
  $("transport").value = info.proto ? "proto" : "sse";
  showSessions(info);
  document.body.dataset.ready = "true";
})();
