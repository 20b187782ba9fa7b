// Small DOM and API helpers shared by the inspector's modules (no dependencies).

/** Create an element: h("div", {class: "x", onclick: fn}, "text", child, ...). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key === "style") Object.assign(el.style, value);  // CSSOM: allowed by the page's CSP
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/** GET or POST JSON to the inspector's own server; throws an Error with the server's text. */
export async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST",
    headers: {"content-type": "application/json", "x-agui-inspector": "1"},
    body: JSON.stringify(body),
  };
  const response = await fetch(path, options);
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (_) { data = {error: text}; }
  if (!response.ok) throw new Error((data && data.error) || `HTTP ${response.status}`);
  return data;
}

export function pretty(value) {
  return JSON.stringify(value, null, 2);
}

/** Seconds as "1.234s" (or "" when unknown). */
export function seconds(value, digits = 3) {
  return value === null || value === undefined ? "" : `${value.toFixed(digits)}s`;
}

function pointer(path, key) {
  return `${path}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

function leaf(value) {
  const kind = value === null ? "null" : typeof value;
  return h("span", {class: `v-${kind}`}, JSON.stringify(value));
}

/**
 * A collapsible tree of a JSON value. Each value carries data-path (its JSON Pointer) so a
 * person (and a test) can find it; objects deeper than `open` levels start collapsed.
 */
export function jsonTree(value, {open = 2} = {}) {
  function node(key, item, path, depth) {
    const label = key === null ? null : h("span", {class: "k"}, `${key}: `);
    if (item !== null && typeof item === "object") {
      const entries = Array.isArray(item) ? item.map((v, i) => [i, v]) : Object.entries(item);
      const brackets = Array.isArray(item) ? ["[", "]"] : ["{", "}"];
      const details = h("details", {open: depth < open, "data-path": path || "/"},
        h("summary", {}, label, `${brackets[0]}${entries.length ? "…" : ""}${brackets[1]}`,
          h("span", {class: "muted"}, ` ${entries.length} ${Array.isArray(item) ? "items" : "keys"}`)));
      const list = h("ul");
      for (const [k, v] of entries) list.append(node(k, v, pointer(path, k), depth + 1));
      details.append(list);
      return h("li", {}, details);
    }
    return h("li", {"data-path": path || "/"}, label, leaf(item));
  }
  return h("ul", {class: "tree"}, node(null, value, "", 0));
}
