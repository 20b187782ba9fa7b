// The inspector's views: conversation, event detail, state, findings and timing.
import {clear, h, jsonTree, pretty, seconds} from "./dom.js";

function contentText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => part.type === "text" ? part.text : `[${part.type}]`).join("");
  }
  return content === undefined || content === null ? "" : pretty(content);
}

function argumentsText(text) {
  try { return pretty(JSON.parse(text)); } catch (_) { return text; }
}

export const CONVERSATION_LIMIT = 300;

/**
 * The conversation as a user would see it; subagent messages go into their own lanes. Only the
 * last CONVERSATION_LIMIT messages are drawn unless `all` (a long session stays light).
 */
export function renderConversation(el, conversation, subagentNames, {all = false, onShowAll} = {}) {
  const stick = el.scrollTop + el.clientHeight >= el.scrollHeight - 8;
  clear(el);
  const hidden = all ? 0 : Math.max(0, conversation.messages.length - CONVERSATION_LIMIT);
  if (hidden) {
    el.append(h("button", {type: "button", id: "show-all-messages", onclick: onShowAll},
      `Show ${hidden} earlier messages`));
  }
  const results = new Map();
  for (const m of conversation.messages) if (m.role === "tool" && m.toolCallId) results.set(m.toolCallId, m);
  const lanes = new Map();
  for (const m of conversation.messages.slice(hidden)) {
    if (m.role === "tool" && results.get(m.toolCallId) === m && hasCall(conversation.messages, m.toolCallId)) continue;
    const bubble = messageElement(m, results);
    const lane = m.subagentRunId;
    if (!lane) { el.append(bubble); continue; }
    if (!lanes.has(lane)) {
      const box = h("div", {class: "lane", "data-lane": lane},
        h("span", {class: "lane-title"}, `subagent ${subagentNames.get(lane) || lane}`));
      lanes.set(lane, box);
      el.append(box);
    }
    lanes.get(lane).append(bubble);
  }
  for (const interrupt of conversation.interrupts || []) {
    el.append(h("div", {class: "msg activity"}, h("span", {class: "who"}, "interrupt"),
      interrupt.message || interrupt.reason || interrupt.id));
  }
  if (!conversation.messages.length) el.append(h("p", {class: "muted"}, "No messages yet."));
  if (stick) el.scrollTop = el.scrollHeight;
}

function hasCall(messages, id) {
  return messages.some((m) => (m.toolCalls || []).some((c) => c.id === id));
}

function messageElement(m, results) {
  const role = m.role || "message";
  const who = h("span", {class: "who"}, `${role}${m.name ? ` (${m.name})` : ""} · ${m.id}`);
  if (role === "activity") {
    return h("div", {class: "msg activity", "data-id": m.id}, who,
      h("strong", {}, m.activityType || "activity"), h("pre", {class: "json"}, pretty(m.content)));
  }
  if (role === "reasoning") {
    return h("details", {class: "msg reasoning", "data-id": m.id},
      h("summary", {}, "Reasoning"), contentText(m.content));
  }
  const bubble = h("div", {class: `msg ${role}`, "data-id": m.id}, who, contentText(m.content));
  // A cancelled run's half reply, as the thread store kept it (docs/threads.md, "Faults").
  const cut = ((m.metadata || {})["ag-ui-sdk"] || {}).incomplete;
  if (cut) {
    bubble.classList.add("incomplete");
    bubble.append(h("span", {class: "incomplete-mark"}, `incomplete: run ${cut}`));
  }
  for (const call of m.toolCalls || []) {
    const result = results.get(call.id);
    bubble.append(h("div", {class: "toolcall", "data-tool-call": call.id},
      h("strong", {}, `tool ${call.function.name}`),
      h("pre", {}, argumentsText(call.function.arguments)),
      result ? h("div", {}, h("span", {class: "muted"}, "result "), h("pre", {}, argumentsText(contentText(result.content))))
             : h("span", {class: "muted"}, "no result yet")));
  }
  return bubble;
}

/** The selected event: decoded JSON, as received, its run's request, its findings. */
export function renderEvent(el, detail) {
  clear(el);
  const row = detail.row;
  el.append(h("h3", {}, `#${row.i} ${row.type}`),
    h("p", {class: "muted"}, `run ${row.run + 1}`, row.t !== null ? ` · at ${seconds(row.t)}` : "",
      detail.gap !== null ? ` · ${seconds(detail.gap)} after the previous event` : "",
      row.lane ? ` · subagent ${row.lane}` : "", row.v ? "" : " · not verified (after a violation)"));
  for (const f of detail.findings) el.append(findingElement(f));
  el.append(h("h3", {}, "Decoded"), h("pre", {class: "json", id: "decoded"}, pretty(detail.decoded)));
  el.append(h("h3", {}, "As received"), h("pre", {class: "json", id: "raw"},
    detail.raw === null ? "(a recording keeps the decoded event only)" : detail.raw));
  if (detail.traceId) {
    el.append(h("h3", {}, "Trace"), h("p", {}, "OpenTelemetry trace id ",
      h("code", {id: "trace-id"}, detail.traceId)));
  }
  if (detail.runInput) {
    el.append(h("h3", {}, "Request of this run (RunAgentInput)"), jsonTree(detail.runInput, {open: 1}));
  }
}

