// airwaves: the receiver's health over the last hour, day or week
// (graphs1090's job), drawn as SVG from data/history/<range>.json
// ({"step","fields","points":[[t, v…]]}, see host/src/feed/series.rs).
// Plain ES2020, nothing loaded from the internet.
'use strict';

(() => {
  const CHARTS = [
    { id: 'messages', title: 'Messages per second', unit: 'msg/s', lines: [['messages_per_s', '#3aa0ff', 'messages']] },
    { id: 'aircraft', title: 'Aircraft', unit: '', lines: [['aircraft', '#3aa0ff', 'heard'], ['aircraft_with_position', '#5fd38d', 'with position']] },
    { id: 'range', title: 'Farthest position', unit: 'NM', lines: [['max_range_nm', '#f2b134', 'range']] },
    { id: 'signal', title: 'Signal and noise', unit: 'dBFS', lines: [['peak_signal_dbfs', '#ff6b6b', 'peak'], ['signal_dbfs', '#3aa0ff', 'mean signal'], ['noise_dbfs', '#8594a6', 'noise']] },
    { id: 'gain', title: 'Tuner gain', unit: 'dB', lines: [['gain_db', '#c792ea', 'gain']] },
    { id: 'cpu', title: 'CPU', unit: '% of a core', lines: [['cpu_percent', '#5fd38d', 'CPU']] },
  ];
  const RANGES = { hour: 10000, day: 60000, week: 300000 }; // reload interval, ms
  const W = 560, H = 200, PAD = { l: 48, r: 12, t: 12, b: 24 };

  const params = new URLSearchParams(location.search);
  const range = Object.prototype.hasOwnProperty.call(RANGES, params.get('range')) ? params.get('range') : 'hour';
  for (const a of document.querySelectorAll('.ranges a')) a.classList.toggle('active', a.dataset.range === range);
  const main = document.getElementById('graphs');
  const status = document.getElementById('status');
  const updated = document.getElementById('graphs-updated');
  const NS = 'http://www.w3.org/2000/svg'; // a namespace name, never fetched

  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (parent) parent.appendChild(e);
    return e;
  }

  /** Round step for about `n` ticks over [lo, hi]. */
  function niceStep(lo, hi, n) {
    const raw = (hi - lo) / n;
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const m of [1, 2, 2.5, 5, 10]) if (raw <= m * p) return m * p;
    return 10 * p;
  }

  function fmtTime(t) {
    const d = new Date(t * 1000);
    if (range === 'week') return d.toISOString().slice(5, 10) + ' ' + d.toISOString().slice(11, 13) + 'h';
    return d.toISOString().slice(11, 16) + 'Z';
  }

  function draw(chart, data) {
    const cols = chart.lines.map(([f]) => data.fields.indexOf(f));
    const pts = data.points;
    let section = document.getElementById('chart-' + chart.id);
    if (!section) {
      section = document.createElement('section');
      section.className = 'chart';
      section.id = 'chart-' + chart.id;
      const h = document.createElement('h2');
      h.textContent = chart.title + (chart.unit ? ` (${chart.unit})` : '');
      section.appendChild(h);
      const legend = document.createElement('div');
      legend.className = 'chart-legend';
      for (const [, colour, label] of chart.lines) {
        const s = document.createElement('span');
        const sw = document.createElement('i');
        sw.style.background = colour;
        s.appendChild(sw);
        s.appendChild(document.createTextNode(label));
        legend.appendChild(s);
      }
      section.appendChild(legend);
      main.appendChild(section);
    }
    const old = section.querySelector('svg');
    if (old) old.remove();
    const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': chart.title }, null);
    section.appendChild(svg);
    let lo = Infinity, hi = -Infinity, n = 0;
    for (const p of pts) for (const c of cols) {
      const v = c >= 0 ? p[c + 1] : null;
      if (typeof v === 'number' && Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); n++; }
    }
    section.dataset.points = String(n);
    if (n === 0 || pts.length === 0) {
      el('text', { x: W / 2, y: H / 2, class: 'chart-empty', 'text-anchor': 'middle' }, svg).textContent = 'no data yet';
      return;
    }
    if (chart.unit !== 'dBFS') lo = Math.min(lo, 0);
    if (hi === lo) hi = lo + 1;
    const step = niceStep(lo, hi, 4);
    lo = Math.floor(lo / step) * step;
    hi = Math.ceil(hi / step) * step;
    const t0 = pts[0][0], t1 = Math.max(pts[pts.length - 1][0], t0 + data.step);
    const x = (t) => PAD.l + (t - t0) / (t1 - t0) * (W - PAD.l - PAD.r);
    const y = (v) => H - PAD.b - (v - lo) / (hi - lo) * (H - PAD.t - PAD.b);
    for (let v = lo; v <= hi + step / 2; v += step) {
      el('line', { x1: PAD.l, x2: W - PAD.r, y1: y(v), y2: y(v), class: 'grid' }, svg);
      el('text', { x: PAD.l - 6, y: y(v) + 4, class: 'tick', 'text-anchor': 'end' }, svg).textContent = String(+v.toFixed(2));
    }
    // Time ticks: the first of these spacings that gives at most six.
    const span = [60, 300, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400]
      .find((s) => (t1 - t0) / s <= 6) || 86400;
    for (let t = Math.ceil(t0 / span) * span; t <= t1; t += span) {
      el('line', { x1: x(t), x2: x(t), y1: PAD.t, y2: H - PAD.b, class: 'grid' }, svg);
      el('text', { x: x(t), y: H - 6, class: 'tick', 'text-anchor': 'middle' }, svg).textContent = fmtTime(t);
    }
    chart.lines.forEach(([, colour], i) => {
      const c = cols[i];
      if (c < 0) return;
      let d = '', pen = false, prevT = null;
      for (const p of pts) {
        const v = p[c + 1];
        // A gap: unknown, or a missing bucket (the feeder was stopped).
        const gap = prevT !== null && p[0] - prevT > 1.5 * data.step;
        prevT = p[0];
        if (typeof v !== 'number' || !Number.isFinite(v)) { pen = false; continue; }
        d += `${pen && !gap ? 'L' : 'M'}${x(p[0]).toFixed(1)},${y(v).toFixed(1)}`;
        pen = true;
      }
      const path = el('path', { d, class: 'series', stroke: colour }, svg);
      if (pts.length === 1 || !d.includes('L')) path.classList.add('dots');
    });
  }

  async function load() {
    try {
      const resp = await fetch(`data/history/${range}.json`, { cache: 'no-store' });
      if (!resp.ok) throw new Error(`HTTP ${resp.status}`);
      const data = await resp.json();
      if (!data || !Array.isArray(data.points) || !Array.isArray(data.fields)) throw new Error('not a series');
      for (const c of CHARTS) draw(c, data);
      status.hidden = true;
      const last = data.points.length ? data.points[data.points.length - 1][0] : null;
      updated.textContent = last ? `last bucket ${fmtTime(last)}, ${data.step} s each` : 'waiting for the first bucket';
    } catch (e) {
      status.hidden = false;
      status.title = String(e && e.message ? e.message : e);
    } finally {
      setTimeout(load, RANGES[range]);
    }
  }
  load();
})();
