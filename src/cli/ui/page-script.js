// The tracehook trace page: trace list with filters, waterfall, details. Plain DOM, no network
// beyond its own server in `tracehook ui` (mode "live"); in a --html file (mode "static") every
// trace is a JSON script element parsed only when opened. The functions of trace-filter.ts
// (matchesTraceFilter…), span-search.ts (parseSpanQuery, spanMatchesQuery, traceMatchesQueries),
// critical-path.ts (criticalPath), trace-compare.ts (compareTraces) and span-label.ts' rootLabel
// (a root's name with its route or URL path) are inlined before this file: the CLI's own code.
'use strict';

const ROW = 24;
const TRACE_ROW = 40;
const OVERSCAN = 12;
const PALETTE = ['#3b82f6', '#f59e0b', '#10b981', '#ef4444', '#8b5cf6', '#06b6d4', '#ec4899', '#84cc16', '#f97316', '#6366f1'];

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

const data = JSON.parse($('page-data').textContent);
const state = {
  mode: data.mode,
  traces: data.traces,
  services: data.services,
  shown: [],
  trace: null, // { summary, detail, nodes, byId, rows }
  collapsed: new Set(),
  selectedSpan: null,
  picked: [], // trace ids ticked for comparison, at most 2
  hits: [], // spans of the open trace matching the in-trace search, in tree order
  hitIndex: -1,
};

// ---- colours: one per service, stable for the whole page
const serviceColor = (service) => {
  let i = state.services.indexOf(service);
  if (i < 0) {
    state.services.push(service);
    i = state.services.length - 1;
  }
  return PALETTE[i % PALETTE.length];
};