/** The state after the selected event, and what changed since the event before it. */
export function renderState(el, detail) {
  clear(el);
  el.append(h("h3", {}, `State after #${detail.row.i}`));
  el.append(detail.state === null || detail.state === undefined
    ? h("p", {class: "muted"}, "No state yet.") : h("div", {id: "state-tree"}, jsonTree(detail.state, {open: 4})));
  el.append(h("h3", {}, "Changed by this event"));
  if (!detail.diff.length) { el.append(h("p", {class: "muted"}, "Nothing.")); return; }
  const list = h("ul", {class: "diff", id: "state-diff"});
  for (const op of detail.diff) {
    list.append(h("li", {class: `op-${op.op}`}, `${op.op} ${op.path}`, "value" in op ? ` = ${JSON.stringify(op.value)}` : ""));
  }
  el.append(list);
}

export function findingElement(f, onPick) {
  return h("div", {class: `finding ${f.sev}`, role: onPick ? "button" : null, tabindex: onPick ? 0 : null,
    "data-index": f.i, onclick: onPick ? () => onPick(f.i) : null,
    onkeydown: onPick ? (e) => { if (e.key === "Enter") onPick(f.i); } : null},
  h("strong", {}, f.sev === "error" ? "error" : "warning"), ` at #${f.i}`, f.rule ? ` [${f.rule}]` : "", `: ${f.msg}`);
}

export function renderFindings(el, findings, notices, onPick) {
  clear(el);
  if (!findings.findings.length) el.append(h("p", {class: "muted"}, "The verifier found nothing wrong so far."));
  for (const f of findings.findings) el.append(findingElement(f, onPick));
  if (findings.total > findings.findings.length) el.append(h("p", {class: "muted"}, `… and ${findings.total - findings.findings.length} more`));
  if (notices.length) {
    el.append(h("h3", {}, "Notes"));
    for (const note of notices) el.append(h("p", {class: "muted"}, note));
  }
}

function metric(value, unit = "") { return value === null || value === undefined ? "–" : `${value}${unit}`; }

/** Time to first event and text, rates, the longest gaps, and a waterfall of spans. */
export function renderTiming(el, timing, onPick) {
  clear(el);
  if (!timing.runs.length) { el.append(h("p", {class: "muted"}, "No runs yet.")); return; }
  if (!timing.timed) el.append(h("p", {class: "muted"}, "This recording carries no arrival times: counts only."));
  // One column per run, one row per measure: narrow panes keep every number visible.
  const runs = timing.runs;
  const s3 = (v) => v === null || v === undefined ? "–" : `${v.toFixed(3)}s`;
  const measures = [
    ["time to first event", (r) => s3(r.ttfe)], ["time to first text", (r) => s3(r.ttft)],
    ["duration", (r) => s3(r.duration)], ["events", (r) => r.events], ["events/s", (r) => metric(r.eventsPerSec)],
    ["text characters", (r) => r.chars], ["characters/s", (r) => metric(r.charsPerSec)], ["outcome", (r) => r.status],
  ];
  const table = h("table", {class: "metrics", id: "timing-runs"},
    h("tr", {}, h("th", {}, ""), runs.map((r) => h("th", {"data-run": r.run}, `run ${r.run + 1}`))));
  for (const [name, value] of measures) {
    table.append(h("tr", {"data-measure": name}, h("td", {}, name), runs.map((r) => h("td", {}, value(r)))));
  }
  el.append(table);
  if (timing.gaps.length) {
    el.append(h("h3", {}, "Longest gaps"));
    const list = h("ul", {id: "timing-gaps"});
    for (const gap of timing.gaps) {
      list.append(h("li", {}, h("button", {type: "button", onclick: () => onPick(gap.i)}, `${seconds(gap.gap)} before #${gap.i}`)));
    }
    el.append(list);
  }
  el.append(h("h3", {}, "Waterfall"));
  const spans = timing.spans.filter((s) => s.start !== null);
  const start = Math.min(...spans.map((s) => s.start));
  const end = Math.max(...spans.map((s) => s.end ?? s.start));
  const total = Math.max(end - start, 1e-6);
  const chart = h("div", {class: "waterfall", id: "waterfall", role: "list"});
  for (const span of spans) {
    const left = ((span.start - start) / total) * 100;
    const width = Math.max((((span.end ?? span.start) - span.start) / total) * 100, 0.3);
    const label = `${span.label}${span.lane ? " (subagent)" : ""}`;
    chart.append(h("div", {class: `wf-row wf-${span.kind}`, role: "listitem", tabindex: 0, "data-kind": span.kind,
      title: `${label}: ${seconds(span.start)} → ${seconds(span.end)}${span.open ? " (still open)" : ""}`,
      onclick: () => onPick(Math.max(span.i0, 0)), onkeydown: (e) => { if (e.key === "Enter") onPick(Math.max(span.i0, 0)); }},
    h("span", {class: "wf-label"}, `${span.lane ? "  ↳ " : ""}${label}`),
    h("span", {class: "wf-track"}, h("span", {class: "wf-bar", style: {left: `${left}%`, width: `${width}%`}}))));
  }
  if (!spans.length) chart.append(h("p", {class: "muted"}, "No timed spans."));
  if (timing.spansDropped) chart.append(h("p", {class: "muted"}, `${timing.spansDropped} more spans not drawn`));
  el.append(chart);
}
