// The theory explorer of cotbook (cotbook/book/explorer.py writes its data): no library, no
// network. Interpolates log10 E_t bilinearly in (log alpha, log(tau - 1)) between grid points,
// as cotbook.book.explorer.interpolate does. Parameters may come from the address:
// #alpha=0.5&tau=3&sigma2=0.01&t=40 sets the controls as a reader would.
function cotbookExplorer(id) {
  "use strict";
  const root = document.getElementById(id);
  const data = JSON.parse(document.getElementById(id + "-data").textContent);
  const NA = data.alphas.length, NT = data.taus.length, T = data.t_max + 1;
  const SVG = "http://www.w3.org/2000/svg";
  const ROW = "display: block; margin: 2px 0";
  const lna = data.alphas.map(Math.log), lnt = data.taus.map((t) => Math.log(t - 1));
  const curves = data.levels.map((level) => {
    const out = new Float64Array(level.steps.length);
    for (let k = 0; k < level.steps.length; k += T) {
      let acc = 0;
      for (let t = 0; t < T; t++) { acc += level.steps[k + t]; out[k + t] = acc * data.quantum; }
    }
    return out;
  });
  const el = (tag, attrs, parent, ns) => {
    const node = ns ? document.createElementNS(SVG, tag) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  };
  const slider = (label, min, max, step, value) => {
    const row = el("label", { class: "cotbook-explorer-row", style: ROW }, controls);
    row.append(label + " ");
    const input = el("input", { type: "range", min, max, step, value }, row);
    const out = el("output", { style: "margin-left: 6px" }, row);
    input.addEventListener("input", update);
    return [input, out];
  };
  const controls = el("div", { class: "cotbook-explorer-controls" }, root);
  const [aIn, aOut] = slider("α", 0, 1000, "any", 500);
  const [tIn, tOut] = slider("τ − 1", 0, 1000, "any", 600);
  const [dIn, dOut] = slider("map depth t", 0, data.t_max, 1, data.t_max);
  const sRow = el("label", { class: "cotbook-explorer-row", style: ROW }, controls);
  sRow.append("σ² ");
  const sIn = el("select", {}, sRow);
  data.levels.forEach((level, k) => {
    const opt = el("option", { value: k }, sIn);
    opt.textContent = String(level.sigma2);
  });
  sIn.value = String(Math.min(1, data.levels.length - 1));
  sIn.addEventListener("input", update);
  const info = el("p", { class: "cotbook-explorer-info" }, root);
  // Margins: at the left, tick labels of five characters (the data's 1e-42 to 1e156) clear of
  // the axis label; at the bottom, the tick labels clear of those at the left and of the label.
  const W = 640, H = 300, P = { l: 60, r: 12, t: 10, b: 40 };
  const curveSvg = el("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%", role: "img" }, root, 1);
  const mapSvg = el("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%", role: "img" }, root, 1);

  const position = (axis, x) => {
    if (x <= axis[0]) return [0, 0];
    if (x >= axis[axis.length - 1]) return [axis.length - 2, 1];
    let k = 0;
    while (axis[k + 1] < x) k++;
    return [k, (x - axis[k]) / (axis[k + 1] - axis[k])];
  };
  const at = (s, i, j, t) => curves[s][(i * NT + j) * T + t];
  const logAlpha = () => Math.log(10) * (-1 + (2 * aIn.value) / 1000);
  const logTau = () => Math.log(10) * (-2 + (4 * tIn.value) / 1000);
  function curve(s, la, lt) {
    const [i, u] = position(lna, la), [j, v] = position(lnt, lt);
    const out = [];
    for (let t = 0; t < T; t++) {
      out.push((1 - u) * (1 - v) * at(s, i, j, t) + u * (1 - v) * at(s, i + 1, j, t)
        + (1 - u) * v * at(s, i, j + 1, t) + u * v * at(s, i + 1, j + 1, t));
    }
    return out;
  }
  const fmt = (x) => (x === null ? "none" : Number(x).toPrecision(4));
  const colour = (z) => { // log10 E from -3 (dark blue) to 3 (yellow)
    const f = Math.max(0, Math.min(1, (z + 3) / 6));
    return `hsl(${240 - 180 * f}, 70%, ${25 + 45 * f}%)`;
  };
  function axes(svg, xs, ys, xlabel, ylabel) {
    for (const [x, label] of xs) {
      el("line", { x1: x, x2: x, y1: H - P.b, y2: H - P.b + 4, stroke: "#333" }, svg, 1);
      el("text", { x, y: H - P.b + 19, "text-anchor": "middle", "font-size": 12 }, svg, 1)
        .textContent = label;
    }
    for (const [y, label] of ys) {
      el("line", { x1: P.l - 4, x2: P.l, y1: y, y2: y, stroke: "#333" }, svg, 1);
      el("text", { x: P.l - 6, y: y + 4, "text-anchor": "end", "font-size": 12 }, svg, 1)
        .textContent = label;
    }
    el("rect", { x: P.l, y: P.t, width: W - P.l - P.r, height: H - P.t - P.b, fill: "none",
      stroke: "#333" }, svg, 1);
    el("text", { x: (W + P.l) / 2, y: H - 4, "text-anchor": "middle", "font-size": 13 }, svg, 1)
      .textContent = xlabel;
    el("text", { x: 12, y: (H - P.b) / 2, "font-size": 13, "text-anchor": "middle",
      transform: `rotate(-90 12 ${(H - P.b) / 2})` }, svg, 1).textContent = ylabel;
  }
  function update() {
    const s = Number(sIn.value), la = logAlpha(), lt = logTau(), level = data.levels[s];
    const alpha = Math.exp(la), tau = 1 + Math.exp(lt);
    aOut.textContent = alpha.toPrecision(3);
    tOut.textContent = (tau - 1).toPrecision(3) + ` (τ = ${tau.toPrecision(4)})`;
    dOut.textContent = dIn.value;
    const ys = curve(s, la, lt);
    // Result 2 at the nearest grid point
    const i = position(lna, la), j = position(lnt, lt);
    const ni = i[0] + (i[1] > 0.5 ? 1 : 0), nj = j[0] + (j[1] > 0.5 ? 1 : 0), k = ni * NT + nj;
    const law = level.law[k];
    info.textContent = `At the nearest grid point (α = ${fmt(data.alphas[ni])}, τ = `
      + `${fmt(data.taus[nj])}, σ² = ${level.sigma2}): ${data.regimes[level.regime[k]]}; `
      + `τ_c = ${fmt(level.tau_c[ni])}, Λ = ${fmt(level.rate[k])}, E_∞ = ${fmt(level.floor[k])}; `
      + (law ? `E_t − E_∞ ~ K t^${law[1]} ${fmt(law[0])}^t (${law[2]}).` : "no leading law.")
      + ` Curve: E_${data.t_max} = ${fmt(10 ** ys[T - 1])}.`;
    // the curve
    curveSvg.replaceChildren();
    const lo = Math.floor(Math.min(...ys, level.floor[k] ? Math.log10(level.floor[k]) : 0) - 0.2);
    const hi = Math.ceil(Math.max(...ys) + 0.2);
    const X = (t) => P.l + ((W - P.l - P.r) * t) / data.t_max;
    const Y = (z) => H - P.b - ((H - P.t - P.b) * (z - lo)) / (hi - lo);
    const every = Math.max(1, Math.ceil((hi - lo) / 8));
    const yt = [];
    for (let z = lo; z <= hi; z += every) yt.push([Y(z), `1e${z}`]);
    axes(curveSvg, [0, 20, 40, 60, 80].filter((t) => t <= data.t_max).map((t) => [X(t), t]), yt,
      "CoT depth t", "E_t");
    if (level.floor[k]) {
      el("line", { x1: X(0), x2: X(data.t_max), y1: Y(Math.log10(level.floor[k])),
        y2: Y(Math.log10(level.floor[k])), stroke: "#888", "stroke-dasharray": "5 4" },
      curveSvg, 1);
    }
    el("polyline", { fill: "none", stroke: "#1f77b4", "stroke-width": 2,
      points: ys.map((z, t) => `${X(t).toFixed(1)},${Y(z).toFixed(1)}`).join(" "),
      "data-log10e": JSON.stringify(ys.map((z) => Number(z.toFixed(6)))),
      "data-point": JSON.stringify([alpha, tau, s]) }, curveSvg, 1);
    // the map at depth d
    mapSvg.replaceChildren();
    const d = Number(dIn.value), cw = (W - P.l - P.r) / NA, ch = (H - P.t - P.b) / NT;
    for (let a = 0; a < NA; a++) {
      for (let b = 0; b < NT; b++) {
        el("rect", { x: P.l + a * cw, y: H - P.b - (b + 1) * ch, width: cw + 0.5,
          height: ch + 0.5, fill: colour(at(s, a, b, d)) }, mapSvg, 1);
      }
    }
    const MX = (l) => P.l + ((W - P.l - P.r) * (l - lna[0])) / (lna[NA - 1] - lna[0]);
    const MY = (l) => H - P.b - ((H - P.t - P.b) * (l - lnt[0])) / (lnt[NT - 1] - lnt[0]);
    const edge = level.tau_c.map((tc, a) => (tc > 1 ? [MX(lna[a]), MY(Math.log(tc - 1))] : null))
      .filter((p) => p && p[1] >= P.t && p[1] <= H - P.b);
    el("polyline", { fill: "none", stroke: "white", "stroke-width": 1.5,
      points: edge.map((p) => p.join(",")).join(" ") }, mapSvg, 1);
    el("circle", { cx: MX(la), cy: MY(lt), r: 5, fill: "none", stroke: "red", "stroke-width": 2 },
      mapSvg, 1);
    axes(mapSvg, [-1, 0, 1].map((e) => [MX(e * Math.log(10)), `1e${e}`]),
      [-2, -1, 0, 1, 2].map((e) => [MY(e * Math.log(10)), `1e${e}`]),
      `α (map of log10 E_${d}: blue 1e-3 to yellow 1e3; white: τ_c)`, "τ − 1");
  }
  const wanted = new URLSearchParams(location.hash.slice(1));
  if (wanted.has("alpha")) aIn.value = (1000 * (Math.log10(wanted.get("alpha")) + 1)) / 2;
  if (wanted.has("tau")) tIn.value = (1000 * (Math.log10(wanted.get("tau") - 1) + 2)) / 4;
  if (wanted.has("t")) dIn.value = wanted.get("t");
  if (wanted.has("sigma2")) {
    const k = data.levels.findIndex((l) => l.sigma2 === Number(wanted.get("sigma2")));
    if (k >= 0) sIn.value = String(k);
  }
  update();
}
