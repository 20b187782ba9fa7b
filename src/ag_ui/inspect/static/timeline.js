// The event timeline: a virtualised list (only the rows in view exist in the DOM), so 50,000
// events scroll and filter as fast as 50. Rows have a fixed height; filtering keeps an array of
// row positions and is updated incrementally as rows arrive.
import {h} from "./dom.js";

const ROW_HEIGHT = 24;
const OVERSCAN = 10;

function timeText(t) { return t === null || t === undefined ? "" : t.toFixed(3); }

export class Timeline {
  constructor(container, spacer, {onSelect}) {
    this.container = container;
    this.spacer = spacer;
    this.onSelect = onSelect;
    this.rows = [];            // every row received for the session, by index
    this.shown = [];           // indices of rows passing the filters, in order
    this.selected = -1;        // row index
    this.filters = {categories: new Set(), query: "", findingsOnly: false};
    this.follow = true;        // keep the newest row in view while rows arrive
    this.rendered = new Map(); // row index -> element
    this._frame = 0;
    container.addEventListener("scroll", () => {
      const bottom = container.scrollTop + container.clientHeight >= container.scrollHeight - ROW_HEIGHT;
      this.follow = bottom;
      this.schedule();
    });
    container.addEventListener("click", (event) => {
      const el = event.target.closest(".trow");
      if (el) this.select(Number(el.dataset.index), {focus: false});
    });
    new ResizeObserver(() => this.schedule()).observe(container);
  }

  /** Forget the rows (they are being sent again); the selection stays, by index. */
  reset({keepSelection = true} = {}) {
    this.rows = [];
    this.shown = [];
    if (!keepSelection) this.selected = -1;
    this.follow = this.selected < 0;
    this.render(true);
  }

  /** Rows of a batch arrive in order; `from` is the index of the first. */
  append(from, rows) {
    this.rows.length = from;
    for (const row of rows) {
      this.rows.push(row);
      if (this.passes(row)) this.shown.push(row.i);
    }
    if (this.follow) this.scrollToEnd();
    else if (this.selected >= from && this.selected < this.rows.length) {
      this.spacer.style.height = `${this.shown.length * ROW_HEIGHT}px`;
      this.reveal(this.selected);
    }
    this.schedule();
  }

  passes(row) {
    const f = this.filters;
    if (f.categories.has(row.cat)) return false;  // the set holds the categories hidden
    if (f.findingsOnly && !row.f) return false;
    if (f.query) {
      if (row._lc === undefined) row._lc = `${row.type} ${row.sum} ${row.json}`.toLowerCase();
      if (!row._lc.includes(f.query)) return false;
    }
    return true;
  }

  /** Re-apply the filters to every row (a filter changed). */
  refilter() {
    this.shown = [];
    for (const row of this.rows) if (this.passes(row)) this.shown.push(row.i);
    this.render(true);
    if (this.selected >= 0) this.reveal(this.selected);
  }

  positionOf(index) {
    // shown is sorted: binary search for the row's position in the filtered list.
    let lo = 0, hi = this.shown.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.shown[mid] === index) return mid;
      if (this.shown[mid] < index) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
  }

  select(index, {focus = true} = {}) {
    if (index < 0 || index >= this.rows.length) return;
    this.selected = index;
    this.follow = false;
    this.reveal(index);
    this.render(true);
    if (focus) this.container.focus({preventScroll: true});
    this.container.setAttribute("aria-activedescendant", `row-${index}`);
    this.onSelect(index);
  }

  /** Move the selection by `delta` positions in the filtered list. */
  move(delta) {
    if (!this.shown.length) return;
    let position = this.positionOf(this.selected);
    if (position < 0) position = delta > 0 ? -1 : this.shown.length;
    position = Math.max(0, Math.min(this.shown.length - 1, position + delta));
    this.select(this.shown[position]);
  }

  /** The next (or previous) shown row carrying a finding. */
  nextFinding(direction) {
    let position = this.positionOf(this.selected);
    for (let step = 1; step <= this.shown.length; step++) {
      const p = position + direction * step;
      if (p < 0 || p >= this.shown.length) break;
      if (this.rows[this.shown[p]].f) { this.select(this.shown[p]); return; }
    }
  }

  pageSize() { return Math.max(1, Math.floor(this.container.clientHeight / ROW_HEIGHT) - 1); }

  reveal(index) {
    const position = this.positionOf(index);
    if (position < 0) return;
    const top = position * ROW_HEIGHT;
    const c = this.container;
    if (top < c.scrollTop) c.scrollTop = top;
    else if (top + ROW_HEIGHT > c.scrollTop + c.clientHeight) c.scrollTop = top + ROW_HEIGHT - c.clientHeight;
  }

  scrollToEnd() {
    this.spacer.style.height = `${this.shown.length * ROW_HEIGHT}px`;
    this.container.scrollTop = this.container.scrollHeight;
  }

  schedule() {
    if (!this._frame) this._frame = requestAnimationFrame(() => { this._frame = 0; this.render(false); });
  }

  render(force) {
    const c = this.container;
    this.spacer.style.height = `${this.shown.length * ROW_HEIGHT}px`;
    const first = Math.max(0, Math.floor(c.scrollTop / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.shown.length, Math.ceil((c.scrollTop + c.clientHeight) / ROW_HEIGHT) + OVERSCAN);
    const wanted = new Set();
    for (let p = first; p < last; p++) wanted.add(this.shown[p]);
    for (const [index, el] of this.rendered) {
      if (!wanted.has(index) || force) { el.remove(); this.rendered.delete(index); }
    }
    for (let p = first; p < last; p++) {
      const index = this.shown[p];
      let el = this.rendered.get(index);
      if (!el) {
        el = this.rowElement(this.rows[index]);
        this.rendered.set(index, el);
        c.append(el);
      }
      el.style.transform = `translateY(${p * ROW_HEIGHT}px)`;
    }
  }

  rowElement(row) {
    const previous = this.rows[row.i - 1];
    const gap = previous && row.t !== null && previous.t !== null ? `+${(row.t - previous.t).toFixed(3)}` : "";
    const classes = ["trow"];
    if (row.f) classes.push(`f-${row.f}`);
    if (!row.v) classes.push("unverified");
    return h("div", {
      class: classes.join(" "), role: "option", id: `row-${row.i}`,
      "aria-selected": row.i === this.selected ? "true" : "false",
      "data-index": row.i, "data-type": row.type, "data-cat": row.cat,
      title: row.f ? `this event has a ${row.f} finding` : null,
    },
    h("span", {class: "num"}, row.i),
    h("span", {class: "tm"}, timeText(row.t)),
    h("span", {class: "gap"}, gap),
    h("span", {class: `ty cat-${row.cat}`}, row.type),
    h("span", {class: "sm"}, row.sum));
  }
}