const fmtMs = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms < 1 ? ms.toFixed(2) : ms.toFixed(1)} ms`);
// A time no Date can hold (a corrupt file) shows as its number rather than end the list's drawing.
const fmtTime = (ms) => (Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString().replace('T', ' ').replace('Z', '') : `${ms} ms`);
// Tree levels the waterfall indents; deeper rows are drawn at this indentation.
const MAX_INDENT_DEPTH = 64;
const fmtValue = (v) => (typeof v === 'string' ? v : JSON.stringify(v));
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
// An attribute key that wraps only after its dots and underscores (`http.request.` / `method`).
const keyHtml = (k) => esc(k).replace(/([._])/g, '$1<wbr>');

// ---- filters
function currentFilter() {
  const f = {};
  const problems = [];
  const service = $('f-service').value;
  if (service) f.services = [service];
  if ($('f-errors').checked) f.errors = true;
  const min = $('f-min').value.trim();
  if (min) {
    const ms = parseDurationMs(min);
    if (ms === undefined) problems.push('min duration');
    else f.minDurationMs = ms;
  }
  for (const [id, key] of [
    ['f-since', 'sinceMs'],
    ['f-until', 'untilMs'],
  ]) {
    const text = $(id).value.trim();
    if (!text) continue;
    const ms = parseTimeMs(text, Date.now());
    if (ms === undefined) problems.push(id.slice(2));
    else f[key] = ms;
  }
  const trace = $('f-trace').value.trim().toLowerCase();
  if (trace) f.tracePrefix = trace;
  const name = $('f-name').value.trim();
  if (name) f.name = name;
  return { f, problems };
}

// Search terms: separated by spaces, a double-quoted value may hold some (`key="a b"`).
const queryTerms = (text) => text.match(/(?:[^\s"]+|"[^"]*")+/g) || [];
function parseQueries(text, problems) {
  const queries = [];
  for (const term of queryTerms(text)) {
    const q = parseSpanQuery(term);
    if (q) queries.push(q);
    else problems.push(`search "${term}"`);
  }
  return queries;
}

let filterRun = 0;
async function applyFilters() {
  const run = ++filterRun;
  const { f, problems } = currentFilter();
  const sort = $('f-sort').value;
  let shown = state.traces.filter((t) => matchesTraceFilter(t, f));
  const queries = parseQueries($('f-where').value, problems);
  if (queries.length) {
    $('count').textContent = 'searching…';
    const ids = await searchTraces(queries, $('f-where').value.trim());
    if (run !== filterRun) return; // a later change of the filters won
    shown = ids ? shown.filter((t) => ids.has(t.traceId)) : [];
    if (!ids) problems.push('search (the server did not answer)');
  }
  state.shown = shown;
  state.shown.sort(sort === 'duration' ? (a, b) => b.durationMs - a.durationMs || a.startMs - b.startMs : (a, b) => a.startMs - b.startMs);
  $('count').textContent = `${state.shown.length} of ${state.traces.length} traces` + (problems.length ? ` — not understood: ${problems.join(', ')}` : '');
  $('list-rows').style.height = state.shown.length * TRACE_ROW + 'px';
  renderList();
  state.scatterOrder = null;
  renderScatter();
  // Marks on the performance timeline: the tests read how long drawing took.
  performance.mark('tracehook:list');
  // The open trace follows the filters: one they exclude gives way to the first that matches.
  if (state.trace && !state.shown.some((t) => t.traceId === state.trace.summary.traceId)) {
    if (state.shown.length) openTrace(state.shown[0].traceId);
    else closeTrace('No trace matches the filters.');
  }
}

// Trace ids whose spans match every query (each by some span). Static: every embedded trace is
// parsed in turn, yielding to the browser every ~30 ms so the page stays responsive; the answer
// is kept per search text. Live: the server searches (api/search), reading the span files.
const searchCache = new Map();
async function searchTraces(queries, text) {
  if (state.mode === 'live') {
    const res = await fetch(
      `api/search?${queryTerms(text)
        .map((q) => `q=${encodeURIComponent(q)}`)
        .join('&')}`,
    ).catch(() => null);
    return res && res.ok ? new Set((await res.json()).traceIds) : null;
  }
  if (searchCache.has(text)) return searchCache.get(text);
  const ids = new Set();
  let slice = performance.now();
  for (const t of state.traces) {
    const detail = await loadDetail(t.traceId);
    if (
      detail &&
      traceMatchesQueries(
        detail.spans.map((sp) => searchable(sp, detail.resources[sp.res])),
        queries,
      )
    )
      ids.add(t.traceId);
    if (performance.now() - slice > 30) {
      await new Promise((r) => setTimeout(r));
      slice = performance.now();
    }
  }
  searchCache.set(text, ids);
  return ids;
}
const searchable = (span, res) => ({ name: span.name, attributes: span.attributes || {}, resource: (res && res.attributes) || {} });

function closeTrace(message) {
  state.trace = null;
  state.selectedSpan = null;
  $('trace-tools').hidden = true;
  $('trace-header').textContent = message;
  $('axis').innerHTML = '';
  $('wf-rows').innerHTML = '';
  $('wf-rows').style.height = '0px';
  $('details').innerHTML = '<p class="muted">Click a span for its attributes, resource, events, status and links.</p>';
  history.replaceState(null, '', location.pathname + location.search);
  renderList();
}

function fillServices() {
  const select = $('f-service');
  const current = select.value;
  const all = [...new Set(state.traces.flatMap((t) => t.services))].sort();
  select.innerHTML = '<option value="">any</option>' + all.map((s) => `<option>${esc(s)}</option>`).join('');
  select.value = all.includes(current) ? current : '';
  for (const s of all) serviceColor(s);
}

// ---- trace list (virtualised)
function renderList() {
  const box = $('list');
  const first = Math.max(0, Math.floor(box.scrollTop / TRACE_ROW) - OVERSCAN);
  const last = Math.min(state.shown.length, Math.ceil((box.scrollTop + box.clientHeight) / TRACE_ROW) + OVERSCAN);
  let html = '';
  for (let i = first; i < last; i++) {
    const t = state.shown[i];
    const selected = state.trace && state.trace.summary.traceId === t.traceId ? ' selected' : '';
    const status = t.errorCount ? `<span class="err">${t.errorCount} error${t.errorCount > 1 ? 's' : ''}</span>` : '<span class="ok">OK</span>';
    const dots = t.services.map((s) => `<span title="${esc(s)}"><span class="dot" style="background:${serviceColor(s)}"></span>${esc(s)}</span>`).join(' ');
    const picked = state.picked.includes(t.traceId) ? ' checked' : '';
    html += `<div class="row trace-row${selected}" style="top:${i * TRACE_ROW}px" data-trace="${t.traceId}">
      <div class="l1"><input type="checkbox" class="pick" title="pick for comparison"${picked}><span class="root">${t.root.hasParent ? '⋯ ' : ''}${esc(rootLabel(t.root))} <span class="muted">${esc(t.root.service)}</span></span><span>${fmtMs(t.durationMs)}</span>${status}</div>
      <div class="l2"><span>${fmtTime(t.startMs)}</span><span>${plural(t.spanCount, 'span', 'spans')}</span><span>${dots}</span></div></div>`;
  }
  $('list-rows').innerHTML = html;
}

// ---- scatter plot: one point per trace shown, x its start, y its duration (log scale); a click or
// Enter opens the trace. SVG built as one string: 5,000 points cost a few ms.
const SCATTER = { h: 120, left: 58, right: 12, top: 8, bottom: 20 };
let scatterFocus = -1;
function renderScatter() {
  const svg = $('scatter');
  const pts = state.shown;
  const w = Math.max(svg.clientWidth, 200);
  const { h, left, right, top, bottom } = SCATTER;
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  svg.dataset.points = String(pts.length);
  if (!pts.length) {
    svg.innerHTML = `<text x="${w / 2}" y="${h / 2}" class="axis-label" text-anchor="middle">no traces</text>`;
    return;
  }
  let x0 = Infinity,
    x1 = -Infinity,
    y0 = Infinity,
    y1 = -Infinity;
  for (const t of pts) {
    x0 = Math.min(x0, t.startMs);
    x1 = Math.max(x1, t.startMs);
    const d = Math.max(t.durationMs, 0.001);
    y0 = Math.min(y0, d);
    y1 = Math.max(y1, d);
  }
  if (x1 - x0 < 1) ((x0 -= 1), (x1 += 1));
  const ly0 = Math.floor(Math.log10(y0)),
    ly1 = Math.max(Math.ceil(Math.log10(y1)), ly0 + 1);
  const px = (ms) => left + ((ms - x0) / (x1 - x0)) * (w - left - right);
  const py = (ms) => top + (1 - (Math.log10(Math.max(ms, 0.001)) - ly0) / (ly1 - ly0)) * (h - top - bottom);
  let out = '';
  for (let e = ly0; e <= ly1; e++) {
    const y = py(10 ** e);
    out += `<line class="grid" x1="${left}" x2="${w - right}" y1="${y}" y2="${y}"/><text class="axis-label" x="${left - 4}" y="${y + 3}" text-anchor="end">${fmtMs(10 ** e)}</text>`;
  }
  for (let i = 0; i <= 4; i++) {
    const ms = x0 + ((x1 - x0) * i) / 4;
    const anchor = i === 0 ? 'start' : i === 4 ? 'end' : 'middle';
    // Clock time; with milliseconds when the traces span less than a minute.
    out += `<text class="axis-label" x="${px(ms)}" y="${h - 5}" text-anchor="${anchor}">${fmtTime(ms).slice(11, x1 - x0 < 60_000 ? 23 : 19)}</text>`;
  }
  const open = state.trace && state.trace.summary.traceId;
  for (let i = 0; i < pts.length; i++) {
    const t = pts[i];
    const x = px(t.startMs).toFixed(1),
      y = py(t.durationMs).toFixed(1);
    const cls = `pt${t.errorCount ? ' error' : ''}${t.traceId === open ? ' sel' : ''}`;
    // Errors are red diamonds, the rest blue circles: told apart by shape as well as colour.
    out += t.errorCount
      ? `<path class="${cls}" data-i="${i}" data-trace="${t.traceId}" d="M${x} ${+y - 4.5}l4.5 4.5-4.5 4.5-4.5-4.5z"/>`
      : `<circle class="${cls}" data-i="${i}" data-trace="${t.traceId}" cx="${x}" cy="${y}" r="3"/>`;
  }
  svg.innerHTML = out;
  scatterFocus = -1;
}

function markScatter() {
  const open = state.trace && state.trace.summary.traceId;
  for (const el of $('scatter').querySelectorAll('.pt.sel')) el.classList.remove('sel');
  if (open) for (const el of $('scatter').querySelectorAll(`.pt[data-trace="${open}"]`)) el.classList.add('sel');
}

function scatterTip(el, t) {
  const tip = $('scatter-tip');
  if (!t) return (tip.hidden = true);
  tip.hidden = false;
  tip.textContent = `${rootLabel(t.root)} · ${fmtMs(t.durationMs)} · ${fmtTime(t.startMs)}${t.errorCount ? ` · ${plural(t.errorCount, 'error', 'errors')}` : ''}`;
  const box = el.getBoundingClientRect(),
    pane = $('scatter-pane').getBoundingClientRect();
  tip.style.left = `${Math.min(box.left - pane.left + 8, pane.width - tip.offsetWidth - 4)}px`;
  tip.style.top = `${box.top - pane.top - 26}px`;
}

// ---- loading a trace
const embedded = new Map();
for (const el of document.querySelectorAll('script[data-trace]')) embedded.set(el.dataset.trace, el);

async function loadDetail(traceId) {
  if (state.mode === 'static') {
    const el = embedded.get(traceId);
    return el ? JSON.parse(el.textContent) : null;
  }
  const res = await fetch(`api/trace/${traceId}`);
  return res.ok ? res.json() : null;
}

async function openTrace(traceId, spanId) {
  const summary = state.traces.find((t) => t.traceId === traceId);
  const detail = summary && (await loadDetail(traceId));
  if (!detail) {
    $('trace-header').innerHTML = `<span class="err">Trace ${esc(traceId)} is not in these span files${state.mode === 'static' ? ' (or not in this page)' : ''}.</span>`;
    $('wf-rows').innerHTML = '';
    return;
  }
  state.collapsed = new Set();
  state.trace = buildTree(summary, detail);
  hideCompare();
  $('trace-tools').hidden = false;
  renderTraceHeader();
  renderCriticalSummary();
  offerFastest();
  // A list search carries over into the trace: its matching spans are marked, the first selected.
  const listSearch = $('f-where').value.trim();
  if (listSearch) $('span-search').value = listSearch;
  findSpans();
  renderAxis();
  layoutRows();
  renderList();
  markScatter();
  const target = (spanId && state.trace.byId.get(spanId)) || (listSearch && state.hits[0]);
  if (target && target === state.hits[0]) state.hitIndex = 0;
  selectSpan(target || state.trace.roots[0], !!target);
  renderHits();
  performance.mark('tracehook:trace');
}

function buildTree(summary, detail) {
  const nodes = detail.spans.map((s) => ({ span: s, children: [], depth: 0, parent: null, res: detail.resources[s.res] }));
  const byId = new Map(nodes.map((n) => [n.span.id, n]));
  const roots = [];
  for (const n of nodes) {
    const parent = n.span.parent && byId.get(n.span.parent);
    if (parent && parent !== n) {
      n.parent = parent;
      parent.children.push(n);
    } else roots.push(n);
  }
  const order = (a, b) => a.span.start - b.span.start || (a.span.id < b.span.id ? -1 : 1);
  const seen = new Set();
  // A stack, not recursion: a parent chain can be thousands deep.
  const visit = (root, depth) => {
    root.depth = depth;
    const stack = [root];
    while (stack.length) {
      const n = stack.pop();
      seen.add(n);
      n.children.sort(order);
      for (const c of n.children) {
        c.depth = n.depth + 1;
        stack.push(c);
      }
    }
  };
  roots.sort(order);
  roots.forEach((r) => visit(r, 0));
  // Parent cycles (corrupt files): cut each at its first span, shown at root.
  for (const n of nodes) {
    if (seen.has(n)) continue;
    n.parent.children = n.parent.children.filter((c) => c !== n);
    n.parent = null;
    roots.push(n);
    visit(n, 0);
  }
  // Links into this trace from other traces' spans, and between spans of this trace.
  const incoming = new Map();
  const addIncoming = (to, from) => (incoming.get(to) || incoming.set(to, []).get(to)).push(from);
  for (const l of detail.incoming || []) addIncoming(l.toSpanId, { traceId: l.fromTraceId, spanId: l.fromSpanId });
  for (const n of nodes) for (const l of n.span.links) if (l.traceId === summary.traceId) addIncoming(l.spanId, { traceId: summary.traceId, spanId: n.span.id });
  let end = 0;
  for (const n of nodes) end = Math.max(end, n.span.start + n.span.dur);
  // The critical path through every process and thread of the trace, and each span's self time.
  const cp = criticalPath(detail.spans);
  const cpSegments = new Map();
  for (const seg of cp.segments) (cpSegments.get(seg.spanId) || cpSegments.set(seg.spanId, []).get(seg.spanId)).push(seg);
  // The walk passes through every ancestor of a span it spent time in, also one with no time of
  // its own on the path (a short CONSUMER between a reply and its handler): all are marked.
  const onCriticalPath = new Set();
  for (const id of cp.onPath.keys()) for (let n = byId.get(id); n && !onCriticalPath.has(n.span.id); n = n.parent) onCriticalPath.add(n.span.id);
  return { summary, detail, nodes, byId, roots, incoming, endUs: Math.max(end, 1), rows: [], cp, cpSegments, onCriticalPath };
}

const handoffOf = (n) => (n.parent && n.parent.res.label !== n.res.label ? n : null);
// How a span crossed into its thread or process: the messaging system (worker_threads,
// child_process, cluster, piscina, tinypool), else the RPC system or HTTP.
const crossingName = (s) => s.attributes['messaging.system'] || s.attributes['rpc.system'] || (s.attributes['http.request.method'] || s.attributes['http.method'] ? 'http' : 'process');

// ---- waterfall (virtualised: only the rows in view are in the DOM)
function layoutRows() {
  const rows = [];
  // Pre-order with a stack (children pushed last first), not recursion: chains can be thousands deep.
  const stack = [...state.trace.roots].reverse();
  while (stack.length) {
    const n = stack.pop();
    rows.push(n);
    if (!state.collapsed.has(n.span.id)) for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
  }
  state.trace.rows = rows;
  $('wf-rows').style.height = rows.length * ROW + 'px';
  renderRows();
}

function renderRows() {
  if (!state.trace) return;
  const box = $('waterfall');
  const { rows, endUs } = state.trace;
  const first = Math.max(0, Math.floor(box.scrollTop / ROW) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((box.scrollTop + box.clientHeight) / ROW) + OVERSCAN);
  let html = '';
  for (let i = first; i < last; i++) {
    const n = rows[i];
    const s = n.span;
    const color = serviceColor(n.res.service);
    const left = (s.start / endUs) * 100;
    const width = Math.max((s.dur / endUs) * 100, 0.15);
    const toggle = n.children.length ? (state.collapsed.has(s.id) ? '▸' : '▾') : '';
    const hand = handoffOf(n);
    const badges = [];
    if (hand) badges.push(`<span class="badge handoff" title="crossed from ${esc(n.parent.res.label)} into ${esc(n.res.label)}">⇢ ${esc(crossingName(s))}</span>`);
    else if (s.kind === 'PRODUCER' || s.kind === 'CONSUMER') badges.push(`<span class="badge kind">${s.kind === 'PRODUCER' ? 'send' : 'process'}</span>`);
    const linkCount = s.links.length + (state.trace.incoming.get(s.id) || []).length;
    if (linkCount) badges.push(`<span class="badge link" title="${linkCount} link(s) to other spans: see details">⇄ ${linkCount}</span>`);
    const collapsedNote = state.collapsed.has(s.id) ? ` <span class="muted">(+${countDescendants(n)})</span>` : '';
    const selected = (state.selectedSpan === n ? ' selected' : '') + (n.hit ? ' hit' : '');
    const showCp = $('show-cp').checked;
    const segs = (showCp && state.trace.cpSegments.get(s.id)) || [];
    const critical = showCp && state.trace.onCriticalPath.has(s.id) ? ' critical' : '';
    const cpBars = segs.length ? segs.map((g) => `<div class="cp-seg" style="left:${(g.start / endUs) * 100}%;width:${Math.max(((g.end - g.start) / endUs) * 100, 0.1)}%"></div>`).join('') : '';
    const self = state.trace.cp.selfTime.get(s.id) || 0;
    // The duration sits right of the bar; near the right edge, inside a wide bar or left of a narrow one.
    const labelPos = left + width < 82 ? `left:${left + width + 0.5}%` : width > 12 ? `left:${left + 0.4}%;color:#fff;font-weight:600` : `right:${100 - left + 0.5}%`;
    html += `<div class="row span-row${selected}${critical}${hand ? ' handoff-in' : ''}" style="top:${i * ROW}px" data-span="${s.id}" data-depth="${n.depth}" data-service="${esc(n.res.service)}">
      <div class="name" style="padding-left:${4 + Math.min(n.depth, MAX_INDENT_DEPTH) * 14}px"><span class="toggle">${toggle}</span><span class="chip" style="background:${color}"></span>
        <span class="label${s.status.code === 'ERROR' ? ' err' : ''}">${esc(s.name)}</span>${collapsedNote}${badges.join('')}<span class="proc">${esc(n.res.label)}</span></div>
      <div class="lane" title="${fmtMs(s.dur / 1000)}, self ${fmtMs(self / 1000)}"><div class="bar${s.status.code === 'ERROR' ? ' error' : ''}" style="left:${left}%;width:${width}%;background:${color}"></div>${cpBars}
        <span class="bar-label" style="${labelPos}">${fmtMs(s.dur / 1000)}</span></div></div>`;
  }
  $('wf-rows').innerHTML = html;
}

