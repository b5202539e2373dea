// a dashboard bound beyond loopback needs its key: opened as /?key=KEY, the page sends it on
const KEY_QUERY = (() => {
  const key = new URLSearchParams(window.location.search).get("key");
  return key ? "&key=" + encodeURIComponent(key) : "";
})();
// Jupiter dashboard: polls api/state and draws the page. Every string from the data goes
// into the page as text (textContent, text nodes, attributes), never as HTML.
"use strict";

const POLL_MS = 1500;
const SVG = "http://www.w3.org/2000/svg";
const DASH = "\u2014";
const FIGURES = [["bpb", "bpb"], ["qa_f1", "QA F1"], ["qa_exact", "QA exact"],
                 ["mc_accuracy", "MC accuracy"], ["general_bpb", "general bpb"]];
let version = "";
let doc = null;

// ------------------------------------------------------------------------- building
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = String(text);
  return node;
}

function fixed(x, digits) {
  return typeof x === "number" && isFinite(x) ? x.toFixed(digits) : DASH;
}

function signed(x, digits) {
  const text = fixed(x, digits);
  return typeof x === "number" && x >= 0 ? "+" + text : text;
}

function count(x) {
  return typeof x === "number" && isFinite(x) ? Math.round(x).toLocaleString("en-US") : DASH;
}

function figure(value, ci) {  // 0.512 [0.47, 0.55], as `jupiter eval` prints it
  let text = fixed(value, 3);
  if (typeof value === "number" && Array.isArray(ci) && ci.length === 2) {
    text += " [" + fixed(ci[0], 2) + ", " + fixed(ci[1], 2) + "]";
  }
  return text;
}

function ago(seconds) {
  if (typeof seconds !== "number") return DASH;
  if (seconds < 90) return Math.max(0, Math.round(seconds)) + " s ago";
  if (seconds < 5400) return Math.round(seconds / 60) + " min ago";
  return (seconds / 3600).toFixed(1) + " h ago";
}

function when(t) {
  return typeof t === "number" ? new Date(t * 1000).toLocaleString() : DASH;
}

function table(headers, rows, attrs) {
  return el("table", attrs, el("thead", {}, el("tr", {}, headers.map((h) => el("th", {}, h)))),
            el("tbody", {}, rows));
}

function num(value, attrs) {
  return el("td", Object.assign({class: "n"}, attrs || {}), value);
}

function samples(key, texts) {
  if (!texts || !texts.length) return "";
  return el("details", {"data-key": key}, el("summary", {}, texts.length + " sample(s)"),
            texts.map((t) => el("pre", {}, t)));
}

function bar(share, ok) {
  const inner = el("div", {class: ok ? "ok" : ""});
  inner.style.width = Math.max(0, Math.min(100, share)).toFixed(1) + "%";
  return el("div", {class: "bar"}, inner);
}

function empty(text) {
  return el("p", {class: "empty"}, text);
}

function card(key, value, attrs) {
  return el("div", Object.assign({class: "card"}, attrs || {}),
            el("div", {class: "v"}, value), el("div", {class: "k"}, key));
}

// -------------------------------------------------------------------------- charts
function ticks(lo, hi, n) {
  const raw = (hi - lo) / n;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((k) => k * mag).find((s) => raw <= s);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(v);
  return out;
}

function tickLabel(v) {
  if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString("en-US");
  return String(Number(v.toPrecision(3)));
}

