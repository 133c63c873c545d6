// The edgelimit console: plain JavaScript over the admin API of `edgelimit dev`
// (/admin/tenants..., /admin/dev/traffic, /admin/dev/simulate). No build step, no
// library: the page polls every second and redraws what changed.
"use strict";

const state = { selected: "", tenant: null, busy: false, confirming: "" };
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

// api sends one request to the admin API and returns {status, body}; a problem's
// detail is in body.detail.
async function api(method, path, body, headers) {
  const opts = { method, headers: Object.assign({}, headers) };
  if (body !== undefined) {
    opts.body = JSON.stringify(body);
    if (!opts.headers["Content-Type"]) opts.headers["Content-Type"] = "application/json";
  }
  const resp = await fetch("/admin" + path, opts);
  const text = await resp.text();
  let parsed = null;
  try { parsed = text ? JSON.parse(text) : null; } catch (e) { parsed = { detail: text }; }
  return { status: resp.status, body: parsed, etag: resp.headers.get("ETag") };
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k === "style") e.style.cssText = v; // CSSOM: the page's policy forbids inline style attributes
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function svgEl(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// problemText is what an answer says went wrong: a problem's detail, else its title.
function problemText(r) {
  return `${r.status} ${(r.body && (r.body.detail || r.body.title)) || "(no answer)"}`;
}

function setStatus(id, text, isError) {
  $(id).textContent = text;
  $(id).className = "status" + (isError ? " error" : "");
}

// inZone renders an instant in the tenant's time zone.
function inZone(iso, zone) {
  return new Intl.DateTimeFormat("en-GB", {
    timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit",
    hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false, timeZoneName: "short",
  }).format(new Date(iso));
}

// ---- tenants ----

async function refreshTenants() {
  const r = await api("GET", "/tenants?limit=100");
  if (r.status !== 200) return;
  const list = $("tenants");
  list.replaceChildren(...r.body.tenants.map((t) => el("li", {},
    el("button", { type: "button", "data-tenant": t.id, class: t.id === state.selected ? "selected" : "", onclick: () => select(t.id) },
      `${t.id}  (${t.timezone})`))));
}

function select(id) {
  state.selected = id;
  state.confirming = "";
  $("new-key-box").hidden = true;
  setStatus("key-status", "");
  tick();
}

async function createTenant(ev) {
  ev.preventDefault();
  const id = $("new-id").value.trim();
  let rules;
  try { rules = JSON.parse($("new-rules").value); } catch (e) {
    setStatus("create-status", "rules: not JSON: " + e.message, true);
    return;
  }
  const r = await api("PUT", "/tenants/" + encodeURIComponent(id), { id, timezone: $("new-timezone").value.trim() || "UTC", rules });
  if (r.status !== 201) {
    setStatus("create-status", `${r.status}: ${r.body && r.body.detail}${r.body && r.body.field ? " (" + r.body.field + ")" : ""}`, true);
    return;
  }
  setStatus("create-status", `created ${id} (version ${r.body.version})`);
  select(id);
}

// ---- one tenant: keys, usage, traffic ----

async function refreshTenant() {
  const id = state.selected;
  if (!id) return;
  const [t, keys, traffic] = await Promise.all([
    api("GET", "/tenants/" + id), api("GET", "/tenants/" + id + "/keys"),
    api("GET", "/dev/traffic?seconds=60&tenant_id=" + encodeURIComponent(id))]);
  if (t.status !== 200) {
    $("tenant-title").textContent = `${id}: ${t.status} ${t.body && t.body.detail}`;
    return;
  }
  state.tenant = t.body;
  $("tenant-title").textContent = "Tenant " + id;
  $("tenant-meta").textContent = `time zone ${t.body.timezone} · fail mode ${t.body.fail_mode} · status ${t.body.status} · version ${t.body.version} · generation ${t.body.generation}`;
  const plan = t.body.plan ? await api("GET", "/plans/" + encodeURIComponent(t.body.plan)) : null;
  renderPlan(t.body, plan);
  $("tenant-body").hidden = false;
  const active = keys.status === 200 ? keys.body.keys : [];
  renderKeys(active);
  const sections = usageSections(effective(t.body, plan && plan.status === 200 ? plan.body : null), active.filter((k) => !k.revoked));
  const answers = await Promise.all(sections.map((s) => s.query === null ? null : api("GET", `/tenants/${id}/usage${s.query}`)));
  renderUsage(sections.map((s, i) => Object.assign(s, { answer: answers[i] })));
  if (traffic.status === 200) renderTraffic(traffic.body);
}

// activeOverrides are the tenant's overrides that apply now: until is after now.
function activeOverrides(t) {
  const now = Date.now();
  return (t.overrides || []).filter((o) => Date.parse(o.until) > now);
}

// mergeByName returns base with each item of over replacing base's item of the same
// name, and over's others appended, as the authorizer merges rules and routes.
function mergeByName(base, over, name) {
  const out = (base || []).slice();
  for (const x of over || []) {
    const i = out.findIndex((y) => name(y) === name(x));
    if (i >= 0) out[i] = x; else out.push(x);
  }
  return out;
}

// effective is the tenant as the authorizer limits it now: its plan's rules and
// routes, then its own, then its active overrides' rules (tenant.Tenant.Effective).
function effective(t, plan) {
  const ruleName = (r) => r.name, routeName = (r) => r.method + " " + r.resource;
  let rules = mergeByName(plan ? plan.rules : [], t.rules, ruleName);
  for (const o of activeOverrides(t)) rules = mergeByName(rules, o.rules, ruleName);
  return Object.assign({}, t, { rules, routes: mergeByName(plan ? plan.routes : [], t.routes, routeName) });
}

// renderPlan shows the tenant's plan (its version and rules) and its active overrides.
function renderPlan(t, plan) {
  const rule = (r) => `${r.name} ${r.limit}/${r.period}`;
  if (!t.plan) $("tenant-plan").textContent = "no plan";
  else if (plan.status !== 200) $("tenant-plan").textContent = `plan ${t.plan}: ${plan.status} ${plan.body && plan.body.detail}`;
  else $("tenant-plan").textContent = `plan ${t.plan} (version ${plan.body.version}): ${plan.body.rules.map(rule).join(", ")}`;
  $("tenant-overrides").replaceChildren(...activeOverrides(t).map((o) =>
    el("li", { "data-until": o.until }, `override until ${inZone(o.until, t.timezone)}: ${o.rules.map(rule).join(", ")}`)));
}

// scopesOf lists the scopes of a tenant's rules, tenant-wide and on its routes.
function scopesOf(t) {
  const rules = (t.rules || []).concat(...(t.routes || []).map((r) => r.rules || []));
  return new Set(rules.map((r) => r.scope || "tenant"));
}

// usageSections are the views of a tenant's usage, each one query of the usage API
// showing the rules of one scope: the tenant-wide counters once (also without keys),
// each key's counters, and the counters of the address in the page's field.
function usageSections(t, keys) {
  const scopes = scopesOf(t), addr = $("usage-ip").value.trim();
  const sections = [{ scope: "tenant", label: "every caller together (tenant scope)", query: "", empty: "no tenant-scope rule" }];
  if (scopes.has("key") && keys.length === 0) {
    sections.push({ scope: "key", label: "per key (key scope)", query: null, empty: "no key yet: issue one to see its counters" });
  }
  if (scopes.has("key")) {
    for (const k of keys) sections.push({ scope: "key", key: k.key_id, label: `key ${k.key_id} (key scope)`, query: `?key_id=${k.key_id}`, empty: "" });
  }
  if (scopes.has("ip")) {
    // With a key, as a request from the address with that key: without one the usage
    // API reads the key rules as an anonymous request's, on the address.
    const withKey = keys.length ? `&key_id=${keys[0].key_id}` : "";
    sections.push(addr
      ? { scope: "ip", label: `address ${addr} (ip scope)`, query: `?ip=${encodeURIComponent(addr)}${withKey}`, empty: "" }
      : { scope: "ip", label: "per address (ip scope)", query: null, empty: "enter an address above to see its counters" });
  }
  return sections;
}

function renderKeys(keys) {
  $("keys").tBodies[0].replaceChildren(...keys.map((k) => el("tr", { "data-key": k.key_id },
    el("td", {}, k.key_id), el("td", {}, k.prefix), el("td", {}, k.created),
    el("td", {}, k.revoked ? "revoked" : "active"),
    el("td", {}, k.revoked ? "" : revokeCell(k.key_id)))));
}

// revokeCell asks before it revokes: Revoke, then "Yes, revoke" or Cancel.
function revokeCell(keyID) {
  if (state.confirming !== keyID) {
    return el("button", { type: "button", class: "revoke", onclick: () => { state.confirming = keyID; tick(); } }, "Revoke");
  }
  return el("span", { class: "confirm" }, `Revoke ${keyID}? Requests with it are refused at once. `,
    el("button", { type: "button", class: "confirm-revoke", onclick: () => revoke(keyID) }, "Yes, revoke"), " ",
    el("button", { type: "button", class: "cancel-revoke", onclick: () => { state.confirming = ""; tick(); } }, "Cancel"));
}

async function issueKey() {
  const r = await api("POST", `/tenants/${state.selected}/keys`);
  if (r.status !== 201) {
    $("new-key-box").hidden = true;
    setStatus("key-status", "Issue a key: " + problemText(r), true);
    return;
  }
  setStatus("key-status", "");
  $("new-key").textContent = r.body.key;
  $("new-key-box").hidden = false;
  tick();
}

async function revoke(keyID) {
  state.confirming = "";
  const r = await api("DELETE", `/tenants/${state.selected}/keys/${keyID}`);
  if (r.status !== 204 && r.status !== 200) setStatus("key-status", `Revoke ${keyID}: ` + problemText(r), true);
  else setStatus("key-status", `revoked ${keyID}`);
  tick();
}

// renderUsage shows each section's rules, with their use and next reset in the
// tenant's zone.
function renderUsage(sections) {
  $("usage").replaceChildren(...sections.map((s) => {
    const head = el("p", { class: "note" }, s.label), attrs = { "data-scope": s.scope, "data-key": s.key || "" };
    if (s.answer === null) return el("div", attrs, head, el("p", { class: "note" }, s.empty));
    if (s.answer.status !== 200) return el("div", attrs, head, el("p", { class: "status error" }, problemText(s.answer)));
    const u = s.answer.body, rules = u.rules.filter((r) => (r.rule.scope || "tenant") === s.scope);
    head.textContent += ` · ${u.timezone} · at ${inZone(u.at, u.timezone)}`;
    if (!rules.length) return el("div", attrs, head, el("p", { class: "note" }, s.empty));
    return el("div", attrs, head,
      el("table", {}, el("thead", {}, el("tr", {}, ...["rule", "algorithm", "used", "", "remaining", "next reset (tenant's zone)"].map((h) => el("th", {}, h)))),
        el("tbody", {}, ...rules.map((r) => usageRow(r, u.timezone)))));
  }));
}

function usageRow(r, zone) {
  const name = (r.route ? r.route + " / " : "") + (r.rule.name || r.rule.algorithm);
  const share = r.capacity ? Math.min(r.used / r.capacity, 1) : 0;
  const secs = Math.max(0, Math.ceil((Date.parse(r.reset) - Date.now()) / 1000));
  return el("tr", { class: "rule-row" + (r.remaining === 0 ? " denied" : ""), "data-rule": name },
    el("td", {}, name), el("td", {}, `${r.rule.algorithm} ${r.rule.limit}/${r.rule.period}`),
    el("td", { class: "used" }, `${r.used} / ${r.capacity}`),
    el("td", {}, el("span", { class: "bar" }, el("span", { class: share >= 1 ? "full" : "", style: `width:${Math.round(share * 100)}%` }))),
    el("td", { class: "remaining" }, String(r.remaining)),
    el("td", { class: "reset" }, `${inZone(r.reset, zone)} (in ${secs} s)`));
}

// renderTraffic draws allowed (green), denied (red) and unauthorized (grey) per second.
function renderTraffic(tr) {
  $("allowed-total").textContent = tr.totals.allowed;
  $("denied-total").textContent = tr.totals.denied;
  $("unauthorized-total").textContent = tr.totals.unauthorized;
  $("failmode-total").textContent = tr.totals.fail_open + tr.totals.fail_closed;
  const svg = $("traffic"), w = 600, h = 140, base = h - 20, bw = w / tr.seconds.length;
  const top = Math.max(1, ...tr.seconds.map((s) => s.allowed + s.denied + s.unauthorized));
  const scale = (base - 10) / top;
  const parts = [svgEl("text", { x: 4, y: 12, "font-size": 10 }, `max ${top}/s`),
    svgEl("line", { x1: 0, y1: base, x2: w, y2: base, stroke: "#999" }),
    svgEl("text", { x: 2, y: h - 6, "font-size": 10 }, "-60 s"),
    svgEl("text", { x: w - 24, y: h - 6, "font-size": 10 }, "now")];
  tr.seconds.forEach((s, i) => {
    let y = base;
    for (const [n, color] of [[s.allowed, "#2f7d4f"], [s.denied, "#b3261e"], [s.unauthorized, "#8a99a8"]]) {
      if (!n) continue;
      const bh = n * scale;
      y -= bh;
      parts.push(svgEl("rect", { x: i * bw + 1, y, width: bw - 2, height: bh, fill: color, class: color === "#b3261e" ? "denied-bar" : "" }));
    }
  });
  svg.replaceChildren(...parts);
}

// ---- simulate ----

const defaultRules = [
  '{"algorithm": "fixed_window", "limit": 5, "period": "1s"}',
  '{"algorithm": "sliding_log", "limit": 5, "period": "1s"}',
  '{"algorithm": "sliding_window", "limit": 5, "period": "1s"}',
  '{"algorithm": "token_bucket", "limit": 5, "period": "1s", "burst": 10}',
  '{"algorithm": "leaky_bucket", "limit": 5, "period": "1s", "burst": 10}',
];

// defaultTrace is a burst of 10 at 0.9 s, then 20 requests a second for 3 s.
function defaultTrace() {
  const lines = ["# a burst of 10 at 0.9 s, then 20 per second"];
  for (let i = 0; i < 10; i++) lines.push("1798761600.900000,client");
  for (let i = 1; i <= 60; i++) lines.push(`${(1798761601 + (i - 1) / 20).toFixed(6)},client`);
  return lines.join("\n");
}

async function runSimulation() {
  const rules = $("sim-rules").value.split("\n").map((l) => l.trim()).filter((l) => l);
  const rows = [];
  for (const line of rules) {
    let rule;
    try { rule = JSON.parse(line); } catch (e) {
      setStatus("sim-status", `rule ${line}: not JSON`, true);
      return;
    }
    const r = await api("POST", "/dev/simulate", { rules: [rule], trace: $("trace").value });
    if (r.status !== 200) {
      setStatus("sim-status", `${rule.algorithm}: ${r.body.detail}`, true);
      return;
    }
    rows.push({ name: rule.name || rule.algorithm, result: r.body });
  }
  setStatus("sim-status", `${rows.length} rules, ${rows.length ? rows[0].result.total : 0} requests`);
  drawSimulation(rows);
}

// drawSimulation draws one line per rule: each request a dot, green when allowed.
// The requests of one instant (a burst) stand in a column, allowed ones first, each
// dot in a place of its own: none hides another.
function drawSimulation(rows) {
  const svg = $("sim-chart"), w = 760, left = 120, gap = 5, radius = 2.2;
  const times = rows.flatMap((r) => r.result.decisions.map((d) => d.t));
  const t0 = Math.min(...times), t1 = Math.max(...times, t0 + 1);
  const x = (t) => left + (t - t0) / (t1 - t0) * (w - left - 20);
  const columns = rows.map((r) => instants(r.result.decisions));
  const tallest = Math.max(1, ...columns.flatMap((c) => [...c.values()].map((ds) => ds.length)));
  const rowH = Math.max(26, tallest * gap + 14);
  svg.setAttribute("height", rows.length * rowH + 24);
  const parts = [];
  rows.forEach((r, i) => {
    const bottom = (i + 1) * rowH - 4;
    parts.push(svgEl("text", { x: 4, y: bottom - rowH / 2 + 8, "font-size": 11 }, r.name));
    for (const [t, ds] of columns[i]) {
      ds.forEach((d, j) => parts.push(svgEl("circle", { cx: x(t), cy: bottom - j * gap, r: radius,
        fill: d.allowed ? "#2f7d4f" : "#b3261e", class: d.allowed ? "allowed" : "denied", "data-row": i })));
    }
  });
  parts.push(svgEl("text", { x: left, y: rows.length * rowH + 18, "font-size": 10 }, `0 s … ${(t1 - t0).toFixed(1)} s (green: allowed, red: denied; a column is one instant)`));
  svg.replaceChildren(...parts);
  $("sim-results").tBodies[0].replaceChildren(...rows.map((r) => el("tr", { "data-rule": r.name },
    el("td", {}, r.name), el("td", { class: "allowed" }, `${r.result.allowed} of ${r.result.total}`))));
}

// instants groups decisions by their instant, in time order, allowed first in each.
function instants(decisions) {
  const byT = new Map();
  for (const d of decisions) {
    if (!byT.has(d.t)) byT.set(d.t, []);
    byT.get(d.t).push(d);
  }
  for (const ds of byT.values()) ds.sort((a, b) => Number(b.allowed) - Number(a.allowed));
  return byT;
}

// ---- polling ----

async function tick() {
  if (state.busy) return;
  state.busy = true;
  try {
    $("clock").textContent = new Date().toISOString().slice(0, 19) + "Z";
    await refreshTenants();
    await refreshTenant();
  } finally {
    state.busy = false;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("create-tenant").addEventListener("submit", createTenant);
  $("issue-key").addEventListener("click", issueKey);
  $("run-sim").addEventListener("click", runSimulation);
  $("usage-ip").addEventListener("change", tick);
  $("trace").value = defaultTrace();
  $("sim-rules").value = defaultRules.join("\n");
  tick();
  setInterval(tick, 1000);
});
