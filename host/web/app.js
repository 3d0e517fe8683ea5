// airwaves: the offline map and table of the aircraft the receiver hears.
//
// Plain ES2020, no framework, nothing loaded from the internet. Polls
// `data/aircraft.json` (readsb / dump1090-fa schema) every `refresh` ms and
// `data/receiver.json` until it has it; both URLs are relative, so the page
// works under any sub-path. The map is one SVG in Web Mercator: raster tiles
// (only when receiver.json names an XYZ template with {z}/{x}/{y} and
// optionally {s}), graticule, range rings, the range outline
// (`data/outline.json`, readsb's shape, reloaded every minute; the `range`
// button toggles it), the NEXRAD radar image, trails, receiver and aircraft.
// `data/fisb.json` (airwaves' own: what the UAT receiver heard of the FIS-B
// uplink; reloaded every 10 s, never in replay) gives the radar image (the
// `radar` button toggles it) and the weather panel's METARs and TAFs; when
// it is missing (404: an older receiver, no UAT) the map goes on without.
// Elements are created once per aircraft (keyed by ICAO hex) and updated in
// place; aircraft that leave the JSON are removed.
'use strict';

(() => {
  // ---- constants --------------------------------------------------------
  const DEFAULT_REFRESH_MS = 1000;
  const TRAIL_MAX_POINTS = 240; // per aircraft; older points are dropped
  const TRAIL_MAX_AGE_S = 600; // trail points older than this are dropped too
  const POSITION_STALE_S = 15; // marker dimmed when the position is older
  const RINGS_NM = [25, 50, 100, 150, 200];
  const NM_IN_M = 1852;
  const EARTH_RADIUS_M = 6371008.8;
  const TILE_PX = 256;
  const ZOOM_MIN = 3;
  const ZOOM_MAX = 16;
  const MAX_LAT = 85.05112878;
  const EMERGENCY_SQUAWKS = { '7500': 'hijack', '7600': 'radio failure', '7700': 'emergency' };
  const GRATICULE_STEPS_DEG = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 15, 30];
  // An airliner pointing north, centred on its origin, about 24 units across.
  const PLANE_PATH = 'M0,-12L1.6,-9.4L1.6,-3.1L11,2.4L11,4.4L1.6,2L1.4,7.9L4.5,10.4L4.5,12L0,11L-4.5,12L-4.5,10.4L-1.4,7.9L-1.6,2L-11,4.4L-11,2.4L-1.6,-3.1L-1.6,-9.4Z';
  // Surface vehicles and obstacles (emitter categories C1..C7).
  const VEHICLE_PATH = 'M-4,-6L4,-6L4,6L-4,6Z';
  // Altitude colour stops: [feet, hue]; orange near the ground to violet at FL400.
  const ALT_HUES = [[0, 20], [2000, 32], [4000, 43], [6000, 54], [8000, 72], [10000, 95],
    [20000, 160], [30000, 220], [40000, 290]];
  const GROUND_COLOUR = '#8d949e';
  const UNKNOWN_ALT_COLOUR = '#d8dde4';
  // FIS-B (data/fisb.json): reloaded this often; after a failure (404 from
  // a receiver without UAT) tried again after the longer wait.
  const FISB_EVERY_MS = 10000;
  const FISB_RETRY_MS = 60000;
  // A NEXRAD block: 32 bins west→east × 4 rows north→south, intensities
  // '0'..'7'. 0 is no echo and 1 below 20 dBZ ("no precipitation" on CONUS):
  // only 2 and up are drawn, in the colours of style.css's .nexrad-N.
  const NEXRAD_COLS = 32;
  const NEXRAD_ROWS = 4;
  const NEXRAD_MIN_LEVEL = 2;
  // The radar rects are in pixels at zoom 10 from the image's corner; a
  // transform places them, so that panning and zooming move one <g>.
  const NEXRAD_LOCAL_SCALE = TILE_PX * 1024;
  const NEXRAD_STALE_S = 1200; // the caption is marked when the image is older
  const WX_MAX_LOCATIONS = 250; // the weather panel lists the newest this many
  // The weather panel lists a location's observations, then its forecasts, then the rest.
  const WX_KIND_RANK = { METAR: 0, SPECI: 0, TAF: 1, 'TAF.AMD': 1 };

  // ---- DOM --------------------------------------------------------------
  const byId = (id) => document.getElementById(id);
  const svg = byId('map');
  const SVG_NS = svg.namespaceURI; // taken from the DOM: no namespace literal here
  const layers = {
    tiles: byId('layer-tiles'),
    basemap: byId('layer-basemap'),
    graticule: byId('layer-graticule'),
    nexrad: byId('layer-nexrad'),
    rings: byId('layer-rings'),
    outline: byId('layer-outline'),
    trails: byId('layer-trails'),
    receiver: byId('layer-receiver'),
    aircraft: byId('layer-aircraft'),
  };
  const table = byId('aircraft-table');
  const tbody = table.tBodies[0];
  const ui = {
    total: byId('count-total'),
    withPos: byId('count-pos'),
    rate: byId('msg-rate'),
    updated: byId('last-update'),
    version: byId('rx-version'),
    status: byId('status'),
    details: byId('details'),
    follow: byId('follow'),
    labels: byId('labels'),
    outline: byId('outline'),
    radar: byId('radar'),
    radarAge: byId('radar-age'),
    radarKey: byId('radar-key'),
    weather: byId('weather'),
    weatherToggle: byId('weather-toggle'),
    weatherList: byId('weather-list'),
    empty: byId('table-empty'),
    attribution: byId('attribution'),
  };

  function svgEl(name, attrs, parent) {
    const el = document.createElementNS(SVG_NS, name);
    for (const k in attrs) el.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(el);
    return el;
  }

  // ---- state ------------------------------------------------------------
  /** @type {{lat:number, lon:number}|null} */
  let receiver = null;
  let receiverLoaded = false;
  let tileTemplate = null;
  let refreshMs = DEFAULT_REFRESH_MS;
  /** Map view: centre in normalised Web Mercator (0..1) and fractional zoom. */
  const view = { cx: 0.5, cy: 0.5, z: 7, w: 0, h: 0, placed: false };
  /** hex -> aircraft record {hex, d, trail, marker, row, cells, trailGroup} */
  const planes = new Map();
  let selectedHex = null;
  let follow = true;
  let showLabels = true;
  let sortKey = 'dist';
  let sortAsc = true;
  let previous = null; // {now, messages} of the previous aircraft.json
  let lastNow = null;
  // `?icao=4ca1fa` in the page URL selects (and follows) that aircraft once it appears.
  let wantedHex = (new URLSearchParams(location.search).get('icao') || '').toLowerCase() || null;

  // ---- geometry ---------------------------------------------------------
  const rad = (d) => d * Math.PI / 180;
  const deg = (r) => r * 180 / Math.PI;

  function mercX(lon) { return (lon + 180) / 360; }
  function mercY(lat) {
    const l = rad(Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)));
    return (1 - Math.log(Math.tan(l) + 1 / Math.cos(l)) / Math.PI) / 2;
  }
  function unmercY(y) { return deg(Math.atan(Math.sinh(Math.PI * (1 - 2 * y)))); }
  function scale() { return TILE_PX * Math.pow(2, view.z); }
  function toScreen(x, y) {
    const s = scale();
    return [(x - view.cx) * s + view.w / 2, (y - view.cy) * s + view.h / 2];
  }
  function fromScreen(px, py) {
    const s = scale();
    return [view.cx + (px - view.w / 2) / s, view.cy + (py - view.h / 2) / s];
  }
  /** Great-circle distance in NM. */
  function distanceNm(lat1, lon1, lat2, lon2) {
    const dLat = rad(lat2 - lat1);
    const dLon = rad(lon2 - lon1);
    const a = Math.sin(dLat / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(dLon / 2) ** 2;
    return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a))) / NM_IN_M;
  }
  /** The point `distM` metres from (lat, lon) on bearing `brgDeg`. */
  function destination(lat, lon, brgDeg, distM) {
    const d = distM / EARTH_RADIUS_M;
    const p1 = rad(lat);
    const b = rad(brgDeg);
    const p2 = Math.asin(Math.sin(p1) * Math.cos(d) + Math.cos(p1) * Math.sin(d) * Math.cos(b));
    const l2 = rad(lon) + Math.atan2(Math.sin(b) * Math.sin(d) * Math.cos(p1), Math.cos(d) - Math.sin(p1) * Math.sin(p2));
    return [deg(p2), ((deg(l2) + 540) % 360) - 180];
  }
  /** Zoom at which `nm` nautical miles at latitude `lat` span `px` pixels. */
  function zoomForRange(lat, nm, px) {
    const metresPerWorld = 2 * Math.PI * EARTH_RADIUS_M * Math.cos(rad(lat));
    const s = px * metresPerWorld / (nm * NM_IN_M);
    return Math.log2(s / TILE_PX);
  }
  const clampZoom = (z) => Math.max(ZOOM_MIN, Math.min(ZOOM_MAX, z));

  // ---- formatting -------------------------------------------------------
  const isNum = (v) => typeof v === 'number' && Number.isFinite(v);
  function altitudeOf(d) {
    if (d.alt_baro === 'ground') return 'ground';
    if (isNum(d.alt_baro)) return d.alt_baro;
    if (isNum(d.alt_geom)) return d.alt_geom;
    return null;
  }
  function vrateOf(d) {
    if (isNum(d.baro_rate)) return d.baro_rate;
    if (isNum(d.geom_rate)) return d.geom_rate;
    return null;
  }
  function hasPos(d) { return isNum(d.lat) && isNum(d.lon); }
  function distOf(d) {
    if (isNum(d.r_dst)) return d.r_dst;
    if (receiver && hasPos(d)) return distanceNm(receiver.lat, receiver.lon, d.lat, d.lon);
    return null;
  }
  function callsign(d) { return (typeof d.flight === 'string' ? d.flight.trim() : ''); }
  function fmtAlt(a) {
    if (a === 'ground') return 'ground';
    return isNum(a) ? Math.round(a).toLocaleString('en-US') : '';
  }
  function fmtAltShort(a) {
    if (a === 'ground') return 'GND';
    if (!isNum(a)) return '';
    return a >= 18000 ? 'FL' + String(Math.round(a / 100)).padStart(3, '0') : String(Math.round(a / 100) * 100);
  }
  const fmtInt = (v) => (isNum(v) ? String(Math.round(v)) : '');
  const fmtFixed = (v, n) => (isNum(v) ? v.toFixed(n) : '');
  const fmtSigned = (v) => (isNum(v) ? (v > 0 ? '+' : '') + Math.round(v) : '');
  function fmtUtc(epochS) {
    const t = new Date(epochS * 1000);
    return t.toISOString().slice(11, 19) + 'Z';
  }
  function fmtLatLon(lat, lon) {
    return `${Math.abs(lat).toFixed(4)}°${lat >= 0 ? 'N' : 'S'} ${Math.abs(lon).toFixed(4)}°${lon >= 0 ? 'E' : 'W'}`;
  }

  function altColour(a) {
    if (a === 'ground') return GROUND_COLOUR;
    if (!isNum(a)) return UNKNOWN_ALT_COLOUR;
    const ft = Math.max(0, a);
    let hue = ALT_HUES[ALT_HUES.length - 1][1];
    for (let i = 1; i < ALT_HUES.length; i++) {
      const [f1, h1] = ALT_HUES[i];
      if (ft <= f1) {
        const [f0, h0] = ALT_HUES[i - 1];
        hue = h0 + (h1 - h0) * (ft - f0) / (f1 - f0);
        break;
      }
    }
    return `hsl(${hue.toFixed(0)},85%,58%)`;
  }
  /** Altitude band for trail colouring: 500 ft steps, ground and unknown apart. */
  function altBand(a) {
    if (a === 'ground') return -1;
    if (!isNum(a)) return -2;
    return Math.floor(Math.max(0, a) / 500);
  }

  // ---- offline basemap (basemap.bin: Natural Earth 1:50m, see scripts/basemap)
  /** {arcs: [{kind, xs, ys, bbox}], land: [[ring arc refs]]} in Mercator units, once loaded. */
  let basemap = null;
  function decodeBasemap(buf) {
    const v = new DataView(buf);
    const magic = String.fromCharCode(...new Uint8Array(buf, 0, 8));
    if (magic !== 'AWBASE01') throw new Error('not a basemap');
    let o = 8;
    const sx = v.getFloat64(o, true), sy = v.getFloat64(o + 8, true);
    const tx = v.getFloat64(o + 16, true), ty = v.getFloat64(o + 24, true);
    o += 32;
    const varint = () => {
      let n = 0, mul = 1, b;
      do { b = v.getUint8(o++); n += (b & 0x7f) * mul; mul *= 128; } while (b & 0x80);
      return n;
    };
    const zz = () => { const n = varint(); return n % 2 ? -(n + 1) / 2 : n / 2; };
    const nArcs = v.getUint32(o, true); o += 4;
    const arcs = [];
    for (let i = 0; i < nArcs; i++) {
      const kind = v.getUint8(o++);
      const n = varint();
      const xs = new Float64Array(n), ys = new Float64Array(n);
      let qx = 0, qy = 0, x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (let j = 0; j < n; j++) {
        qx += zz(); qy += zz();
        xs[j] = mercX(qx * sx + tx);
        ys[j] = mercY(qy * sy + ty);
        x0 = Math.min(x0, xs[j]); x1 = Math.max(x1, xs[j]); y0 = Math.min(y0, ys[j]); y1 = Math.max(y1, ys[j]);
      }
      arcs.push({ kind, xs, ys, bbox: [x0, y0, x1, y1] });
    }
    const nLand = v.getUint32(o, true); o += 4;
    const land = [];
    for (let i = 0; i < nLand; i++) {
      const rings = [];
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (let r = varint(); r > 0; r--) {
        const refs = [];
        for (let k = varint(); k > 0; k--) {
          const a = zz();
          refs.push(a);
          const b = arcs[a >= 0 ? a : -a - 1].bbox;
          x0 = Math.min(x0, b[0]); y0 = Math.min(y0, b[1]); x1 = Math.max(x1, b[2]); y1 = Math.max(y1, b[3]);
        }
        rings.push(refs);
      }
      land.push({ rings, bbox: [x0, y0, x1, y1] });
    }
    return { arcs, land };
  }

  async function loadBasemap() {
    try {
      const resp = await fetch('basemap.bin');
      if (!resp.ok) return;
      basemap = decodeBasemap(await resp.arrayBuffer());
      viewKey = ''; // draw it with the next render
      queueRender();
    } catch (e) {
      basemap = null; // the map goes on without it
    }
  }

  /** SVG path data of arc `a` (reversed for a negative reference), from `start` ('M' or 'L'); points closer than 0.75 px to the last one are skipped. */
  function arcPath(a, start) {
    const arc = basemap.arcs[a >= 0 ? a : -a - 1];
    const n = arc.xs.length;
    let d = '', lx = NaN, ly = NaN;
    for (let j = 0; j < n; j++) {
      const k = a >= 0 ? j : n - 1 - j;
      const [px, py] = toScreen(arc.xs[k], arc.ys[k]);
      if (j > 0 && j < n - 1 && Math.abs(px - lx) < 0.75 && Math.abs(py - ly) < 0.75) continue;
      d += `${d === '' ? start : 'L'}${px.toFixed(1)},${py.toFixed(1)}`;
      lx = px; ly = py;
    }
    return d;
  }

  function renderBasemap() {
    const g = layers.basemap;
    g.replaceChildren();
    if (!basemap || tileTemplate) return;
    const [vx0, vy0] = fromScreen(0, 0);
    const [vx1, vy1] = fromScreen(view.w, view.h);
    const visible = (b) => b[2] >= vx0 && b[0] <= vx1 && b[3] >= vy0 && b[1] <= vy1;
    let land = '';
    for (const poly of basemap.land) {
      if (!visible(poly.bbox)) continue;
      for (const ring of poly.rings) {
        ring.forEach((a, i) => { land += arcPath(a, i === 0 ? 'M' : 'L'); });
        land += 'Z';
      }
    }
    if (land) svgEl('path', { d: land, class: 'land', 'fill-rule': 'evenodd' }, g);
    const lines = ['', ''];
    basemap.arcs.forEach((arc, i) => {
      if (visible(arc.bbox)) lines[arc.kind] += arcPath(i, 'M');
    });
    if (lines[0]) svgEl('path', { d: lines[0], class: 'coastline', id: 'coastline' }, g);
    if (lines[1]) svgEl('path', { d: lines[1], class: 'border', id: 'borders' }, g);
    ui.attribution.textContent = 'basemap: Natural Earth';
  }

  // ---- static layers: tiles, graticule, rings, receiver -----------------
  const tileImages = new Map();
  function renderTiles() {
    if (!tileTemplate) {
      for (const img of tileImages.values()) img.remove();
      tileImages.clear();
      return;
    }
    const tz = Math.max(0, Math.min(19, Math.round(view.z)));
    const n = 2 ** tz;
    const size = TILE_PX * Math.pow(2, view.z - tz);
    const [x0, y0] = fromScreen(0, 0);
    const [x1, y1] = fromScreen(view.w, view.h);
    const wanted = new Set();
    for (let ty = Math.max(0, Math.floor(y0 * n)); ty <= Math.min(n - 1, Math.floor(y1 * n)); ty++) {
      for (let tx = Math.floor(x0 * n); tx <= Math.floor(x1 * n); tx++) {
        const wx = ((tx % n) + n) % n;
        const key = `${tz}/${tx}/${ty}`;
        wanted.add(key);
        let img = tileImages.get(key);
        if (!img) {
          const sub = 'abc'[(wx + ty) % 3];
          const href = tileTemplate.replace('{z}', tz).replace('{x}', wx).replace('{y}', ty).replace('{s}', sub);
          img = svgEl('image', { href, class: 'tile', preserveAspectRatio: 'none' }, layers.tiles);
          tileImages.set(key, img);
        }
        const [sx, sy] = toScreen(tx / n, ty / n);
        img.setAttribute('x', sx.toFixed(1));
        img.setAttribute('y', sy.toFixed(1));
        img.setAttribute('width', (size + 0.5).toFixed(1));
        img.setAttribute('height', (size + 0.5).toFixed(1));
      }
    }
    for (const [key, img] of tileImages) {
      if (!wanted.has(key)) { img.remove(); tileImages.delete(key); }
    }
  }

  function renderGraticule() {
    const g = layers.graticule;
    g.replaceChildren();
    const pxPerDeg = scale() / 360;
    const step = GRATICULE_STEPS_DEG.find((s) => s * pxPerDeg >= 110) || 30;
    const [x0, y0] = fromScreen(0, 0);
    const [x1, y1] = fromScreen(view.w, view.h);
    const lon0 = x0 * 360 - 180;
    const lon1 = x1 * 360 - 180;
    const lat0 = unmercY(y1);
    const lat1 = unmercY(y0);
    const decimals = step < 0.1 ? 2 : step < 1 ? 1 : 0;
    let d = '';
    const labels = [];
    for (let lon = Math.ceil(lon0 / step) * step; lon <= lon1; lon += step) {
      const [sx] = toScreen(mercX(lon), 0);
      d += `M${sx.toFixed(1)},0V${view.h}`;
      const shown = ((lon + 540) % 360) - 180;
      labels.push([sx + 3, 12, `${Math.abs(shown).toFixed(decimals)}°${shown >= 0 ? 'E' : 'W'}`]);
    }
    for (let lat = Math.ceil(lat0 / step) * step; lat <= lat1; lat += step) {
      const [, sy] = toScreen(0, mercY(lat));
      d += `M0,${sy.toFixed(1)}H${view.w}`;
      labels.push([4, sy - 4, `${Math.abs(lat).toFixed(decimals)}°${lat >= 0 ? 'N' : 'S'}`]);
    }
    svgEl('path', { d, class: 'graticule' }, g);
    for (const [x, y, t] of labels) {
      svgEl('text', { x: x.toFixed(1), y: y.toFixed(1), class: 'graticule-label' }, g).textContent = t;
    }
  }

  function renderRings() {
    const g = layers.rings;
    g.replaceChildren();
    if (!receiver) return;
    for (const nm of RINGS_NM) {
      let d = '';
      for (let b = 0; b <= 360; b += 4) {
        const [lat, lon] = destination(receiver.lat, receiver.lon, b, nm * NM_IN_M);
        const [sx, sy] = toScreen(mercX(lon), mercY(lat));
        d += `${b === 0 ? 'M' : 'L'}${sx.toFixed(1)},${sy.toFixed(1)}`;
      }
      svgEl('path', { d: d + 'Z', class: 'range-ring', 'data-nm': nm }, g);
      const [llat, llon] = destination(receiver.lat, receiver.lon, 0, nm * NM_IN_M);
      const [lx, ly] = toScreen(mercX(llon), mercY(llat));
      svgEl('text', { x: lx.toFixed(1), y: (ly - 4).toFixed(1), class: 'range-label' }, g).textContent = `${nm} NM`;
    }
  }

  /** The range outline (outline.json, readsb's shape): [[lat, lon, alt], …] in bearing order. */
  let outlinePoints = [];
  let showOutline = true;
  function renderOutline() {
    const g = layers.outline;
    g.replaceChildren();
    if (!showOutline || outlinePoints.length < 3) return;
    let d = '';
    for (const [lat, lon] of outlinePoints) {
      const [sx, sy] = toScreen(mercX(lon), mercY(lat));
      d += `${d === '' ? 'M' : 'L'}${sx.toFixed(1)},${sy.toFixed(1)}`;
    }
    const path = svgEl('path', { d: d + 'Z', id: 'range-outline', class: 'range-outline', 'data-points': outlinePoints.length }, g);
    svgEl('title', {}, path).textContent = 'range outline, last 24 h';
  }

  function renderReceiver() {
    const g = layers.receiver;
    if (!receiver) { g.replaceChildren(); return; }
    let mark = byId('receiver');
    if (!mark) {
      mark = svgEl('g', { id: 'receiver', class: 'receiver' }, g);
      svgEl('circle', { r: 9, class: 'receiver-halo' }, mark);
      svgEl('path', { d: 'M0,-6L6,0L0,6L-6,0Z', class: 'receiver-dot' }, mark);
      const title = svgEl('title', {}, mark);
      title.textContent = `receiver ${fmtLatLon(receiver.lat, receiver.lon)}`;
    }
    const [sx, sy] = toScreen(mercX(receiver.lon), mercY(receiver.lat));
    mark.setAttribute('transform', `translate(${sx.toFixed(1)} ${sy.toFixed(1)})`);
  }

  // ---- FIS-B: the NEXRAD radar layer and the weather panel ----------------
  /**
   * data/fisb.json as last loaded: `nexrad` the image drawn (regional when
   * there is one, else CONUS) or null, `reports` the text reports in panel
   * order; `seenAt` values are Unix seconds on this browser's clock.
   */
  let fisb = null;
  let showRadar = true;

  const str = (v) => (typeof v === 'string' ? v : '');

  /** A block as fisb.json gives it, or null when it is not one. */
  function nexradBlock(b) {
    if (!b || typeof b !== 'object') return null;
    const { n, w, h, wd, bins } = b;
    if (!isNum(n) || !isNum(w) || !isNum(h) || !isNum(wd)) return null;
    if (h <= 0 || h > 10 || wd <= 0 || wd > 30 || n > 90 || n - h < -90 || Math.abs(w) > 360) return null;
    if (typeof bins !== 'string' || !/^[0-7]{128}$/.test(bins)) return null;
    return { n, w, h, wd, bins };
  }

  /** The image to draw from fisb.json's `nexrad`: every regional image, or else every CONUS one (with a valid block). */
  function parseNexrad(list, nowS) {
    if (!Array.isArray(list)) return null;
    const images = list.filter((im) => im && typeof im === 'object' && Array.isArray(im.blocks)).map((im) => ({
      product: str(im.product).toLowerCase(),
      age: isNum(im.age) && im.age >= 0 ? im.age : 0,
      time: /^\d{2}:\d{2}$/.test(str(im.time)) ? im.time : '',
      blocks: im.blocks.map(nexradBlock).filter((b) => b !== null),
    })).filter((im) => im.blocks.length > 0);
    const product = ['regional', 'conus'].find((p) => images.some((im) => im.product === p));
    if (!product) return null;
    const blocks = [];
    let newest = null;
    for (const im of images) {
      if (im.product !== product) continue;
      if (!newest || im.age < newest.age) newest = im;
      blocks.push(...im.blocks);
    }
    const key = `${product}|${newest.time}|` + blocks.map((b) => `${b.n},${b.w},${b.h},${b.wd},${b.bins}`).join(';');
    return { product, time: newest.time, seenAt: nowS - newest.age, blocks, key };
  }

  /** fisb.json's `text`: grouped by location, the newest group first; in a group METAR/SPECI, then TAF, then the rest, newest first. */
  function parseReports(list, nowS) {
    if (!Array.isArray(list)) return [];
    const groups = new Map();
    for (const r of list) {
      if (!r || typeof r !== 'object' || str(r.text).trim() === '') continue;
      const report = {
        kind: str(r.kind).trim() || 'report',
        location: str(r.location).trim() || '—',
        time: str(r.time),
        text: r.text.trim(),
        seenAt: nowS - (isNum(r.age) && r.age >= 0 ? r.age : 0),
      };
      let g = groups.get(report.location);
      if (!g) { g = { location: report.location, newest: -Infinity, reports: [] }; groups.set(report.location, g); }
      g.reports.push(report);
      g.newest = Math.max(g.newest, report.seenAt);
    }
    const rank = (k) => WX_KIND_RANK[k.toUpperCase()] ?? 2;
    const sorted = [...groups.values()].sort((a, b) => b.newest - a.newest || a.location.localeCompare(b.location));
    for (const g of sorted) g.reports.sort((a, b) => rank(a.kind) - rank(b.kind) || b.seenAt - a.seenAt || a.kind.localeCompare(b.kind));
    return sorted;
  }

  /** "12 s ago", "4 min ago", "2 h 5 min ago". */
  function fmtAgo(s) {
    s = Math.max(0, s);
    if (s < 60) return `${Math.floor(s)} s ago`;
    if (s < 3600) return `${Math.floor(s / 60)} min ago`;
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    return h >= 24 ? `${Math.floor(h / 24)} d ago` : `${h} h${m ? ` ${m} min` : ''} ago`;
  }

  /**
   * The radar layer: one <rect> per run of equal intensity (2 and up) in a
   * bin row, in local units inside one <g>; rebuilt only when the image
   * changes, and moved by its transform when the view does.
   */
  let nexradKey = null; // key of the image drawn, or null
  let nexradImage = null; // its <g>
  let nexradOrigin = [0, 0]; // Mercator position of the local origin
  let nexradVersion = -1; // viewVersion the transform is for
  function renderNexrad() {
    const g = layers.nexrad;
    const img = showRadar && fisb ? fisb.nexrad : null;
    const key = img ? img.key : null;
    if (key !== nexradKey) {
      nexradKey = key;
      nexradVersion = -1;
      nexradImage = null;
      g.replaceChildren();
      let rects = 0;
      if (img) {
        const L = NEXRAD_LOCAL_SCALE;
        const q = (v) => Math.round(v * 1000) / 1000; // shared edges round alike: no seams
        const ox = mercX(img.blocks[0].w);
        const oy = mercY(img.blocks[0].n);
        nexradOrigin = [ox, oy];
        const image = svgEl('g', { class: 'nexrad-image' });
        for (const b of img.blocks) {
          let x0 = mercX(b.w);
          x0 += Math.round(ox - x0); // the side of the antimeridian nearest the first block
          const dx = b.wd / 360 / NEXRAD_COLS;
          for (let r = 0; r < NEXRAD_ROWS; r++) {
            const top = q((mercY(b.n - r * b.h / NEXRAD_ROWS) - oy) * L);
            const bottom = q((mercY(b.n - (r + 1) * b.h / NEXRAD_ROWS) - oy) * L);
            for (let c = 0; c < NEXRAD_COLS;) {
              const v = b.bins.charCodeAt(r * NEXRAD_COLS + c) - 48;
              let e = c + 1;
              while (e < NEXRAD_COLS && b.bins.charCodeAt(r * NEXRAD_COLS + e) - 48 === v) e++;
              if (v >= NEXRAD_MIN_LEVEL) {
                const left = q((x0 + c * dx - ox) * L);
                const right = q((x0 + e * dx - ox) * L);
                svgEl('rect', {
                  x: left, y: top, width: q(right - left), height: q(bottom - top), class: `nexrad-${v}`,
                }, image);
                rects++;
              }
              c = e;
            }
          }
        }
        g.appendChild(image);
        nexradImage = image;
      }
      g.setAttribute('data-blocks', String(img ? img.blocks.length : 0));
      g.setAttribute('data-rects', String(rects));
      g.setAttribute('data-product', img ? img.product : '');
      g.setAttribute('data-time', img ? img.time : '');
    }
    if (nexradImage && nexradVersion !== viewVersion) {
      nexradVersion = viewVersion;
      const [tx, ty] = toScreen(nexradOrigin[0], nexradOrigin[1]);
      const k = scale() / NEXRAD_LOCAL_SCALE;
      nexradImage.setAttribute('transform', `translate(${tx.toFixed(2)} ${ty.toFixed(2)}) scale(${k.toPrecision(6)})`);
    }
  }

  /** The caption under the map ("NEXRAD regional 17:55Z · 12 s ago") and the legend's radar key. */
  function renderRadarCaption() {
    const img = showRadar && fisb ? fisb.nexrad : null;
    ui.radarAge.hidden = !img;
    ui.radarKey.hidden = !img;
    if (!img) return;
    const age = Date.now() / 1000 - img.seenAt;
    const text = `NEXRAD ${img.product}${img.time ? ` ${img.time}Z` : ''} · ${fmtAgo(age)}`;
    if (ui.radarAge.textContent !== text) ui.radarAge.textContent = text;
    ui.radarAge.classList.toggle('stale', age > NEXRAD_STALE_S);
  }

  /** The weather panel: shown while fisb.json has text reports; rebuilt only when they change. */
  let weatherKey = null;
  let weatherAges = []; // [element, report] of the ages shown
  function renderWeather() {
    const groups = fisb ? fisb.reports : [];
    const count = groups.reduce((n, g) => n + g.reports.length, 0);
    ui.weather.hidden = replay !== null || count === 0;
    ui.weather.dataset.reports = String(count);
    ui.weather.dataset.locations = String(groups.length);
    const title = `Weather (${count})`;
    if (ui.weatherToggle.textContent !== title) ui.weatherToggle.textContent = title;
    const shown = groups.slice(0, WX_MAX_LOCATIONS);
    const stations = fisb ? fisb.stations : 0;
    const key = `${stations}|${groups.length}\n` +
      shown.map((g) => g.reports.map((r) => `${r.kind}|${r.location}|${r.time}|${r.text}`).join('\n')).join('\n\n');
    const reports = shown.flatMap((g) => g.reports);
    if (key !== weatherKey) {
      weatherKey = key;
      const more = groups.length - shown.length;
      ui.weatherList.innerHTML = shown.map((g) =>
        `<section class="wx-station" data-location="${escapeHtml(g.location)}">` +
        `<h3 class="wx-location">${escapeHtml(g.location)}</h3>` +
        g.reports.map((r) =>
          `<div class="wx-report" data-kind="${escapeHtml(r.kind)}" data-location="${escapeHtml(r.location)}">` +
          `<div class="wx-meta"><b>${escapeHtml(r.kind)}</b><span class="wx-age"></span></div>` +
          `<pre class="wx-text">${escapeHtml(r.text)}</pre></div>`).join('') +
        '</section>').join('') +
        (more > 0 ? `<p class="wx-more">${more} more locations not listed</p>` : '') +
        (stations > 0 ? `<p class="wx-more">from ${stations} FIS-B ground station${stations === 1 ? '' : 's'}</p>` : '');
      weatherAges = [...ui.weatherList.querySelectorAll('.wx-age')].map((el, i) => [el, reports[i]]);
    } else {
      // The same reports: only their ages (from the new document) change.
      weatherAges.forEach((pair, i) => { pair[1] = reports[i]; });
    }
    renderWeatherAges();
  }
  function renderWeatherAges() {
    const now = Date.now() / 1000;
    for (const [el, r] of weatherAges) {
      const text = fmtAgo(now - r.seenAt);
      if (el.textContent !== text) el.textContent = text;
    }
  }
  ui.weatherToggle.addEventListener('click', () => {
    const open = ui.weatherToggle.getAttribute('aria-expanded') !== 'true';
    ui.weatherToggle.setAttribute('aria-expanded', String(open));
    ui.weatherList.hidden = !open;
    ui.weather.classList.toggle('open', open);
  });
  ui.radar.addEventListener('click', () => {
    showRadar = !showRadar;
    ui.radar.setAttribute('aria-pressed', String(showRadar));
    renderNexrad();
    renderRadarCaption();
  });

  // ---- aircraft markers and trails --------------------------------------
  function markerScale(category) {
    switch (category) {
      case 'A1': return 0.72;
      case 'A2': return 0.85;
      case 'A4': case 'A5': return 1.12;
      case 'A6': return 0.95;
      case 'A7': case 'B1': case 'B4': case 'B6': return 0.72;
      default: return 1;
    }
  }

  /** Whether the position came from multilateration (readsb's `mlat` field list). */
  function mlatPosition(d) {
    return Array.isArray(d.mlat) && d.mlat.includes('lat');
  }

  /** Whether the aircraft was heard on UAT, 978 MHz (airwaves' `links` list). */
  function heardOnUat(d) {
    return Array.isArray(d.links) && d.links.includes('uat');
  }

  /** The source shown in the details: readsb's `type`, and the links when heard on UAT. */
  function sourceText(d) {
    const type = typeof d.type === 'string' ? d.type : '';
    if (!heardOnUat(d)) return type;
    const links = d.links.map((l) => (l === 'uat' ? 'UAT 978' : '1090 ES')).join(' + ');
    return `${type} · ${links}`;
  }

  function createMarker(p) {
    const g = svgEl('g', { class: 'aircraft', 'data-hex': p.hex }, layers.aircraft);
    p.ring = svgEl('circle', { r: 17, class: 'select-ring' }, g);
    p.icon = svgEl('path', { d: PLANE_PATH, class: 'icon' }, g);
    p.label = svgEl('text', { x: 14, y: -2, class: 'label' }, g);
    p.label2 = svgEl('text', { x: 14, y: 10, class: 'label sub' }, g);
    p.title = svgEl('title', {}, g);
    g.addEventListener('click', (ev) => { ev.stopPropagation(); select(p.hex, true); });
    p.marker = g;
    p.mstate = {};
  }

  function setAttrIfChanged(el, cache, key, name, value) {
    if (cache[key] !== value) { cache[key] = value; el.setAttribute(name, value); }
  }
  function setTextIfChanged(el, cache, key, value) {
    if (cache[key] !== value) { cache[key] = value; el.textContent = value; }
  }

  function updateMarker(p) {
    const d = p.d;
    if (!hasPos(d)) {
      if (p.marker) { p.marker.remove(); p.marker = null; }
      return;
    }
    if (!p.marker) createMarker(p);
    const c = p.mstate;
    const alt = altitudeOf(d);
    const colour = altColour(alt);
    const [sx, sy] = toScreen(mercX(d.lon), mercY(d.lat));
    p.sx = sx;
    p.sy = sy;
    setAttrIfChanged(p.marker, c, 'pos', 'transform', `translate(${sx.toFixed(1)} ${sy.toFixed(1)})`);
    const cat = typeof d.category === 'string' ? d.category : '';
    const vehicle = /^C[1-7]$/.test(cat);
    setAttrIfChanged(p.icon, c, 'shape', 'd', vehicle ? VEHICLE_PATH : PLANE_PATH);
    const rot = isNum(d.track) ? d.track : (isNum(d.true_heading) ? d.true_heading : 0);
    setAttrIfChanged(p.icon, c, 'rot', 'transform', `rotate(${rot.toFixed(0)}) scale(${markerScale(cat)})`);
    setAttrIfChanged(p.icon, c, 'fill', 'fill', colour);
    const sq = typeof d.squawk === 'string' ? d.squawk : '';
    const cls = ['aircraft'];
    if (alt === 'ground') cls.push('ground');
    if (EMERGENCY_SQUAWKS[sq]) cls.push('emergency');
    if (p.hex === selectedHex) cls.push('selected');
    if (isNum(d.seen_pos) && d.seen_pos > POSITION_STALE_S) cls.push('stale');
    if (mlatPosition(d)) cls.push('mlat');
    if (heardOnUat(d)) cls.push('uat');
    if (c.hidden) cls.push('label-hidden');
    setAttrIfChanged(p.marker, c, 'class', 'class', cls.join(' '));
    setTextIfChanged(p.label, c, 'l1', callsign(d) || p.hex.toUpperCase());
    setTextIfChanged(p.label2, c, 'l2', fmtAltShort(alt) + (isNum(d.gs) && alt !== 'ground' ? ` ${Math.round(d.gs)}kt` : ''));
    setTextIfChanged(p.title, c, 'title', `${callsign(d) || '—'} (${p.hex.toUpperCase()}) ${fmtAlt(alt)}${isNum(alt) ? ' ft' : ''}`);
  }

  /** Append the position to the trail: [x, y, altitude, time of the position (s, the data's clock)]. */
  function updateTrailPoints(p, now) {
    const d = p.d;
    if (!hasPos(d)) return;
    const last = p.trail[p.trail.length - 1];
    const x = mercX(d.lon);
    const y = mercY(d.lat);
    if (last && last[0] === x && last[1] === y) return;
    p.trail.push([x, y, altitudeOf(d), now - (isNum(d.seen_pos) ? d.seen_pos : 0)]);
    if (p.trail.length > TRAIL_MAX_POINTS) p.trail.splice(0, p.trail.length - TRAIL_MAX_POINTS);
    p.trailDirty = true;
  }

  /** Drop trail points older than TRAIL_MAX_AGE_S at `now`. */
  function pruneTrail(p, now) {
    let old = 0;
    while (old < p.trail.length && p.trail[old][3] < now - TRAIL_MAX_AGE_S) old++;
    if (old > 0) {
      p.trail.splice(0, old);
      p.trailDirty = true;
    }
  }

  /**
   * Trails: one polyline per run of points in the same altitude band, older
   * runs fainter. Trail points are kept in Mercator units; redrawn only when
   * the trail or the view changed.
   */
  function renderTrail(p) {
    if (p.trail.length < 2) {
      if (p.trailGroup) { p.trailGroup.remove(); p.trailGroup = null; }
      return;
    }
    if (!p.trailGroup) p.trailGroup = svgEl('g', { class: 'trail', 'data-hex': p.hex }, layers.trails);
    p.trailGroup.classList.toggle('selected', p.hex === selectedHex);
    if (!p.trailDirty && p.trailVersion === viewVersion) return;
    p.trailDirty = false;
    p.trailVersion = viewVersion;
    const runs = [];
    let run = null;
    for (const [x, y, alt] of p.trail) {
      const [sx, sy] = toScreen(x, y);
      const pt = `${sx.toFixed(1)},${sy.toFixed(1)}`;
      const band = altBand(alt);
      if (!run || run.band !== band) {
        if (run) run.points.push(pt); // join the runs
        run = { band, alt, points: [] };
        runs.push(run);
      }
      run.points.push(pt);
    }
    const lines = p.trailGroup.children;
    for (let i = 0; i < runs.length; i++) {
      const line = lines[i] || svgEl('polyline', {}, p.trailGroup);
      line.setAttribute('points', runs[i].points.join(' '));
      line.setAttribute('stroke', altColour(runs[i].alt));
      line.setAttribute('stroke-opacity', (0.3 + 0.65 * (i + 1) / runs.length).toFixed(2));
    }
    while (lines.length > runs.length) lines[lines.length - 1].remove();
  }

  // Label places around the icon: [x, y of the first line, anchor, box left/top/right/bottom
  // relative to the icon as functions of the label width].
  const LABEL_PLACES = [
    { x: 14, y: -2, anchor: 'start', box: (w) => [12, -14, 12 + w, 13] },
    { x: -14, y: -2, anchor: 'end', box: (w) => [-12 - w, -14, -12, 13] },
    { x: 0, y: 24, anchor: 'middle', box: (w) => [-w / 2, 12, w / 2, 38] },
    { x: 0, y: -26, anchor: 'middle', box: (w) => [-w / 2, -38, w / 2, -12] },
  ];
  const overlaps = (a, b) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];

  /**
   * Places each label beside its icon where it covers no other label or
   * icon (keeping last second's place when it is still free); labels that
   * fit nowhere are hidden, except the selected and emergency ones.
   */
  function placeLabels() {
    if (!showLabels) return;
    const list = [];
    for (const p of planes.values()) if (p.marker) list.push(p);
    const rank = (p) => (p.hex === selectedHex ? 0 : p.marker.classList.contains('emergency') ? 1 : 2);
    list.sort((a, b) => rank(a) - rank(b) || a.hex.localeCompare(b.hex));
    const icons = list.map((p) => [p.sx - 11, p.sy - 11, p.sx + 11, p.sy + 11]);
    const taken = [];
    for (let i = 0; i < list.length; i++) {
      const p = list[i];
      const c = p.mstate;
      const width = Math.max((c.l1 || '').length * 7, (c.l2 || '').length * 5.6) + 4;
      const order = [p.labelPlace || 0, 0, 1, 2, 3];
      let chosen = -1;
      let box = null;
      for (const k of order) {
        const r = LABEL_PLACES[k].box(width);
        const b = [p.sx + r[0], p.sy + r[1], p.sx + r[2], p.sy + r[3]];
        if (taken.some((t) => overlaps(t, b))) continue;
        if (icons.some((t, j) => j !== i && overlaps(t, b))) continue;
        chosen = k;
        box = b;
        break;
      }
      const hidden = chosen < 0 && rank(p) === 2;
      if (chosen < 0) chosen = p.labelPlace || 0;
      if (box) taken.push(box);
      else if (!hidden) { const r = LABEL_PLACES[chosen].box(width); taken.push([p.sx + r[0], p.sy + r[1], p.sx + r[2], p.sy + r[3]]); }
      p.labelPlace = chosen;
      const place = LABEL_PLACES[chosen];
      setAttrIfChanged(p.label, c, 'lx', 'x', place.x);
      setAttrIfChanged(p.label, c, 'ly', 'y', place.y);
      setAttrIfChanged(p.label, c, 'la', 'text-anchor', place.anchor);
      setAttrIfChanged(p.label2, c, 'l2x', 'x', place.x);
      setAttrIfChanged(p.label2, c, 'l2y', 'y', place.y + 12);
      setAttrIfChanged(p.label2, c, 'l2a', 'text-anchor', place.anchor);
      if (c.hidden !== hidden) {
        c.hidden = hidden;
        const cls = c.class.split(' ').filter((x) => x !== 'label-hidden');
        if (hidden) cls.push('label-hidden');
        setAttrIfChanged(p.marker, c, 'class', 'class', cls.join(' '));
      }
    }
  }

  // ---- table ------------------------------------------------------------
  /** Registration (`r`: from the address where it follows by arithmetic). */
  function registrationOf(d) {
    return typeof d.r === 'string' ? d.r : '';
  }

  /** The flag of `country_code` (ISO 3166-1 alpha-2) as regional-indicator letters. */
  function flagOf(d) {
    const c = typeof d.country_code === 'string' ? d.country_code : '';
    if (!/^[A-Z]{2}$/.test(c)) return '';
    return String.fromCodePoint(0x1f1e6 + c.charCodeAt(0) - 65, 0x1f1e6 + c.charCodeAt(1) - 65);
  }
  function countryOf(d) { return typeof d.country === 'string' ? d.country : ''; }

  const COLUMNS = [
    ['hex', (d, p) => p.hex.toUpperCase(), ''],
    ['country', (d) => (typeof d.country_code === 'string' ? d.country_code : ''), 'flag opt'],
    ['flight', (d) => callsign(d), 'callsign'],
    ['r', (d) => registrationOf(d), 'opt'],
    ['squawk', (d) => (typeof d.squawk === 'string' ? d.squawk : ''), 'squawk'],
    ['alt', (d) => fmtAlt(altitudeOf(d)), 'num'],
    ['gs', (d) => fmtInt(d.gs), 'num'],
    ['track', (d) => fmtInt(d.track), 'num opt'],
    ['vrate', (d) => fmtSigned(vrateOf(d)), 'num'],
    ['dist', (d) => fmtFixed(distOf(d), 1), 'num'],
    ['rssi', (d) => fmtFixed(d.rssi, 1), 'num opt'],
    ['messages', (d) => fmtInt(d.messages), 'num opt'],
    ['seen', (d) => fmtFixed(d.seen, isNum(d.seen) && d.seen < 10 ? 1 : 0), 'num'],
  ];
  const COUNTRY_COL = COLUMNS.findIndex(([k]) => k === 'country');
  const SORT_VALUE = {
    hex: (d, p) => p.hex,
    country: (d) => countryOf(d) || null,
    flight: (d) => callsign(d) || null,
    r: (d) => registrationOf(d) || null,
    squawk: (d) => (typeof d.squawk === 'string' ? d.squawk : null),
    alt: (d) => { const a = altitudeOf(d); return a === 'ground' ? -1 : a; },
    gs: (d) => (isNum(d.gs) ? d.gs : null),
    track: (d) => (isNum(d.track) ? d.track : null),
    vrate: (d) => vrateOf(d),
    dist: (d) => distOf(d),
    rssi: (d) => (isNum(d.rssi) ? d.rssi : null),
    messages: (d) => (isNum(d.messages) ? d.messages : null),
    seen: (d) => (isNum(d.seen) ? d.seen : null),
  };

  function createRow(p) {
    const tr = document.createElement('tr');
    tr.dataset.hex = p.hex;
    p.cells = COLUMNS.map(([, , cls]) => {
      const td = document.createElement('td');
      if (cls) td.className = cls;
      tr.appendChild(td);
      return td;
    });
    p.cellText = COLUMNS.map(() => null);
    tr.addEventListener('click', () => select(p.hex === selectedHex ? null : p.hex, false));
    p.row = tr;
    p.rowClass = null;
  }

  function updateRow(p) {
    if (!p.row) createRow(p);
    const d = p.d;
    for (let i = 0; i < COLUMNS.length; i++) {
      const text = COLUMNS[i][1](d, p);
      if (p.cellText[i] !== text) { p.cellText[i] = text; p.cells[i].textContent = text; }
    }
    const country = countryOf(d);
    if (p.countryTitle !== country) { p.countryTitle = country; p.cells[COUNTRY_COL].title = country; }
    const sq = typeof d.squawk === 'string' ? d.squawk : '';
    const cls = [];
    if (EMERGENCY_SQUAWKS[sq]) cls.push('emergency');
    if (p.hex === selectedHex) cls.push('selected');
    if (!hasPos(d)) cls.push('no-pos');
    const c = cls.join(' ');
    if (p.rowClass !== c) {
      p.rowClass = c;
      p.row.className = c;
      p.row.title = EMERGENCY_SQUAWKS[sq] ? `squawk ${sq}: ${EMERGENCY_SQUAWKS[sq]}` : '';
    }
  }

  function compareNullsLast(a, b, asc) {
    const an = a === null || a === undefined;
    const bn = b === null || b === undefined;
    if (an || bn) return an === bn ? 0 : an ? 1 : -1;
    const r = typeof a === 'string' ? a.localeCompare(b) : a - b;
    return asc ? r : -r;
  }

  function sortRows() {
    const key = SORT_VALUE[sortKey];
    const list = [...planes.values()];
    list.sort((a, b) => compareNullsLast(key(a.d, a), key(b.d, b), sortAsc) || a.hex.localeCompare(b.hex));
    const rows = tbody.children;
    let inOrder = rows.length === list.length;
    for (let i = 0; inOrder && i < list.length; i++) inOrder = rows[i] === list[i].row;
    if (!inOrder) for (const p of list) tbody.appendChild(p.row);
    for (const th of table.tHead.rows[0].cells) {
      const on = th.dataset.key === sortKey;
      th.classList.toggle('sorted', on);
      th.classList.toggle('asc', on && sortAsc);
      th.classList.toggle('desc', on && !sortAsc);
      if (on) th.setAttribute('aria-sort', sortAsc ? 'ascending' : 'descending');
      else th.removeAttribute('aria-sort');
    }
  }

  for (const th of table.tHead.rows[0].cells) {
    th.tabIndex = 0;
    const activate = () => {
      if (sortKey === th.dataset.key) sortAsc = !sortAsc;
      else { sortKey = th.dataset.key; sortAsc = !['rssi', 'messages', 'alt', 'gs'].includes(sortKey); }
      sortRows();
    };
    th.addEventListener('click', activate);
    th.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); activate(); } });
  }

  // ---- selection and details ----------------------------------------------
  function select(hex, fromMap) {
    selectedHex = hex && planes.has(hex) ? hex : null;
    for (const p of planes.values()) { updateRow(p); updateMarker(p); renderTrail(p); }
    placeLabels();
    const p = selectedHex && planes.get(selectedHex);
    if (p) {
      if (p.marker) p.marker.parentNode.appendChild(p.marker); // draw on top
      if (fromMap && p.row) p.row.scrollIntoView({ block: 'nearest' });
      if (follow && hasPos(p.d)) centreOn(p.d.lat, p.d.lon);
    }
    renderDetails();
  }

  function detailRow(name, value) {
    return value === '' || value === null || value === undefined ? '' : `<dt>${name}</dt><dd>${value}</dd>`;
  }
  function escapeHtml(s) {
    return String(s).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
  }
  function renderDetails() {
    const p = selectedHex && planes.get(selectedHex);
    if (!p) { ui.details.hidden = true; ui.details.replaceChildren(); return; }
    const d = p.d;
    const alt = altitudeOf(d);
    const sq = typeof d.squawk === 'string' ? d.squawk : '';
    const dist = distOf(d);
    ui.details.hidden = false;
    ui.details.innerHTML =
      `<div class="details-head"><span class="swatch"></span>` +
      `<b>${escapeHtml(callsign(d) || '—')}</b><span class="dim">${escapeHtml(p.hex.toUpperCase())}</span>` +
      `<button type="button" class="close" title="clear the selection (Esc)">×</button></div>` +
      (EMERGENCY_SQUAWKS[sq] ? `<div class="details-alert">squawk ${sq}: ${EMERGENCY_SQUAWKS[sq]}</div>` : '') +
      '<dl>' +
      detailRow('registration', escapeHtml(registrationOf(d))) +
      detailRow('country', countryOf(d) ? `${flagOf(d)} ${escapeHtml(countryOf(d))}`.trim() : '') +
      detailRow('aircraft', escapeHtml([d.t, d.desc].filter((v) => typeof v === 'string' && v !== '').join(' · '))) +
      detailRow('operator', escapeHtml(typeof d.ownOp === 'string' ? d.ownOp : '')) +
      detailRow('source', escapeHtml(sourceText(d))) +
      detailRow('category', escapeHtml(typeof d.category === 'string' ? d.category : '')) +
      detailRow('squawk', escapeHtml(sq)) +
      detailRow('altitude', alt === 'ground' ? 'on the ground' : isNum(alt) ? `${fmtAlt(alt)} ft` : '') +
      detailRow('vert. rate', isNum(vrateOf(d)) ? `${fmtSigned(vrateOf(d))} ft/min` : '') +
      detailRow('speed', isNum(d.gs) ? `${Math.round(d.gs)} kt` : '') +
      detailRow('track', isNum(d.track) ? `${Math.round(d.track)}°` : '') +
      detailRow('position', hasPos(d) ? fmtLatLon(d.lat, d.lon) : 'unknown') +
      detailRow('distance', isNum(dist) ? `${dist.toFixed(1)} NM` : '') +
      detailRow('RSSI', isNum(d.rssi) ? `${d.rssi.toFixed(1)} dBFS` : '') +
      detailRow('messages', fmtInt(d.messages)) +
      detailRow('last seen', isNum(d.seen) ? `${d.seen.toFixed(1)} s ago` : '') +
      '</dl>';
    // Through the CSSOM: the Content-Security-Policy refuses style attributes.
    ui.details.querySelector('.swatch').style.background = altColour(alt);
    ui.details.querySelector('.close').addEventListener('click', () => select(null, false));
  }

  function setFollow(on) {
    follow = on;
    ui.follow.setAttribute('aria-pressed', String(on));
    const p = on && selectedHex && planes.get(selectedHex);
    if (p && hasPos(p.d)) centreOn(p.d.lat, p.d.lon);
  }
  ui.follow.addEventListener('click', () => setFollow(!follow));
  ui.labels.addEventListener('click', () => {
    showLabels = !showLabels;
    ui.labels.setAttribute('aria-pressed', String(showLabels));
    svg.classList.toggle('no-labels', !showLabels);
    placeLabels();
  });
  ui.outline.addEventListener('click', () => {
    showOutline = !showOutline;
    ui.outline.setAttribute('aria-pressed', String(showOutline));
    renderOutline();
  });
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') select(null, false);
  });

  // ---- view: rendering, zoom, pan -----------------------------------------
  function measure() {
    const r = svg.getBoundingClientRect();
    view.w = Math.max(1, Math.round(r.width));
    view.h = Math.max(1, Math.round(r.height));
  }
  let viewKey = '';
  let viewVersion = 0;
  /** Redraws what depends on the view; the static layers only when it changed. */
  function renderView() {
    measure();
    const key = `${view.cx},${view.cy},${view.z},${view.w},${view.h},${receiver !== null},${tileTemplate}`;
    if (key !== viewKey) {
      viewKey = key;
      viewVersion++;
      renderTiles();
      renderBasemap();
      renderGraticule();
      renderNexrad();
      renderRings();
      renderOutline();
      renderReceiver();
    }
    for (const p of planes.values()) { updateMarker(p); renderTrail(p); }
    placeLabels();
  }
  let frameQueued = false;
  function queueRender() {
    if (frameQueued) return;
    frameQueued = true;
    requestAnimationFrame(() => { frameQueued = false; renderView(); });
  }
  function centreOn(lat, lon) {
    view.cx = mercX(lon);
    view.cy = mercY(lat);
  }
  function zoomAt(px, py, newZ) {
    newZ = clampZoom(newZ);
    const [wx, wy] = fromScreen(px, py);
    view.z = newZ;
    const s = scale();
    view.cx = wx - (px - view.w / 2) / s;
    view.cy = wy - (py - view.h / 2) / s;
    queueRender();
  }
  /** Radius shown at start: the 100 NM ring, or 50 NM on a phone-sized map. */
  function initialRangeNm() { return Math.min(view.w, view.h) < 560 ? 50 : 100; }
  function placeInitialView() {
    if (view.placed) return;
    measure();
    if (receiver) {
      centreOn(receiver.lat, receiver.lon);
      view.z = clampZoom(zoomForRange(receiver.lat, initialRangeNm(), 0.92 * Math.min(view.w, view.h) / 2));
      view.placed = true;
      return;
    }
    const pos = [...planes.values()].filter((p) => hasPos(p.d));
    if (receiverLoaded && pos.length) {
      const lat = pos.reduce((s, p) => s + p.d.lat, 0) / pos.length;
      const lon = pos.reduce((s, p) => s + p.d.lon, 0) / pos.length;
      centreOn(lat, lon);
      view.z = clampZoom(zoomForRange(lat, initialRangeNm(), 0.92 * Math.min(view.w, view.h) / 2));
      view.placed = true;
    }
  }

  byId('zoom-in').addEventListener('click', () => zoomAt(view.w / 2, view.h / 2, view.z + 1));
  byId('zoom-out').addEventListener('click', () => zoomAt(view.w / 2, view.h / 2, view.z - 1));
  byId('recenter').addEventListener('click', () => {
    setFollow(false);
    if (receiver) centreOn(receiver.lat, receiver.lon);
    queueRender();
  });
  svg.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    const r = svg.getBoundingClientRect();
    const step = ev.deltaMode === 1 ? ev.deltaY * 0.05 : ev.deltaY * 0.0025;
    zoomAt(ev.clientX - r.left, ev.clientY - r.top, view.z - Math.max(-1, Math.min(1, step)));
  }, { passive: false });
  svg.addEventListener('dblclick', (ev) => {
    const r = svg.getBoundingClientRect();
    zoomAt(ev.clientX - r.left, ev.clientY - r.top, view.z + 1);
  });

  // Drag to pan (mouse or one finger), pinch to zoom (two fingers).
  const pointers = new Map();
  let dragMoved = false;
  let pinchStart = null;
  svg.addEventListener('pointerdown', (ev) => {
    pointers.set(ev.pointerId, [ev.clientX, ev.clientY]);
    if (pointers.size === 1) dragMoved = false;
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      pinchStart = { dist: Math.hypot(a[0] - b[0], a[1] - b[1]), z: view.z };
    }
  });
  svg.addEventListener('pointermove', (ev) => {
    const prev = pointers.get(ev.pointerId);
    if (!prev) return;
    const cur = [ev.clientX, ev.clientY];
    pointers.set(ev.pointerId, cur);
    if (pointers.size === 2 && pinchStart) {
      const [a, b] = [...pointers.values()];
      const r = svg.getBoundingClientRect();
      const dist = Math.hypot(a[0] - b[0], a[1] - b[1]);
      if (pinchStart.dist > 0 && dist > 0) {
        zoomAt((a[0] + b[0]) / 2 - r.left, (a[1] + b[1]) / 2 - r.top, pinchStart.z + Math.log2(dist / pinchStart.dist));
      }
      dragMoved = true;
      return;
    }
    const dx = cur[0] - prev[0];
    const dy = cur[1] - prev[1];
    if (!dragMoved && Math.hypot(dx, dy) < 3) { pointers.set(ev.pointerId, prev); return; }
    if (!dragMoved) {
      dragMoved = true;
      try { svg.setPointerCapture(ev.pointerId); } catch (e) { /* pointer already gone */ }
      svg.classList.add('dragging');
      if (follow && selectedHex) setFollow(false);
    }
    const s = scale();
    view.cx -= dx / s;
    view.cy -= dy / s;
    queueRender();
  });
  const pointerEnd = (ev) => {
    pointers.delete(ev.pointerId);
    if (pointers.size < 2) pinchStart = null;
    if (pointers.size === 0) svg.classList.remove('dragging');
  };
  svg.addEventListener('pointerup', pointerEnd);
  svg.addEventListener('pointercancel', pointerEnd);
  svg.addEventListener('click', (ev) => {
    // A click (not the end of a drag) on empty map clears the selection.
    if (!dragMoved && !ev.target.closest('.aircraft')) select(null, false);
  });
  window.addEventListener('resize', queueRender);

  // ---- data -------------------------------------------------------------
  function setStatus(ok, why) {
    ui.status.hidden = ok;
    ui.status.title = ok ? '' : why;
    document.body.classList.toggle('stale', !ok);
  }

  async function fetchJson(url) {
    const resp = await fetch(url, { cache: 'no-store' });
    if (!resp.ok) throw new Error(`${url}: HTTP ${resp.status}`);
    return resp.json();
  }

  async function loadReceiver() {
    try {
      const r = await fetchJson('data/receiver.json');
      receiverLoaded = true;
      if (isNum(r.lat) && isNum(r.lon) && Math.abs(r.lat) <= 90 && Math.abs(r.lon) <= 180) {
        receiver = { lat: r.lat, lon: r.lon };
      }
      if (isNum(r.refresh) && r.refresh > 0) refreshMs = Math.max(250, Math.min(10000, r.refresh));
      if (typeof r.version === 'string') ui.version.textContent = r.version;
      if (typeof r.tiles === 'string' && /\{z\}/.test(r.tiles) && /\{x\}/.test(r.tiles) && /\{y\}/.test(r.tiles)) {
        tileTemplate = r.tiles;
        svg.classList.add('has-tiles');
        let host = '';
        try { host = new URL(r.tiles.replace(/[{}]/g, ''), location.href).host; } catch (e) { host = ''; }
        ui.attribution.textContent = 'tiles: ' + (/openstreetmap/.test(host) ? '© OpenStreetMap contributors' : host || 'local');
      }
    } catch (e) {
      receiverLoaded = false; // tried again with the next poll
    }
  }

  const OUTLINE_EVERY_MS = 60000;
  let outlineLoadedAt = -Infinity;
  async function loadOutline() {
    outlineLoadedAt = Date.now();
    try {
      const o = await fetchJson('data/outline.json');
      const pts = o && o.actualRange && o.actualRange.last24h && o.actualRange.last24h.points;
      if (!Array.isArray(pts)) return;
      outlinePoints = pts.filter((p) => Array.isArray(p) && isNum(p[0]) && isNum(p[1]) && Math.abs(p[0]) <= 90 && Math.abs(p[1]) <= 180);
      renderOutline();
    } catch (e) {
      // No outline (an older receiver, or none yet): the map goes on without it.
    }
  }

  /** When data/fisb.json is next due (Date.now() ms). */
  let fisbDueAt = 0;
  async function loadFisb() {
    fisbDueAt = Date.now() + FISB_RETRY_MS; // unless it answers
    try {
      const f = await fetchJson('data/fisb.json');
      if (!f || typeof f !== 'object' || Array.isArray(f)) throw new Error('fisb.json: not an object');
      const nowS = Date.now() / 1000;
      fisb = {
        nexrad: parseNexrad(f.nexrad, nowS),
        reports: parseReports(f.text, nowS),
        stations: Array.isArray(f.stations) ? f.stations.length : 0,
      };
      fisbDueAt = Date.now() + FISB_EVERY_MS;
      ui.radar.hidden = false;
      renderNexrad();
      renderRadarCaption();
      renderWeather();
    } catch (e) {
      // No FIS-B (an older receiver, no UAT) or a bad document: the map goes
      // on with what it had, or without the layer and the panel.
    }
  }

  function applyAircraft(json) {
    const list = Array.isArray(json.aircraft) ? json.aircraft : [];
    const seen = new Set();
    let withPos = 0;
    const now = isNum(json.now) ? json.now : Date.now() / 1000;
    for (const d of list) {
      if (!d || typeof d.hex !== 'string' || d.hex === '') continue;
      const hex = d.hex.toLowerCase();
      if (seen.has(hex)) continue;
      seen.add(hex);
      let p = planes.get(hex);
      if (!p) { p = { hex, trail: [], marker: null, row: null, trailGroup: null }; planes.set(hex, p); }
      p.d = d;
      if (hasPos(d)) { withPos++; updateTrailPoints(p, now); }
      pruneTrail(p, now);
    }
    for (const [hex, p] of planes) {
      if (seen.has(hex)) continue;
      if (p.marker) p.marker.remove();
      if (p.row) p.row.remove();
      if (p.trailGroup) p.trailGroup.remove();
      planes.delete(hex);
    }
    if (selectedHex && !planes.has(selectedHex)) selectedHex = null;
    if (wantedHex && planes.has(wantedHex)) { selectedHex = wantedHex; wantedHex = null; }

    placeInitialView();
    const sel = selectedHex && planes.get(selectedHex);
    if (sel && follow && hasPos(sel.d)) centreOn(sel.d.lat, sel.d.lon);
    renderView();
    for (const p of planes.values()) updateRow(p);
    sortRows();
    renderDetails();

    ui.total.textContent = String(planes.size);
    ui.withPos.textContent = String(withPos);
    ui.empty.hidden = planes.size > 0;
    if (isNum(json.now)) {
      ui.updated.textContent = fmtUtc(json.now);
      if (previous && isNum(json.messages) && json.now > previous.now && json.messages >= previous.messages) {
        const rate = (json.messages - previous.messages) / (json.now - previous.now);
        ui.rate.textContent = rate < 10 ? rate.toFixed(1) : String(Math.round(rate));
      }
      previous = isNum(json.messages) ? { now: json.now, messages: json.messages } : null;
      lastNow = json.now;
    }
  }

  async function poll() {
    try {
      if (!receiverLoaded) {
        await loadReceiver();
        if (receiverLoaded) { placeInitialView(); renderView(); }
      }
      const json = await fetchJson('data/aircraft.json');
      if (!json || typeof json !== 'object') throw new Error('aircraft.json: not an object');
      applyAircraft(json);
      setStatus(true, '');
      if (receiver && Date.now() - outlineLoadedAt >= OUTLINE_EVERY_MS) loadOutline();
      if (Date.now() >= fisbDueAt) loadFisb();
    } catch (e) {
      setStatus(false, String(e && e.message ? e.message : e));
    } finally {
      setTimeout(poll, refreshMs);
    }
  }


  // ---- replay (?replay, or ?replay=T to open paused at Unix time T) -------
  // The feeder's position history (data/replay/index.json and 10-minute
  // chunks of 20-byte points, see host/src/feed/history.rs) played back
  // through the same map and table: at time T every aircraft whose last
  // point is at most REPLAY_FRESH_S old is shown there, with its trail.
  const REPLAY_FRESH_S = 60;
  const REPLAY_TRAIL_S = 600;
  const REPLAY_TICK_MS = 250;
  const replayParam = new URLSearchParams(location.search).get('replay');
  const replay = replayParam === null ? null : {
    start: null, end: null, t: null, playing: false, speed: 10,
    chunks: new Map(), // start -> Promise of points, once asked for
    tracks: new Map(), // hex -> [{t, lat, lon, alt, track, gs, ground, mlat}] in time order
    loaded: new Set(),
    shown: null, ui: null, chunkS: 600,
  };

  function parseChunk(buf) {
    const v = new DataView(buf);
    const n = v.getUint32(16, true);
    const pts = [];
    for (let i = 0; i < n; i++) {
      const o = 20 + i * 20;
      const a = v.getUint32(o + 4, true);
      const alt = v.getInt16(o + 16, true);
      const trk = v.getUint8(o + 18), gs = v.getUint8(o + 19);
      const hex = ((a & 0x1000000) ? '~' : '') + (a & 0xffffff).toString(16).padStart(6, '0');
      pts.push({
        t: v.getUint32(o, true), hex,
        lat: v.getInt32(o + 8, true) / 1e7, lon: v.getInt32(o + 12, true) / 1e7,
        alt: alt === -32768 ? null : alt * 25,
        track: trk === 255 && gs === 255 ? null : trk * 360 / 256,
        gs: gs === 255 ? null : gs * 4,
        ground: (a & 0x2000000) !== 0, mlat: (a & 0x4000000) !== 0,
      });
    }
    return pts;
  }

  /** Load the chunks that cover [from, to] (once each) into the tracks. */
  async function replayLoad(from, to) {
    const r = replay;
    const wanted = [];
    for (const c of r.index) if (c.start + r.chunkS > from && c.start <= to) wanted.push(c.start);
    for (const start of wanted) {
      if (!r.chunks.has(start)) {
        r.chunks.set(start, fetch(`data/replay/${start}.bin`, { cache: 'no-store' })
          .then((resp) => (resp.ok ? resp.arrayBuffer() : Promise.reject(new Error(`HTTP ${resp.status}`))))
          .then(parseChunk)
          .catch(() => []));
      }
    }
    for (const start of wanted) {
      const pts = await r.chunks.get(start);
      if (r.loaded.has(start)) continue;
      r.loaded.add(start);
      for (const p of pts) {
        let tr = r.tracks.get(p.hex);
        if (!tr) { tr = []; r.tracks.set(p.hex, tr); }
        tr.push(p);
      }
      for (const tr of r.tracks.values()) tr.sort((a, b) => a.t - b.t);
    }
  }

  /** aircraft.json as it would have been at T. */
  function replayState(T) {
    const list = [];
    for (const [hex, tr] of replay.tracks) {
      let lo = 0, hi = tr.length - 1, k = -1;
      while (lo <= hi) { const m = (lo + hi) >> 1; if (tr[m].t <= T) { k = m; lo = m + 1; } else hi = m - 1; }
      if (k < 0 || T - tr[k].t > REPLAY_FRESH_S) continue;
      const p = tr[k];
      const d = { hex, lat: p.lat, lon: p.lon, seen: T - p.t, seen_pos: T - p.t, type: p.mlat ? 'mlat' : 'replay', mlat: p.mlat ? ['lat', 'lon'] : [] };
      if (p.ground) d.alt_baro = 'ground'; else if (p.alt !== null) d.alt_baro = p.alt;
      if (p.track !== null) d.track = p.track;
      if (p.gs !== null) d.gs = p.gs;
      list.push(d);
    }
    return { now: T, messages: 0, aircraft: list };
  }

  async function replayShow(T) {
    const r = replay;
    r.t = Math.max(r.start, Math.min(r.end, T));
    await replayLoad(r.t - REPLAY_TRAIL_S, r.t);
    const jump = r.shown === null || r.t < r.shown || r.t - r.shown > 30;
    if (jump) {
      // Start afresh and rebuild the trails of the last ten minutes.
      applyAircraft({ now: r.t - REPLAY_TRAIL_S, messages: 0, aircraft: [] });
      for (let t = r.t - REPLAY_TRAIL_S; t < r.t; t += 15) applyAircraft(replayState(t));
    }
    applyAircraft(replayState(r.t));
    r.shown = r.t;
    r.ui.slider.value = String(Math.round(r.t));
    r.ui.time.textContent = new Date(r.t * 1000).toISOString().replace('T', ' ').slice(0, 19) + 'Z';
    document.body.dataset.replayTime = String(Math.round(r.t));
  }

  function replayBar() {
    const bar = document.createElement('div');
    bar.id = 'replay-bar';
    const play = document.createElement('button');
    play.type = 'button';
    play.id = 'replay-play';
    play.textContent = 'play';
    const speed = document.createElement('select');
    speed.id = 'replay-speed';
    speed.title = 'playback speed';
    for (const x of [1, 5, 10, 30, 60]) {
      const o = document.createElement('option');
      o.value = String(x);
      o.textContent = `${x}×`;
      if (x === replay.speed) o.selected = true;
      speed.appendChild(o);
    }
    const slider = document.createElement('input');
    slider.type = 'range';
    slider.id = 'replay-slider';
    slider.min = String(replay.start);
    slider.max = String(replay.end);
    slider.step = '1';
    const time = document.createElement('span');
    time.id = 'replay-time';
    const live = document.createElement('a');
    live.href = location.pathname;
    live.textContent = 'live';
    bar.append(play, speed, slider, time, live);
    byId('map-wrap').appendChild(bar);
    play.addEventListener('click', () => {
      replay.playing = !replay.playing;
      play.textContent = replay.playing ? 'pause' : 'play';
    });
    speed.addEventListener('change', () => { replay.speed = Number(speed.value); });
    slider.addEventListener('input', () => { replay.playing = false; play.textContent = 'play'; replayShow(Number(slider.value)); });
    return { play, speed, slider, time };
  }

  async function replayStart() {
    document.body.classList.add('replay');
    await loadReceiver();
    if (receiverLoaded) { placeInitialView(); renderView(); }
    try {
      const idx = await fetchJson('data/replay/index.json');
      replay.index = Array.isArray(idx.chunks) ? idx.chunks.filter((c) => isNum(c.start)) : [];
      if (isNum(idx.chunk_s)) replay.chunkS = idx.chunk_s;
      if (replay.index.length === 0) throw new Error('no history yet');
      replay.start = replay.index[0].start;
      replay.end = Math.max(replay.index[replay.index.length - 1].start + replay.chunkS, isNum(idx.now) ? idx.now : 0);
      replay.ui = replayBar();
      const asked = Number(replayParam);
      await replayShow(replayParam !== '' && isNum(asked) ? asked : replay.end - REPLAY_TRAIL_S);
      setStatus(true, '');
    } catch (e) {
      setStatus(false, 'replay: ' + String(e && e.message ? e.message : e));
      return;
    }
    setInterval(() => {
      if (replay.playing && replay.t < replay.end) replayShow(replay.t + replay.speed * REPLAY_TICK_MS / 1000);
    }, REPLAY_TICK_MS);
  }

  measure();
  renderView();
  sortRows();
  loadBasemap();
  if (replay) {
    ui.radar.hidden = true; // no FIS-B in a replay: neither radar nor weather
    ui.weather.hidden = true;
    replayStart();
  } else {
    poll();
    // The ages of the radar image and the reports count on between loads.
    setInterval(() => { if (fisb) { renderRadarCaption(); renderWeatherAges(); } }, 1000);
  }
  // Read-only view of the state, for the browser console and for the
  // interaction test in host/tests/web_map.rs.
  window.airwaves = { view, planes, apply: applyAircraft, get lastUpdate() { return lastNow; }, get fisb() { return fisb; } };
})();