function countDescendants(n) {
  let c = 0;
  const stack = [...n.children];
  while (stack.length) {
    const x = stack.pop();
    c++;
    stack.push(...x.children);
  }
  return c;
}

function renderTraceHeader() {
  const t = state.trace.summary;
  const services = t.services.map((s) => `<span><span class="dot" style="background:${serviceColor(s)}"></span>${esc(s)}</span>`).join('');
  $('trace-header').innerHTML = `<div><strong>${esc(rootLabel(t.root))}</strong> <span class="mono muted">${t.traceId}</span></div>
    <div class="muted">${fmtTime(t.startMs)} · ${fmtMs(t.durationMs)} · ${plural(t.spanCount, 'span', 'spans')} · ${plural(t.processes.length, 'process/thread', 'processes/threads')} · ${t.errorCount ? `<span class="err">${plural(t.errorCount, 'error', 'errors')}</span>` : 'no errors'}</div>
    <div class="services">${services}</div>`;
}

function renderAxis() {
  const total = state.trace.endUs / 1000;
  const step = niceStep(total / 5);
  let html = '';
  const digits = step >= 1 ? 0 : Math.min(3, Math.ceil(-Math.log10(step)));
  for (let v = 0; v <= total + 1e-9; v += step) {
    const label = v >= 1000 && step >= 100 ? `${+(v / 1000).toFixed(2)} s` : `${v.toFixed(digits)} ms`;
    // A tick near the right edge is right-aligned to it, not cut off.
    html += `<span class="tick" style="left:${(v / total) * 100}%${v / total > 0.93 ? ';transform:translateX(-100%)' : ''}">${label}</span>`;
  }
  $('axis').innerHTML = html;
}