// series: [{label, xs, ys, dots}]; returns an <svg> line chart
function chart(title, series, xlabel) {
  const W = 460, H = 210, m = {l: 56, r: 12, t: 22, b: 30};
  const pts = [];
  series.forEach((s) => s.xs.forEach((x, i) => {
    const y = s.ys[i];
    if (typeof x === "number" && typeof y === "number" && isFinite(x) && isFinite(y)) {
      pts.push([x, y]);
    }
  }));
  const node = svg("svg", {class: "chart", width: W, height: H, viewBox: `0 0 ${W} ${H}`,
                           role: "img", "data-chart": title});
  node.append(svg("title", {}, title));
  if (!pts.length) {
    node.append(svg("text", {x: W / 2, y: H / 2, "text-anchor": "middle"}, "no points yet"));
    return node;
  }
  let [x0, x1] = [Math.min(...pts.map((p) => p[0])), Math.max(...pts.map((p) => p[0]))];
  let [y0, y1] = [Math.min(...pts.map((p) => p[1])), Math.max(...pts.map((p) => p[1]))];
  if (x0 === x1) { x0 -= 1; x1 += 1; }
  if (y0 === y1) { const d = Math.abs(y0) * 0.05 || 1; y0 -= d; y1 += d; }
  const px = (x) => m.l + (x - x0) / (x1 - x0) * (W - m.l - m.r);
  const py = (y) => H - m.b - (y - y0) / (y1 - y0) * (H - m.t - m.b);
  for (const v of ticks(y0, y1, 5)) {
    node.append(svg("line", {class: "grid", x1: m.l, x2: W - m.r, y1: py(v), y2: py(v)}));
    node.append(svg("text", {x: m.l - 4, y: py(v) + 3, "text-anchor": "end"}, tickLabel(v)));
  }
  for (const v of ticks(x0, x1, 5)) {
    node.append(svg("text", {x: px(v), y: H - m.b + 13, "text-anchor": "middle"}, tickLabel(v)));
  }
  node.append(svg("line", {class: "axis", x1: m.l, x2: W - m.r, y1: H - m.b, y2: H - m.b}));
  node.append(svg("line", {class: "axis", x1: m.l, x2: m.l, y1: m.t, y2: H - m.b}));
  node.append(svg("text", {x: W - m.r, y: H - 3, "text-anchor": "end"}, xlabel));
  series.forEach((s, k) => {
    const xy = s.xs.map((x, i) => [x, s.ys[i]])
      .filter((p) => typeof p[0] === "number" && typeof p[1] === "number");
    if (s.dots) {
      for (const [x, y] of xy) node.append(svg("circle", {class: "s1", cx: px(x), cy: py(y), r: 2.5}));
    } else if (xy.length) {
      const points = xy.map(([x, y]) => px(x).toFixed(1) + "," + py(y).toFixed(1)).join(" ");
      node.append(svg("polyline", {class: "s" + (s.cls || 0), points: points}));
    }
    node.append(svg("text", {class: "legend" + (s.dots ? 1 : s.cls || 0),
                             x: m.l + 8 + k * 110, y: 14}, s.label));
  });
  return node;
}

// ------------------------------------------------------------------------ sections
function overview(d) {
  const o = d.overview;
  const cycles = o.cycles_planned ? `${o.cycles_done} / ${o.cycles_planned}` : String(o.cycles_done);
  const now = o.current_cycle ? `cycle ${o.current_cycle}: next ${o.next_stage || DASH}` : "idle";
  const activity = d.last_activity ? ago(Date.now() / 1000 - d.last_activity) : DASH;
  return el("div", {class: "cards"},
    card("documents", count(o.documents), {"data-overview": "documents"}),
    card("chunks train / held out", `${count(o.chunks_train)} / ${count(o.chunks_heldout)}`),
    card("examples", count(o.examples), {"data-overview": "examples"}),
    card("active generator", o.active_generator || "extractive (not yet used)",
         {"data-overview": "active_generator"}),
    card("cycles done", cycles, {"data-overview": "cycles"}),
    card("now", now, {"data-overview": "now"}),
    card("last write", activity, {"data-overview": "activity"}));
}

function decision(c) {
  const dec = c.decision;
  if (!dec) return el("p", {class: "note", "data-decision": c.n}, "no decision yet");
  const out = el("p", {"data-decision": c.n}, el("span", {class: dec.outcome}, dec.outcome));
  if (dec.metric) {
    out.append(`: ${dec.metric} student ${fixed(dec.student, 3)} vs ${dec.generator_id || "generator"} ` +
               `${fixed(dec.generator, 3)}`);
    if (Array.isArray(dec.difference_ci)) {
      out.append(`, difference 95% CI [${signed(dec.difference_ci[0], 3)}, ${signed(dec.difference_ci[1], 3)}]`);
    }
  }
  out.append(dec.reason ? ` (${dec.reason})` : "");
  if (dec.new_generator) out.append(`; ${dec.new_generator} generates the next cycle's data`);
  return out;
}

function cycleBlock(c) {
  const models = c.models.map((m) => el("tr", {"data-cycle": c.n, "data-model": m.model},
    el("td", {}, m.model),
    FIGURES.map(([key]) => {
      const f = m.figures[key];
      let text = figure(f.value, f.ci);
      if (key === "mc_accuracy" && typeof f.value === "number" && typeof m.mc_chance === "number") {
        text += ` (chance ${fixed(m.mc_chance, 2)})`;
      }
      return num(text, {"data-figure": key});
    }),
    num(`${count(m.n_qa)} / ${count(m.n_mc)}`)));
  const comps = c.comparisons.map((x) => el("tr", {"data-comparison": x.comparison, "data-metric": x.metric},
    el("td", {}, `${x.model} \u2212 ${x.against}`), el("td", {}, x.metric + (x.higher_is_better ? "" : " (lower is better)")),
    num(Array.isArray(x.ci) ? `${signed(x.difference, 3)} [${signed(x.ci[0], 2)}, ${signed(x.ci[1], 2)}]` : signed(x.difference, 3)),
    el("td", {}, x.verdict || DASH)));
  const t = c.train;
  const stages = c.stages.map((s) => s.name + (s.skipped ? " (skipped)" : "")).join(", ");
  return el("div", {"data-cycle-block": c.n},
    el("h3", {}, `cycle ${c.n}: ${c.status}`),
    el("p", {class: "note"}, `generator ${c.generator}; started ${when(c.started_at)}; stages done: ${stages || DASH}`),
    models.length ? table(["model", ...FIGURES.map((f) => f[1]), "QA / MC items"], models) : empty("not evaluated yet"),
    decision(c),
    comps.length ? table(["paired difference", "metric", "difference [95% CI]", "verdict"], comps) : "",
    t ? el("p", {class: "note", "data-train": c.n},
           `trained ${count(t.steps)} steps on ${count(t.examples)} examples (${count(t.tokens)} tokens): ` +
           `loss ${fixed(t.first_loss, 3)} \u2192 ${fixed(t.final_loss, 3)}, held-out ${fixed(t.heldout_loss, 3)}, ` +
           `${count(t.tokens_per_s)} tokens/s`) : "");
}

function cycles(d) {
  return d.cycles.length ? d.cycles.map(cycleBlock) : empty("no cycle has started yet");
}

function curveBlock(c) {
  const last = c.last, held = c.last_heldout;
  return el("div", {"data-run": c.run},
    el("h3", {}, c.run + " ", el("small", {class: "note"}, c.path)),
    el("p", {},
      "step ", el("b", {"data-last": "step"}, count(last.step)),
      " \u00b7 loss ", el("b", {"data-last": "loss"}, fixed(last.loss, 4)),
      " \u00b7 held-out loss ", el("b", {"data-last": "heldout_loss"}, held ? fixed(held.loss, 4) : DASH),
      " \u00b7 tokens/s ", el("b", {"data-last": "tokens_per_s"}, count(last.tokens_per_s)),
      " \u00b7 lr ", el("b", {"data-last": "lr"}, typeof last.lr === "number" ? last.lr.toExponential(2) : DASH),
      c.train_points > c.train.step.length ? ` (${count(c.train_points)} points, ${c.train.step.length} drawn)` : ""),
    el("div", {class: "charts"},
      chart(`${c.run}: loss`, [
        {label: "train loss", xs: c.train.step, ys: c.train.loss},
        {label: "held-out loss", xs: c.heldout.step, ys: c.heldout.loss, dots: true}], "step"),
      chart(`${c.run}: tokens/s`, [
        {label: "tokens/s", xs: c.train.step, ys: c.train.tokens_per_s, cls: 2}], "step")));
}

function curves(d) {
  return d.curves.length ? d.curves.map(curveBlock) : empty("no training run has logged yet");
}

function queue(d) {
  const q = d.queue;
  const total = Object.values(q.by_status).reduce((a, b) => a + b, 0);
  const status = Object.entries(q.by_status).map(([st, n]) => el("tr", {},
    el("td", {}, st), num(count(n), {"data-status": st}), num(total ? (100 * n / total).toFixed(1) + "%" : DASH),
    el("td", {}, bar(total ? 100 * n / total : 0, st === "accepted" || st === "used")),
    el("td", {}, samples("status:" + st, q.status_samples[st]))));
  const reasons = q.by_reason.map((r) => el("tr", {},
    el("td", {}, r.status), el("td", {}, r.reason), num(count(r.count), {"data-reason": r.reason}),
    el("td", {}, samples("reason:" + r.reason, q.reason_samples[r.reason]))));
  const stages = q.stages.map((s) => el("div", {"data-stage": `${s.stage}-${s.cycle}`},
    el("h3", {}, `${s.stage}: cycle ${s.cycle} (${count(s.total)} seen)`),
    table(["outcome", "count", "share", "", "samples"], s.rows.map((r) => el("tr", {},
      el("td", {}, r.reason), num(count(r.count), {"data-outcome": r.reason}), num(fixed(r.share, 1) + "%"),
      el("td", {}, bar(r.share, r.kept)),
      el("td", {}, samples(`stage:${s.stage}:${s.cycle}:${r.reason}`, r.samples)))))));
  return [
    el("h3", {}, `examples by status (${count(total)} in all)`),
    status.length ? table(["status", "count", "share", "", "samples"], status, {id: "queue-status"}) : empty("the queue is empty"),
    el("h3", {}, "rejected, by drop reason"),
    reasons.length ? table(["status", "reason", "count", "samples"], reasons, {id: "queue-reasons"}) : empty("nothing dropped"),
    stages];
}