function niceStep(raw) {
  const p = Math.pow(10, Math.floor(Math.log10(raw || 1)));
  for (const m of [1, 2, 5, 10]) if (raw <= m * p) return m * p;
  return 10 * p;
}

// ---- details pane
function selectSpan(node, scroll) {
  if (!node) return;
  state.selectedSpan = node;
  location.hash = `trace=${state.trace.summary.traceId}&span=${node.span.id}`;
  if (scroll) {
    // Expand collapsed ancestors so the row exists.
    for (let p = node.parent; p; p = p.parent) state.collapsed.delete(p.span.id);
    layoutRows();
    const i = state.trace.rows.indexOf(node);
    const box = $('waterfall');
    if (i * ROW < box.scrollTop || i * ROW > box.scrollTop + box.clientHeight - ROW) box.scrollTop = Math.max(0, i * ROW - box.clientHeight / 3);
  }
  renderRows();
  const row = document.querySelector(`.span-row[data-span="${node.span.id}"]`);
  if (scroll && row) row.classList.add('flash');
  renderDetails(node);
}

function table(obj) {
  const entries = Object.entries(obj || {});
  if (!entries.length) return '<p class="muted">none</p>';
  return `<table>${entries.map(([k, v]) => `<tr><td class="k">${keyHtml(k)}</td><td class="mono">${esc(fmtValue(v))}</td></tr>`).join('')}</table>`;
}