function generation(d) {
  const g = d.generation;
  const rows = g.cycles.map((c) => {
    const s = c.stage;
    const queued = c.queued.map((q) => `${q.generator} ${q.status} ${count(q.count)}`).join("; ");
    return el("tr", {"data-generation": c.cycle},
      num(c.cycle), el("td", {}, s.generator || DASH), el("td", {}, c.done ? "done" : "not finished"),
      num(count(c.queued_total), {"data-queued": c.cycle}), el("td", {}, queued || DASH),
      num(count(s.made)), num(count(s.new)), num(count(s.requests)), num(count(s.cache_hits)), num(count(s.calls)), num(count(s.retries)),
      num(count(s.failed)), num(count(c.llm_calls)), num(count(c.prompt_tokens)),
      num(count(c.completion_tokens)), num(fixed(s.seconds, 1)));
  });
  const llm = g.llm.map((m) => el("tr", {},
    el("td", {}, m.backend), el("td", {}, m.model), num(count(m.calls)), num(count(m.prompt_tokens)),
    num(count(m.completion_tokens)), el("td", {}, when(m.last))));
  const cap = g.max_examples ? ` (max_examples: ${count(g.max_examples)} a cycle)` : "";
  return [
    el("p", {class: "note"}, "Examples queued so far in each cycle, by generator and status" + cap +
       "; requests, cache hits, calls and retries as the generate stage recorded them when it finished; " +
       "LLM calls and tokens: answers cached in the store during the cycle (generation, judge, eval)."),
    rows.length ? table(["cycle", "generator", "generate", "queued", "by generator and status", "made",
                         "new", "requests",
                         "cache hits", "calls", "retries", "failed", "LLM calls", "prompt tokens",
                         "completion tokens", "seconds"], rows, {id: "generation-cycles"})
                : empty("nothing generated yet"),
    el("h3", {}, "LLM answers in the cache"),
    el("p", {"data-llm-minute": ""}, `last minute: ${count(g.last_minute.calls)} answers, ` +
       `${count(g.last_minute.completion_tokens)} completion tokens; cache hits of finished stages: ${count(g.cache_hits)}`),
    llm.length ? table(["backend", "model", "answers", "prompt tokens", "completion tokens", "last"], llm)
               : empty("no LLM has answered in this workspace")];
}

function clusterBlock(c) {
  const islands = c.islands.map((i) => el("tr", {"data-island": i.name},
    el("td", {}, i.name), el("td", {}, i.engine || DASH), el("td", {}, i.nodes.join(", ") || DASH),
    num(count(i.rounds), {"data-island-rounds": i.name}), num(count(i.skipped)), num(count(i.rejected)),
    num(count(i.tokens_per_s)), num(fixed(i.wait_s, 1)), num(fixed(i.train_loss, 4)),
    el("td", {}, i.heartbeat ? `round ${i.heartbeat.round}, step ${i.heartbeat.step}, ${ago(i.heartbeat.age_s)}` : DASH)));
  const rounds = c.rounds.map((r) => el("tr", {"data-round": r.round},
    num(r.round), el("td", {}, r.islands.join(", ")), el("td", {}, r.skipped.join(", ") || DASH),
    el("td", {}, r.rejected.join(", ") || DASH), num(fixed(r.heldout_loss, 4), {"data-round-loss": r.round}),
    num(typeof r.bytes === "number" ? (r.bytes / 1048576).toFixed(2) : DASH),
    num(typeof r.reduction === "number" ? r.reduction.toFixed(1) + "\u00d7" : DASH),
    num(count(r.tokens_per_s))));
  const sync = Object.entries(c.sync || {}).map(([k, v]) => `${k} ${v}`).join(", ");
  // a round's held-out loss is of the weights it produced: after round r, r + 1 rounds done
  const xs = c.rounds.map((r) => r.round + 1), ys = c.rounds.map((r) => r.heldout_loss);
  if (typeof c.start_heldout_loss === "number") { xs.unshift(0); ys.unshift(c.start_heldout_loss); }
  return el("div", {"data-cluster": c.cycle},
    el("h3", {}, `cycle ${c.cycle}: ${c.rounds.length}` + (c.planned_rounds ? ` / ${c.planned_rounds}` : "") + " sync rounds"),
    sync ? el("p", {class: "note"}, "sync: " + sync) : "",
    table(["island", "engine", "nodes", "rounds", "skipped", "rejected", "tokens/s", "wait s",
           "train loss", "heartbeat"], islands),
    chart(`cycle ${c.cycle}: held-out loss by round`, [{label: "held-out loss", xs: xs, ys: ys}], "rounds done"),
    rounds.length ? table(["round", "islands", "skipped", "rejected", "held-out loss", "MiB sent",
                           "less than all-reduce", "tokens/s"], rounds) : empty("no round finished yet"));
}

function cluster(d) {
  return d.cluster.length ? d.cluster.map(clusterBlock)
    : empty("this domain has not trained on a cluster (jupiter train --cluster)");
}

function gateFigures(f) {
  if (!f || f.metric === undefined) return DASH;
  let text = `${f.metric} ${fixed(f.student, 3)} vs ${fixed(f.generator, 3)}`;
  if (Array.isArray(f.ci)) text += `, \u0394 CI [${signed(f.ci[0], 3)}, ${signed(f.ci[1], 3)}]`;
  return text;
}

function lineage(d) {
  const gens = d.lineage.generators.map((g) => el("tr", {"data-generator": g.id, class: g.active ? "active" : ""},
    el("td", {}, (g.active ? "* " : "") + g.id), el("td", {}, g.parent || DASH), num(g.cycle),
    el("td", {class: g.status}, g.status || DASH), el("td", {}, gateFigures(g.figures)),
    el("td", {}, g.data.examples !== undefined ? `${count(g.data.examples)} examples` : DASH),
    el("td", {}, g.reason || DASH)));
  const events = d.lineage.events.map((e) => el("tr", {},
    el("td", {}, when(e.at)), num(e.cycle), el("td", {}, e.action), el("td", {}, e.generator),
    el("td", {}, e.previous || DASH), el("td", {}, e.reason || DASH)));
  return [
    gens.length ? table(["generator (* active)", "parent", "cycle", "status", "figures", "trained on", "reason"],
                        gens, {id: "lineage-generators"}) : empty("no generator recorded yet"),
    el("h3", {}, "activations"),
    events.length ? table(["when", "after cycle", "action", "generator", "previous", "reason"], events)
                  : empty("none yet")];
}

// --------------------------------------------------------------------------- loop
const SECTIONS = {overview, cycles, curves, queue, generation, cluster, lineage};

function render(d) {
  document.getElementById("domain").textContent = d.domain;
  document.getElementById("workspace").textContent = d.workspace;
  document.title = `${d.domain}: Jupiter dashboard`;
  for (const [name, draw] of Object.entries(SECTIONS)) {
    const body = document.getElementById(name + "-body");
    const open = new Set([...body.querySelectorAll("details[open]")].map((x) => x.dataset.key));
    let content;
    try {
      content = draw(d);
    } catch (err) {
      content = empty(`cannot draw this section: ${err}`);
    }
    body.replaceChildren(...[content].flat(Infinity).filter((x) => x !== "" && x !== null));
    for (const det of body.querySelectorAll("details")) if (open.has(det.dataset.key)) det.open = true;
  }
}

function status(state, text) {
  const live = document.getElementById("live");
  live.dataset.state = state;
  live.textContent = text;
}

async function poll() {
  let response = null;
  try {
    response = await fetch("api/state?since=" + encodeURIComponent(version) + KEY_QUERY,
                           {cache: "no-store"});
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || response.status);
    if (!data.unchanged) {
      doc = data;
      render(doc);
    }
    version = data.version;
    status("live", "live: updated " + new Date().toLocaleTimeString() + ", every " + POLL_MS / 1000 + " s");
  } catch (err) {
    const what = response ? "the dashboard server could not read the run" : "cannot reach the dashboard server";
    status("error", `${what} (${err.message || err}): retrying; the page shows the last figures read`);
  }
  setTimeout(poll, POLL_MS);
}

document.addEventListener("DOMContentLoaded", poll);