function linkAnchor(traceId, spanId, text) {
  return `<a data-goto-trace="${traceId}" data-goto-span="${spanId}">${esc(text)}</a>`;
}

function describeSpanRef(traceId, spanId) {
  const here = state.trace.summary.traceId === traceId;
  const n = here && state.trace.byId.get(spanId);
  if (n) return `${n.span.name} (${n.res.label}) in this trace`;
  const t = state.traces.find((x) => x.traceId === traceId);
  return t ? `span ${spanId} in trace ${traceId.slice(0, 8)}… "${t.root.name}"` : `span ${spanId} in trace ${traceId.slice(0, 8)}… (not in these files)`;
}

function renderDetails(n) {
  const s = n.span;
  const t = state.trace;
  const parts = [];
  parts.push(`<h2>${esc(s.name)}</h2><div class="muted">${s.kind} · ${esc(n.res.label)} · ${esc(s.scope || '')}</div>`);
  const onPath = t.cp.onPath.get(s.id);
  parts.push(`<table><tr><td class="k">duration</td><td>${fmtMs(s.dur / 1000)}</td></tr>
    <tr><td class="k">self time</td><td class="self-time">${fmtMs((t.cp.selfTime.get(s.id) || 0) / 1000)} <span class="muted">(in no child span)</span></td></tr>
    <tr><td class="k">critical path</td><td class="on-path">${onPath !== undefined ? `${fmtMs(onPath / 1000)} of the trace's time waited on this span itself` : t.onCriticalPath.has(s.id) ? 'on it, with no time of its own' : 'no'}</td></tr>
    <tr><td class="k">start</td><td>+${fmtMs(s.start / 1000)} from trace start</td></tr>
    <tr><td class="k">status</td><td class="${s.status.code === 'ERROR' ? 'err' : ''}">${s.status.code}${s.status.message ? ': ' + esc(s.status.message) : ''}</td></tr>
    <tr><td class="k">span id</td><td class="mono">${s.id}</td></tr>
    <tr><td class="k">parent</td><td class="mono">${n.parent ? linkAnchor(t.summary.traceId, n.parent.span.id, n.parent.span.name) : s.parent ? esc(s.parent) + ' (not in span files)' : 'none (root)'}</td></tr></table>`);
  const hand = handoffOf(n);
  const consumers = n.children.filter(handoffOf);
  if (hand || consumers.length) {
    parts.push('<h3>Hand-off</h3>');
    if (hand)
      parts.push(
        `<p>Received from ${linkAnchor(t.summary.traceId, n.parent.span.id, `${n.parent.span.name} (${n.parent.res.label})`)}: crossed into <b>${esc(n.res.label)}</b>${s.attributes['messaging.system'] ? ` over ${esc(s.attributes['messaging.system'])}` : ''}.</p>`,
      );
    for (const c of consumers) parts.push(`<p>Handed to ${linkAnchor(t.summary.traceId, c.span.id, `${c.span.name} (${c.res.label})`)}.</p>`);
  }
  const incoming = t.incoming.get(s.id) || [];
  if (s.links.length || incoming.length) {
    parts.push('<h3>Links</h3>');
    for (const l of s.links) {
      const attrs = Object.entries(l.attributes || {})
        .map(([k, v]) => `${k}=${fmtValue(v)}`)
        .join(' ');
      parts.push(`<p class="link-out">→ ${linkAnchor(l.traceId, l.spanId, describeSpanRef(l.traceId, l.spanId))} <span class="muted">${esc(attrs)}</span></p>`);
    }
    for (const l of incoming) parts.push(`<p class="link-in">← linked from ${linkAnchor(l.traceId, l.spanId, describeSpanRef(l.traceId, l.spanId))}</p>`);
  }
  parts.push('<h3>Attributes</h3>', table(s.attributes));
  if (s.events.length) {
    parts.push('<h3>Events</h3>');
    for (const e of s.events) {
      parts.push(`<div class="event${e.name === 'exception' ? ' exception' : ''}"><b>${esc(e.name)}</b> <span class="muted">+${fmtMs(e.t / 1000)}</span>${table(e.attributes)}</div>`);
    }
  }
  parts.push('<h3>Resource</h3>', table(n.res.attributes));
  $('details').innerHTML = parts.join('');
}

// ---- search within the open trace: matching spans marked, ‹ › step through them
function findSpans(keep) {
  const t = state.trace;
  if (!t) return;
  const before = state.hits[state.hitIndex];
  for (const n of state.hits) n.hit = false;
  const queries = parseQueries($('span-search').value, []);
  state.hits = [];
  if (queries.length) {
    // Tree order (parent first), whatever is collapsed.
    const stack = [...t.roots].reverse();
    while (stack.length) {
      const n = stack.pop();
      const sp = searchable(n.span, n.res);
      if (queries.every((q) => spanMatchesQuery(sp, q))) state.hits.push(n);
      for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
    }
  }
  for (const n of state.hits) n.hit = true;
  state.hitIndex = keep && before ? state.hits.indexOf(before) : -1;
  renderRows();
}

function stepHit(delta) {
  const n = state.hits.length;
  if (!n) return renderHits();
  state.hitIndex = delta === 0 ? 0 : (state.hitIndex + delta + n) % n;
  if (state.hitIndex < 0) state.hitIndex = delta > 0 ? 0 : n - 1;
  selectSpan(state.hits[state.hitIndex], true);
  renderHits();
}

function renderHits() {
  const n = state.hits.length;
  $('span-hits').textContent = !$('span-search').value.trim() ? '' : n ? `${state.hitIndex >= 0 ? state.hitIndex + 1 : '–'} of ${plural(n, 'match', 'matches')}` : 'no match';
}

function renderCriticalSummary() {
  const t = state.trace;
  if (!t || !$('show-cp').checked) return void ($('cp-summary').textContent = '');
  const lanes = new Set([...t.onCriticalPath].map((id) => t.byId.get(id).res.label));
  $('cp-summary').textContent = `critical path: ${plural(t.onCriticalPath.size, 'span', 'spans')} in ${plural(lanes.size, 'process/thread', 'processes/threads')}`;
}

// ---- comparing two traces: spans matched by their place in the tree (trace-compare.ts)
function pickTrace(traceId, on) {
  state.picked = state.picked.filter((id) => id !== traceId);
  if (on) state.picked.push(traceId);
  if (state.picked.length > 2) state.picked.shift();
  const names = state.picked.map((id) => state.traces.find((t) => t.traceId === id)).map((t) => `${rootLabel(t.root)} (${fmtMs(t.durationMs)})`);
  $('picked').textContent = names.length ? `picked: ${names.join(' and ')}` : 'Tick two traces to compare them.';
  $('compare-go').disabled = state.picked.length !== 2;
  renderList();
}

// One click to compare the open trace with the fastest other trace of the same route.
function offerFastest() {
  const t = state.trace.summary;
  const label = rootLabel(t.root);
  let fastest = null;
  for (const o of state.traces) if (o.traceId !== t.traceId && rootLabel(o.root) === label && (!fastest || o.durationMs < fastest.durationMs)) fastest = o;
  const button = $('compare-fastest');
  button.hidden = !fastest;
  if (!fastest) return;
  button.textContent = `compare with the fastest ${label} (${fmtMs(fastest.durationMs)})`;
  button.onclick = () => showCompare(t.traceId, fastest.traceId);
}

function hideCompare() {
  state.compared = null;
  $('compare').hidden = true;
  $('axis').hidden = false;
  $('waterfall').hidden = false;
}

async function showCompare(idA, idB) {
  const [sa, sb] = [idA, idB].map((id) => state.traces.find((t) => t.traceId === id));
  if (!sa || !sb) return;
  // A is the faster: the deltas say what grew in the slower one.
  const [a, b] = sa.durationMs <= sb.durationMs ? [sa, sb] : [sb, sa];
  const [da, db] = await Promise.all([loadDetail(a.traceId), loadDetail(b.traceId)]);
  if (!da || !db) return;
  const comparable = (d) => d.spans.map((sp) => ({ id: sp.id, parent: sp.parent, name: sp.name, service: d.resources[sp.res].service, start: sp.start, dur: sp.dur }));
  const cmp = compareTraces(comparable(da), comparable(db));
  closeTrace('');
  state.compared = [a.traceId, b.traceId];
  $('axis').hidden = true;
  $('waterfall').hidden = true;
  $('trace-header').innerHTML = `<div><strong>Comparing</strong> <span class="muted">A is the faster, B the slower; Δ = B − A</span></div>
    <div>A: ${esc(rootLabel(a.root))} · ${fmtMs(a.durationMs)} <span class="mono muted">${a.traceId.slice(0, 8)}</span> &nbsp; B: ${esc(rootLabel(b.root))} · ${fmtMs(b.durationMs)} <span class="mono muted">${b.traceId.slice(0, 8)}</span>
    · <span class="${b.durationMs > a.durationMs ? 'err' : ''}">Δ ${fmtDelta(b.durationMs - a.durationMs)}</span></div>`;
  let max = 1;
  for (const m of cmp.matched) max = Math.max(max, m.durationA, m.durationB);
  const bars = (x, y) => `<div class="cmp-bars"><div class="cmp-bar a" style="width:${(x / max) * 100}%"></div><div class="cmp-bar b" style="width:${(y / max) * 100}%"></div></div>`;
  const name = (m) => `<td class="cmp-name" style="padding-left:${4 + Math.min(m.depth, 16) * 12}px"><span class="dot" style="background:${serviceColor(m.service)}"></span>${esc(m.name)}</td>`;
  const rows = cmp.matched.map(
    (m) => `<tr class="cmp-row${m.delta > 0 ? ' grew' : m.delta < 0 ? ' shrank' : ''}" data-key="${esc(m.key)}">${name(m)}<td>${fmtMs(m.durationA / 1000)}</td><td>${fmtMs(m.durationB / 1000)}</td>
      <td class="delta">${fmtDelta(m.delta / 1000)}${m.ratio !== null && m.ratio !== 1 ? ` <span class="muted">×${m.ratio.toFixed(2)}</span>` : ''}</td><td class="cmp-bar-cell">${bars(m.durationA, m.durationB)}</td></tr>`,
  );
  const only = (list, which) =>
    list.map(
      (m) =>
        `<tr class="cmp-only only-${which}" data-key="${esc(m.key)}">${name(m)}<td>${which === 'a' ? fmtMs(m.duration / 1000) : '—'}</td><td>${which === 'b' ? fmtMs(m.duration / 1000) : '—'}</td><td class="delta">only in ${which.toUpperCase()}</td><td></td></tr>`,
    );
  $('compare').innerHTML =
    `<p><button id="compare-close">back to the trace</button> <span class="muted">${plural(cmp.matched.length, 'span', 'spans')} in both, largest change first${cmp.onlyA.length || cmp.onlyB.length ? `; ${cmp.onlyA.length} only in A, ${cmp.onlyB.length} only in B` : ''}</span></p>
    <table class="cmp"><thead><tr><th>span</th><th>A</th><th>B</th><th>Δ</th><th><span class="cmp-key a"></span>A <span class="cmp-key b"></span>B</th></tr></thead>
    <tbody>${rows.join('')}${only(cmp.onlyB, 'b').join('')}${only(cmp.onlyA, 'a').join('')}</tbody></table>`;
  $('compare').hidden = false;
}
const fmtDelta = (ms) => `${ms > 0 ? '+' : ms < 0 ? '−' : '±'}${fmtMs(Math.abs(ms))}`;

// ---- events
$('scatter').addEventListener('click', (e) => {
  const pt = e.target.closest('.pt');
  if (pt) openTrace(pt.dataset.trace);
});
$('scatter').addEventListener('mouseover', (e) => {
  const pt = e.target.closest('.pt');
  scatterTip(pt, pt && state.shown[pt.dataset.i]);
});
$('scatter').addEventListener('mouseleave', () => scatterTip(null));
// Keyboard: arrows step through the points in time order, Enter opens the one in focus.
$('scatter').addEventListener('keydown', (e) => {
  const n = state.shown.length;
  if (!n) return;
  const byTime = state.scatterOrder || (state.scatterOrder = state.shown.map((_, i) => i).sort((a, b) => state.shown[a].startMs - state.shown[b].startMs));
  let pos = byTime.indexOf(scatterFocus);
  if (e.key === 'ArrowRight' || e.key === 'ArrowUp') pos = Math.min(n - 1, pos + 1);
  else if (e.key === 'ArrowLeft' || e.key === 'ArrowDown') pos = Math.max(0, pos < 0 ? 0 : pos - 1);
  else if (e.key === 'Home') pos = 0;
  else if (e.key === 'End') pos = n - 1;
  else if (e.key === 'Enter' && scatterFocus >= 0) return void openTrace(state.shown[scatterFocus].traceId);
  else return;
  e.preventDefault();
  for (const el of $('scatter').querySelectorAll('.pt.focus')) el.classList.remove('focus');
  scatterFocus = byTime[pos];
  const el = $('scatter').querySelector(`.pt[data-i="${scatterFocus}"]`);
  el.classList.add('focus');
  scatterTip(el, state.shown[scatterFocus]);
});
$('list').addEventListener('scroll', () => requestAnimationFrame(renderList));
$('waterfall').addEventListener('scroll', () => requestAnimationFrame(renderRows));
$('list-rows').addEventListener('click', (e) => {
  const row = e.target.closest('[data-trace]');
  if (!row) return;
  if (e.target.closest('.pick')) return pickTrace(row.dataset.trace, e.target.checked);
  openTrace(row.dataset.trace);
});
$('compare-go').addEventListener('click', () => showCompare(...state.picked));
$('span-search').addEventListener('input', () => {
  clearTimeout(debounce);
  debounce = setTimeout(() => {
    findSpans();
    if (state.hits.length) stepHit(0);
    else renderHits();
  }, 150);
});
$('span-search').addEventListener('keydown', (e) => {
  if (e.key !== 'Enter') return;
  e.preventDefault();
  clearTimeout(debounce);
  findSpans(true);
  stepHit(e.shiftKey ? -1 : 1);
});
$('span-next').addEventListener('click', () => stepHit(1));
$('span-prev').addEventListener('click', () => stepHit(-1));
$('show-cp').addEventListener('change', () => {
  renderCriticalSummary();
  renderRows();
});
$('compare').addEventListener('click', (e) => {
  if (e.target.closest('#compare-close')) {
    const open = state.compared && state.compared[1];
    hideCompare();
    if (open) openTrace(open);
  }
});
$('wf-rows').addEventListener('click', (e) => {
  const row = e.target.closest('[data-span]');
  if (!row) return;
  const node = state.trace.byId.get(row.dataset.span);
  if (e.target.closest('.toggle') && node.children.length) {
    if (state.collapsed.has(node.span.id)) state.collapsed.delete(node.span.id);
    else state.collapsed.add(node.span.id);
    layoutRows();
    return;
  }
  selectSpan(node, false);
});
$('details').addEventListener('click', (e) => {
  const a = e.target.closest('[data-goto-trace]');
  if (!a) return;
  const { gotoTrace, gotoSpan } = a.dataset;
  if (state.trace && gotoTrace === state.trace.summary.traceId) selectSpan(state.trace.byId.get(gotoSpan), true);
  else openTrace(gotoTrace, gotoSpan);
});
let debounce;
for (const id of ['f-service', 'f-errors', 'f-min', 'f-since', 'f-until', 'f-trace', 'f-name', 'f-sort', 'f-where']) {
  $(id).addEventListener('input', () => {
    clearTimeout(debounce);
    // A search reads spans: wait until typing pauses.
    debounce = setTimeout(applyFilters, id === 'f-where' ? 350 : 120);
  });
}
window.addEventListener('resize', () => {
  renderScatter();
  renderList();
  renderRows();
});

// ---- live mode: new traces appear while the span files grow
async function poll() {
  try {
    const res = await fetch('api/traces');
    if (res.ok) {
      const fresh = await res.json();
      const changed = fresh.traces.length !== state.traces.length || fresh.spanCount !== state.spanCount;
      state.spanCount = fresh.spanCount;
      if (changed) {
        state.traces = fresh.traces;
        fillServices();
        applyFilters();
      }
      $('live').textContent = `live · ${fresh.spanCount} spans`;
    }
  } catch {
    $('live').textContent = 'live · server not reachable';
  }
}

async function start() {
  fillServices();
  await applyFilters();
  const hash = new URLSearchParams(location.hash.slice(1));
  const first = hash.get('trace') || (state.shown[0] && state.shown[0].traceId);
  if (first) openTrace(first, hash.get('span') || undefined);
  if (state.mode === 'live') {
    state.spanCount = data.spanCount;
    $('live').textContent = `live · ${data.spanCount} spans`;
    setInterval(poll, 2000);
  }
}
start();
