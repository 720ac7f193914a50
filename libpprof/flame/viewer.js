// pprof-flame viewer: reads the page's JSON block (docs/flame.md, "pprof-flame/1") and draws it.
// Runs under the page's own CSP (script and style admitted by hash only), so: no eval, no inline
// handlers, styles set through the CSSOM. Names come from whoever wrote the profile: they reach
// the page only through textContent and canvas fillText, never as markup.
'use strict';
(function () {
  const ROW = 18; // css px per frame row; tests read it from the canvas' data-row
  const TOP_ROWS = 2000; // top table rows built at once; the rest on request
  const MAX_ROWS = 1700; // a canvas taller than ~32k px is not drawn by browsers

  const $ = (id) => document.getElementById(id);
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function say(msg) {
    const m = $('message');
    m.textContent = msg;
    m.classList.remove('hidden');
  }
  function fatal(msg) {
    say(msg);
    $('main').classList.add('hidden');
    document.body.dataset.state = 'error';
  }

  // ---- Units, as Go's internal/measurement scales them (Label = ScaledLabel(v, unit, "auto")).
  const UNITS = [
    { units: [['B', ['b', 'byte'], 1], ['kB', ['kb', 'kbyte', 'kilobyte'], 1024],
      ['MB', ['mb', 'mbyte', 'megabyte'], 1024 ** 2], ['GB', ['gb', 'gbyte', 'gigabyte'], 1024 ** 3],
      ['TB', ['tb', 'tbyte', 'terabyte'], 1024 ** 4], ['PB', ['pb', 'pbyte', 'petabyte'], 1024 ** 5]],
    def: ['B', 1] },
    { units: [['ns', ['ns', 'nanosecond'], 1], ['us', ['\u03bcs', 'us', 'microsecond'], 1e3],
      ['ms', ['ms', 'millisecond'], 1e6], ['s', ['s', 'sec', 'second'], 1e9],
      ['hrs', ['hour', 'hr'], 3600e9]],
    def: ['s', 1e9] },
    { units: [['n*GCU', ['nanogcu'], 1e-9], ['u*GCU', ['microgcu'], 1e-6], ['m*GCU', ['milligcu'], 1e-3],
      ['GCU', ['gcu'], 1], ['k*GCU', ['kilogcu'], 1e3], ['M*GCU', ['megagcu'], 1e6],
      ['G*GCU', ['gigagcu'], 1e9], ['T*GCU', ['teragcu'], 1e12], ['P*GCU', ['petagcu'], 1e15]],
    def: ['GCU', 1] },
  ];
  function sniff(table, unit) {
    let u = String(unit).toLowerCase();
    if (u.length > 2 && u.endsWith('s')) u = u.slice(0, -1);
    for (const e of table.units) if (e[1].includes(u)) return e;
    return null;
  }
  function scale(v, unit) {
    if (v < 0) {
      const [m, u] = scale(-v, unit);
      return [-m, u];
    }
    for (const t of UNITS) {
      const from = sniff(t, unit);
      if (!from) continue;
      const base = v * from[2];
      let f = 0;
      let name = '';
      for (const e of t.units) {
        if (e[2] >= f && base / e[2] >= 1) {
          f = e[2];
          name = e[0];
        }
      }
      if (f === 0) return [base / t.def[1], t.def[0]];
      return [base / f, name];
    }
    return [v, '']; // count, samples and unknown units print plain, as Go's "auto" does
  }
  function label(v, unit) {
    const [m, u] = scale(v, unit);
    let s = m.toFixed(2);
    if (s.endsWith('.00')) s = s.slice(0, -3);
    if (s === '0' || s === '-0') return '0';
    return s + u;
  }
  function pct(v, total) { // Go's measurement.Percentage, without its padding
    const r = total !== 0 ? Math.abs(v / total) * 100 : 0;
    if (r >= 99.95 && r <= 100.05) return '100%';
    if (r >= 1) return r.toFixed(2) + '%';
    return String(Number(r.toPrecision(2))) + '%';
  }

  // ---- Data
  let D;
  try {
    D = JSON.parse($('pprof-flame-data').textContent);
  } catch (e) {
    fatal('The data of this page cannot be read: ' + e.message);
    return;
  }
  const bad = checkData(D);
  if (bad) {
    fatal('The data of this page is not a pprof-flame/1 document: ' + bad);
    return;
  }
  function checkData(d) {
    if (!d || typeof d !== 'object' || d.format !== 'pprof-flame/1') return 'format is not "pprof-flame/1"';
    if (!Array.isArray(d.types) || !Array.isArray(d.names) || !d.nodes || !Array.isArray(d.total)) return 'missing types, names, nodes or total';
    if (d.types.length < 1) return 'no sample types';
    const nd = d.nodes;
    const n = Array.isArray(nd.parent) ? nd.parent.length : -1;
    if (n < 1 || !Array.isArray(nd.name) || nd.name.length !== n) return 'nodes.parent and nodes.name differ in length';
    const lists = [nd.value, nd.self].concat(d.base ? [d.base.value, d.base.self] : []);
    for (const l of lists) {
      if (!Array.isArray(l) || l.length !== d.types.length) return 'a value list does not have one entry per type';
      for (const a of l) if (!Array.isArray(a) || a.length !== n) return 'a value list does not have one entry per node';
    }
    if (d.total.length !== d.types.length) return 'total does not have one entry per type';
    for (const k of nd.name) if (!(k >= 0 && k < d.names.length)) return 'a node names no entry of names';
    return '';
  }

  const types = D.types;
  const names = D.names.map(String);
  const files = Array.isArray(D.files) ? D.files : [];
  const N = D.nodes.parent.length;
  const parent = Int32Array.from(D.nodes.parent);
  const nameOf = Int32Array.from(D.nodes.name);
  const inl = D.nodes.inline || [];
  const kind = D.nodes.kind || [];
  // One key per distinct label (the top table and callers view merge by label, as pprof-top does).
  const canon = new Int32Array(names.length);
  const keyOf = new Map();
  for (let k = 0; k < names.length; k++) {
    const c = keyOf.get(names[k]);
    if (c === undefined) {
      keyOf.set(names[k], k);
      canon[k] = k;
    } else canon[k] = c;
  }
  const fnOf = new Int32Array(N);
  for (let i = 0; i < N; i++) fnOf[i] = canon[nameOf[i]];

  // Preorder check, depth and subtree end in one pass over the current path.
  const depth = new Int32Array(N);
  const end = new Int32Array(N);
  let maxDepth = 0;
  {
    const path = [0];
    if (parent[0] !== -1) {
      fatal('The data of this page is not a pprof-flame/1 document: node 0 is not the root');
      return;
    }
    for (let i = 1; i < N; i++) {
      const p = parent[i];
      while (path.length && path[path.length - 1] !== p) end[path.pop()] = i;
      if (!path.length) {
        fatal('The data of this page is not a pprof-flame/1 document: node ' + i + ' is not in preorder');
        return;
      }
      depth[i] = path.length;
      if (depth[i] > maxDepth) maxDepth = depth[i];
      path.push(i);
    }
    while (path.length) end[path.pop()] = N;
  }
  const tm = names.length > 0 && typeof D.title === 'string' ? D.title : 'Flame Graph';
  document.title = tm;
  $('title').textContent = tm;
  $('title').title = tm;
  $('source').textContent = (D.source !== undefined ? 'source: ' + D.source : '') +
    (D.base ? '  base: ' + D.base.source + (D.base.normalized ? ' (normalized)' : '') : '') +
    (D.reverse ? '  (stacks reversed)' : '') +
    (D.pruned > 0 ? '  ' + D.pruned + ' small frames not included' : '');

  // Per-type arrays, made when a type is first shown.
  const perType = [];
  function typeData(t) {
    if (perType[t]) return perType[t];
    const v = Float64Array.from(D.nodes.value[t]);
    const s = Float64Array.from(D.nodes.self[t]);
    let bv = null;
    let bs = null;
    if (D.base) {
      bv = Float64Array.from(D.base.value[t]);
      bs = Float64Array.from(D.base.self[t]);
      // --normalize: BASE scaled to IN's total. Idempotent when the writer scaled it already.
      if (D.base.normalized && bv[0] !== 0) {
        const f = v[0] / bv[0];
        for (let i = 0; i < N; i++) {
          bv[i] *= f;
          bs[i] *= f;
        }
      }
    }
    const td = { v, s, bv, bs, maxDelta: 0, tree: null };
    // the root's change is the sum of all the others: left out, or it would pale every frame
    if (bv) for (let i = N > 1 ? 1 : 0; i < N; i++) td.maxDelta = Math.max(td.maxDelta, Math.abs(v[i] - bv[i]));
    td.tree = makeTree(N, parent, end, depth, maxDepth, v);
    perType[t] = td;
    return td;
  }

  // Width and offset of each node: widths are |value| (diff profiles have negative values); a
  // child starts where its previous sibling ended. The root spans max(|value|, its children).
  function makeTree(n, par, en, dep, maxD, val) {
    const w = new Float64Array(n);
    const x = new Float64Array(n);
    const cur = new Float64Array(n);
    for (let i = 0; i < n; i++) w[i] = Math.abs(val[i]);
    let kids = 0;
    for (let c = 1; c < n; c = en[c]) kids += w[c];
    if (kids > w[0]) w[0] = kids;
    for (let i = 1; i < n; i++) {
      const p = par[i];
      x[i] = cur[p];
      cur[p] += w[i];
      cur[i] = x[i];
    }
    return { n, parent: par, end: en, depth: dep, maxDepth: maxD, w, x };
  }

  // ---- Colours (flamegraph.pl's palettes, keyed by a hash of the name so a frame keeps its
  // colour across zooms and reloads)
  function hash3(str) {
    let h = 2166136261;
    const n = Math.min(str.length, 256);
    for (let i = 0; i < n; i++) {
      h ^= str.charCodeAt(i);
      h = Math.imul(h, 16777619);
    }
    h >>>= 0;
    return [(h & 0x3ff) / 1023, ((h >>> 10) & 0x3ff) / 1023, ((h >>> 20) & 0x3ff) / 1023];
  }
  const PALETTES = {
    hot: (a, b, c) => [205 + 50 * c, 230 * a, 55 * b],
    mem: (a, b) => [0, 190 + 50 * b, 210 * a],
    io: (a, b) => [80 + 60 * a, 80 + 60 * a, 190 + 55 * b],
    red: (a) => [200 + 55 * a, 50 + 80 * a, 50 + 80 * a],
    green: (a) => [50 + 60 * a, 200 + 55 * a, 50 + 60 * a],
    blue: (a) => [80 + 60 * a, 80 + 60 * a, 205 + 50 * a],
    aqua: (a) => [50 + 60 * a, 165 + 55 * a, 165 + 55 * a],
    yellow: (a) => [175 + 55 * a, 175 + 55 * a, 50 + 20 * a],
    purple: (a) => [190 + 65 * a, 80 + 60 * a, 190 + 65 * a],
    orange: (a) => [190 + 65 * a, 90 + 65 * a, 0],
  };
  const LANG = ['red', 'aqua', 'yellow', 'orange', 'green']; // native, go/user, runtime, kernel, inlined
  const paletteName = D.colors in PALETTES || D.colors === 'lang' ? D.colors : 'hot';
  // one string per (name, palette class), made once: a draw sets thousands of fillStyles
  const colorCache = new Array(names.length * 5);
  function rgb(c) {
    return 'rgb(' + Math.round(c[0]) + ',' + Math.round(c[1]) + ',' + Math.round(c[2]) + ')';
  }
  function nameColor(k, kd) {
    const slot = paletteName === 'lang' ? k * 5 + (kd >= 0 && kd < 5 ? kd : 0) : k * 5;
    let c = colorCache[slot];
    if (c === undefined) {
      const pal = paletteName === 'lang' ? LANG[kd] || 'red' : paletteName;
      const [a, b, d] = hash3(names[k]);
      c = rgb(PALETTES[pal](a, b, d));
      colorCache[slot] = c;
    }
    return c;
  }
  function diffColor(delta, maxDelta) {
    if (delta === 0 || maxDelta === 0) return 'rgb(250,250,250)';
    const r = Math.min(1, Math.abs(delta) / maxDelta);
    const o = Math.round(220 * (1 - r));
    return delta > 0 ? 'rgb(255,' + o + ',' + o + ')' : 'rgb(' + o + ',' + o + ',255)';
  }
  const MATCH_COLOR = 'rgb(230,0,230)';

  // ---- Minimum drawn width
  function minPx(width) {
    const m = D.minwidth;
    if (typeof m === 'number' && m >= 0) return m;
    if (typeof m === 'string') {
      const p = parseFloat(m);
      if (m.trim().endsWith('%') && p >= 0) return width * p / 100;
      if (p >= 0) return p;
    }
    return 0.1;
  }

  // ---- A flame graph on a canvas. The tree is preorder arrays; a frame narrower than the
  // minimum width is skipped with its whole subtree (its children are no wider), which keeps a
  // draw proportional to what is visible, not to the tree.
  class Graph {
    constructor(box, opts) {
      this.box = box;
      this.canvas = box.querySelector('canvas.frames');
      this.over = box.querySelector('canvas.overlay');
      this.ctx = this.canvas.getContext('2d', { alpha: false });
      this.octx = this.over.getContext('2d');
      this.opts = opts; // {tree(), label(i), color(i), tip(i, zoom), onZoom(i)}
      this.zoom = 0;
      this.inverted = false;
      this.hover = -1;
      this.canvas.dataset.row = String(ROW);
      this.over.addEventListener('mousemove', (e) => this.onMove(e));
      this.over.addEventListener('mouseleave', () => this.setHover(-1, null));
      this.over.addEventListener('click', (e) => {
        const i = this.hit(e);
        if (i >= 0) this.opts.onZoom(i);
      });
    }
    rows() {
      return Math.min(this.opts.tree().maxDepth + 1, MAX_ROWS);
    }
    draw() {
      const T = this.opts.tree();
      const W = Math.max(1, this.box.clientWidth);
      const rows = this.rows();
      const H = rows * ROW;
      const dpr = window.devicePixelRatio || 1;
      for (const c of [this.canvas, this.over]) {
        c.width = Math.round(W * dpr);
        c.height = Math.round(H * dpr);
        c.style.height = H + 'px';
      }
      this.W = W;
      this.H = H;
      const g = this.ctx;
      g.setTransform(dpr, 0, 0, dpr, 0, 0);
      g.fillStyle = '#fff';
      g.fillRect(0, 0, W, H);
      g.font = '12px monospace';
      g.textBaseline = 'middle';
      this.charW = g.measureText('mmmmmmmmmm').width / 10 || 7;
      this.minPx = minPx(W);
      let z = this.zoom;
      if (!(z >= 0 && z < T.n)) z = this.zoom = 0;
      this.drawn = 0;
      // the zoomed frame's ancestors span the width, dimmed
      for (let a = T.parent[z]; a >= 0; a = T.parent[a]) this.frame(T, a, 0, W, true);
      const wz = T.w[z];
      if (wz > 0) {
        const k = W / wz;
        const x0 = T.x[z];
        const stop = T.end[z];
        for (let i = z; i < stop;) {
          const pw = T.w[i] * k;
          if (pw < this.minPx || pw <= 0 || T.depth[i] >= rows) {
            i = T.end[i];
            continue;
          }
          this.frame(T, i, (T.x[i] - x0) * k, pw, false);
          i++;
        }
      }
      this.canvas.dataset.drawn = String(this.drawn);
      this.setHover(-1, null);
    }
    y(d) {
      return this.inverted ? d * ROW : this.H - (d + 1) * ROW;
    }
    frame(T, i, x, w, dim) {
      const g = this.ctx;
      const y = this.y(T.depth[i]);
      if (dim) g.globalAlpha = 0.45;
      g.fillStyle = this.opts.color(i);
      g.fillRect(x, y + 0.5, Math.max(w - 0.5, 0.5), ROW - 1);
      this.drawn++;
      if (w > 4 * this.charW) {
        const room = Math.floor((w - 6) / this.charW);
        const s = this.opts.label(i);
        const t = s.length <= room ? s : s.slice(0, Math.max(room - 2, 1)) + '..';
        g.fillStyle = '#000';
        g.fillText(t, x + 3, y + ROW / 2 + 0.5, w - 4);
      }
      if (dim) g.globalAlpha = 1;
    }
    // Which frame is under the pointer: walk down from the zoomed frame along the row.
    hit(e) {
      const T = this.opts.tree();
      const r = this.over.getBoundingClientRect();
      const px = e.clientX - r.left;
      const py = e.clientY - r.top;
      if (px < 0 || py < 0 || px >= this.W || py >= this.H) return -1;
      const d = this.inverted ? Math.floor(py / ROW) : Math.floor((this.H - py) / ROW);
      const z = this.zoom;
      if (d < T.depth[z]) {
        let a = z;
        while (T.depth[a] > d) a = T.parent[a];
        return a;
      }
      const wz = T.w[z];
      if (!(wz > 0)) return -1;
      const k = this.W / wz;
      const xv = T.x[z] + px / k;
      let i = z;
      while (T.depth[i] < d) {
        let next = -1;
        for (let c = i + 1; c < T.end[i]; c = T.end[c]) {
          if (xv >= T.x[c] && xv < T.x[c] + T.w[c]) {
            next = c;
            break;
          }
        }
        if (next < 0) return -1;
        i = next;
      }
      return T.w[i] * k >= this.minPx && T.w[i] > 0 ? i : -1;
    }
    onMove(e) {
      this.setHover(this.hit(e), e);
    }
    setHover(i, e) {
      const o = this.octx;
      const dpr = window.devicePixelRatio || 1;
      o.setTransform(dpr, 0, 0, dpr, 0, 0);
      o.clearRect(0, 0, this.W || 0, this.H || 0);
      this.hover = i;
      const tip = $('tip');
      if (i < 0 || !e) {
        tip.classList.add('hidden');
        return;
      }
      const T = this.opts.tree();
      const z = this.zoom;
      let x = 0;
      let w = this.W;
      if (T.depth[i] >= T.depth[z]) {
        const k = this.W / T.w[z];
        x = (T.x[i] - T.x[z]) * k;
        w = T.w[i] * k;
      }
      o.strokeStyle = '#000';
      o.lineWidth = 1.5;
      o.strokeRect(x + 0.75, this.y(T.depth[i]) + 0.75, Math.max(w - 1.5, 1), ROW - 1.5);
      tip.replaceChildren(...this.opts.tip(i, z));
      tip.classList.remove('hidden');
      const tw = tip.offsetWidth;
      const th = tip.offsetHeight;
      let left = e.clientX + 14;
      let top = e.clientY + 16;
      if (left + tw > window.innerWidth - 4) left = Math.max(4, e.clientX - tw - 14);
      if (top + th > window.innerHeight - 4) top = Math.max(4, e.clientY - th - 12);
      tip.style.left = left + 'px';
      tip.style.top = top + 'px';
    }
  }

  // ---- State
  const st = { type: 0, view: D.inverted ? 'icicle' : 'flame', search: '', re: null, zoom: 0, fn: -1,
    time: null, tbase: null }; // time, tbase: [from, to) in seconds from the first sample
  st.type = D.default >= 0 && D.default < types.length ? D.default : types.length - 1;
  let td = null; // typeData(st.type)
  let match = null; // Uint8Array per name key: 1 = the search matches it

  function tipLines(i, z, val, self, bval, bself, label_, fileOf, inlineOf) {
    const t = types[st.type] || { unit: 'count' };
    const u = t.unit;
    const total = curTotal();
    const out = [el('div', 'tip-name', label_(i))];
    const f = fileOf(i);
    if (f) out.push(el('div', 'tip-file', f));
    if (inlineOf(i)) out.push(el('div', 'tip-file', '(inlined)'));
    out.push(el('div', '', 'Value: ' + label(val[i], u) + '  (' + pct(val[i], total) + ' of total' +
      (z > 0 && z !== i ? ', ' + pct(val[i], val[z]) + ' of zoomed frame' : '') + ')'));
    out.push(el('div', '', 'Self: ' + label(self[i], u) + '  (' + pct(self[i], total) + ')'));
    if (bval) {
      const dlt = val[i] - bval[i];
      out.push(el('div', '', 'Base: ' + label(bval[i], u) + '  (self ' + label(bself[i], u) + ')'));
      out.push(el('div', '', 'Delta: ' + (dlt > 0 ? '+' : '') + label(dlt, u) +
        (bval[i] !== 0 ? '  (' + (dlt >= 0 ? '+' : '-') + pct(dlt, bval[i]) + ')' : '  (new)')));
    }
    return out;
  }

  const mainGraph = new Graph($('graph-main'), {
    tree: () => td.tree,
    label: (i) => names[nameOf[i]],
    color: (i) => {
      if (match && match[fnOf[i]]) return MATCH_COLOR;
      if (td.bv) return diffColor(td.v[i] - td.bv[i], td.maxDelta);
      return nameColor(nameOf[i], inl[i] ? 4 : kind[i] | 0);
    },
    tip: (i, z) => tipLines(i, z, td.v, td.s, td.bv, td.bs, (j) => names[nameOf[j]],
      (j) => files[nameOf[j]] || '', (j) => inl[j] === 1),
    onZoom: (i) => {
      st.zoom = i;
      render();
    },
  });

  // ---- Search: a frame matches when its label matches the regexp. Matched% counts a match once
  // even when another match is nested inside it (flamegraph.pl's meaning).
  function setSearch(s) {
    st.search = s;
    st.re = null;
    match = null;
    $('search').classList.remove('bad');
    if (s !== '') {
      try {
        st.re = new RegExp(s);
      } catch (e) {
        $('search').classList.add('bad');
        $('search').title = e.message;
      }
    }
    if (st.re) {
      match = new Uint8Array(names.length);
      for (let k = 0; k < names.length; k++) if (canon[k] === k && st.re.test(names[k])) match[k] = 1;
    }
  }
  function matchedValue() {
    let sum = 0;
    const v = td.v;
    for (let i = 1; i < N;) {
      if (match[fnOf[i]]) {
        sum += v[i];
        i = end[i]; // nested matches are inside this one
      } else i++;
    }
    return sum;
  }

  // ---- Top table: flat = self summed over a name's nodes; cum = value summed over the nodes
  // of a name that have no ancestor of the same name (recursion counts once), as pprof-top.
  function flatCum(v, s) {
    const flat = new Float64Array(names.length);
    const cum = new Float64Array(names.length);
    const open = new Int32Array(names.length); // how many nodes of this name are on the path
    const path = [];
    for (let i = 1; i < N; i++) {
      while (path.length && path[path.length - 1] !== parent[i]) open[fnOf[path.pop()]]--;
      const k = fnOf[i];
      flat[k] += s[i];
      if (open[k] === 0) cum[k] += v[i];
      open[k]++;
      path.push(i);
    }
    return { flat, cum };
  }
  // v1.1: the writer's exact per-name numbers, computed before it pruned narrow subtrees
  function topOf(top, t) {
    if (!top || !Array.isArray(top.flat) || !Array.isArray(top.cum)) return null;
    const fl = top.flat[t];
    const cu = top.cum[t];
    if (!Array.isArray(fl) || !Array.isArray(cu) || fl.length !== names.length || cu.length !== names.length) return null;
    const flat = new Float64Array(names.length);
    const cum = new Float64Array(names.length);
    for (let k = 1; k < names.length; k++) {
      flat[canon[k]] += Number(fl[k]) || 0;
      cum[canon[k]] += Number(cu[k]) || 0;
    }
    return { flat, cum };
  }
  let topSort = { col: 'flat', desc: true };
  let topAll = false;
  function renderTop() {
    const u = (types[st.type] || {}).unit || 'count';
    const total = curTotal();
    // a time range has no writer's numbers: summed from its nodes
    const a = (!st.time && topOf(D.top, st.type)) || flatCum(td.v, td.s);
    const b = td.bv ? (!st.time && topOf(D.base.top, st.type)) || flatCum(td.bv, td.bs) : null;
    const rows = [];
    for (let k = 0; k < names.length; k++) {
      if (canon[k] !== k || k === 0) continue;
      const r = { k, name: names[k], flat: a.flat[k], cum: a.cum[k] };
      if (b) {
        r.bflat = b.flat[k];
        r.bcum = b.cum[k];
        r.delta = r.cum - r.bcum;
      }
      if (r.flat || r.cum || (b && (r.bflat || r.bcum))) rows.push(r);
    }
    const cols = [['flat', 'flat'], ['flatp', 'flat%'], ['sum', 'sum%'], ['cum', 'cum'], ['cump', 'cum%']];
    if (b) cols.push(['bflat', 'base flat'], ['bcum', 'base cum'], ['delta', 'delta cum']);
    cols.push(['name', 'name']);
    const key = { flatp: 'flat', cump: 'cum', sum: 'flat' }[topSort.col] || topSort.col;
    const dir = topSort.desc ? -1 : 1;
    rows.sort((p, q) => {
      let c;
      if (key === 'name') c = p.name < q.name ? -1 : p.name > q.name ? 1 : 0;
      else c = p[key] - q[key];
      if (c !== 0) return dir * c;
      if (p.flat !== q.flat) return q.flat - p.flat;
      if (p.cum !== q.cum) return q.cum - p.cum;
      return p.name < q.name ? -1 : p.name > q.name ? 1 : 0;
    });
    const thead = $('top').tHead;
    const hr = el('tr');
    for (const [id, text] of cols) {
      const th = el('th', '', text);
      th.dataset.col = id;
      if (id === topSort.col) th.className = topSort.desc ? 'sorted-desc' : 'sorted-asc';
      hr.append(th);
    }
    thead.replaceChildren(hr);
    const body = document.createDocumentFragment();
    const n = topAll ? rows.length : Math.min(rows.length, TOP_ROWS);
    let run = 0;
    for (let j = 0; j < n; j++) {
      const r = rows[j];
      run += r.flat;
      const tr = el('tr');
      tr.dataset.name = r.name;
      tr.dataset.flat = String(r.flat);
      tr.dataset.cum = String(r.cum);
      const cells = [label(r.flat, u), pct(r.flat, total), pct(run, total), label(r.cum, u), pct(r.cum, total)];
      if (b) {
        tr.dataset.bflat = String(r.bflat);
        tr.dataset.bcum = String(r.bcum);
        cells.push(label(r.bflat, u), label(r.bcum, u), (r.delta > 0 ? '+' : '') + label(r.delta, u));
      }
      cells.forEach((c, ci) => {
        const td_ = el('td', '', c);
        if (b && ci === cells.length - 1) td_.className = r.delta > 0 ? 'grew' : r.delta < 0 ? 'shrank' : '';
        tr.append(td_);
      });
      const nc = el('td', 'name');
      const btn = el('button', '', r.name);
      btn.type = 'button';
      btn.dataset.fn = String(r.k);
      btn.title = 'Callers and callees of this function';
      nc.append(btn);
      tr.append(nc);
      body.append(tr);
    }
    $('top').tBodies[0].replaceChildren(body);
    const more = $('top-more');
    if (n < rows.length) {
      more.textContent = 'Show all ' + rows.length + ' functions';
      more.classList.remove('hidden');
    } else more.classList.add('hidden');
  }
  $('top').tHead.addEventListener('click', (e) => {
    const th = e.target.closest('th');
    if (!th) return;
    const c = th.dataset.col;
    topSort = { col: c, desc: topSort.col === c ? !topSort.desc : c !== 'name' };
    renderTop();
  });
  $('top').tBodies[0].addEventListener('click', (e) => {
    const b = e.target.closest('button');
    if (!b) return;
    st.fn = Number(b.dataset.fn);
    st.view = 'callers';
    render();
  });
  $('top-more').addEventListener('click', () => {
    topAll = true;
    renderTop();
  });

  // ---- Callers/callees of one function, merged over every node of that name: the callees
  // tree merges the subtrees of the outermost occurrences (recursion counts once), the callers
  // tree merges the paths that lead to them, read upwards.
  function trieNode(k) {
    return { k, v: 0, s: 0, bv: 0, bs: 0, kids: new Map() };
  }
  function addVals(tn, i, withSelf) {
    tn.v += td.v[i];
    if (td.bv) tn.bv += td.bv[i];
    if (withSelf) {
      tn.s += td.s[i];
      if (td.bv) tn.bs += td.bs[i];
    }
  }
  function child(tn, k) {
    let c = tn.kids.get(k);
    if (!c) {
      c = trieNode(k);
      tn.kids.set(k, c);
    }
    return c;
  }
  // A trie rooted at the function, flattened to the preorder arrays a Graph draws.
  function mergedTree(f, starts, walk) {
    const root = trieNode(f);
    for (const i of starts) walk(i, root);
    const P = [];
    const K = [];
    const V = [];
    const S = [];
    const BV = [];
    const BS = [];
    const stack = [[root, -1]];
    while (stack.length) {
      const [node, p] = stack.pop();
      const id = P.length;
      P.push(p);
      K.push(node.k);
      V.push(node.v);
      S.push(node.s);
      BV.push(node.bv);
      BS.push(node.bs);
      // pushed in reverse name order so they come out by name
      const kids = [...node.kids.values()].sort((x, y) => (names[x.k] < names[y.k] ? 1 : names[x.k] > names[y.k] ? -1 : 0));
      for (const c of kids) stack.push([c, id]);
    }
    const n = P.length;
    const par = Int32Array.from(P);
    const en = new Int32Array(n);
    const dep = new Int32Array(n);
    let md = 0;
    for (let i = n - 1; i >= 0; i--) {
      if (en[i] === 0) en[i] = i + 1;
      if (par[i] >= 0 && en[par[i]] < en[i]) en[par[i]] = en[i];
    }
    for (let i = 1; i < n; i++) {
      dep[i] = dep[par[i]] + 1;
      if (dep[i] > md) md = dep[i];
    }
    const val = Float64Array.from(V);
    const bval = Float64Array.from(BV);
    // a function only in BASE is drawn by its BASE values, so it stays reachable
    const sizeBy = val[0] === 0 && td.bv ? bval : val;
    const tree = makeTree(n, par, en, dep, md, sizeBy);
    return { tree, k: Int32Array.from(K), v: val, s: Float64Array.from(S), bv: td.bv ? bval : null,
      bs: td.bv ? Float64Array.from(BS) : null };
  }
  function outermost(f) {
    const out = [];
    for (let i = 1; i < N;) {
      if (fnOf[i] === f) {
        out.push(i);
        i = end[i];
      } else i++;
    }
    return out;
  }
  let fnView = null; // {f, td, callers, callees}
  function buildFnView(f) {
    const occ = outermost(f);
    const callees = mergedTree(f, occ, (i, root) => {
      addVals(root, i, false);
      const stack = [[i, root]];
      while (stack.length) {
        const [j, tn] = stack.pop();
        if (fnOf[j] === f) {
          // self of the function counts wherever it recurs; the trie node of j has it too
          root.s += td.s[j];
          if (td.bv) root.bs += td.bs[j];
        }
        for (let c = j + 1; c < end[j]; c = end[c]) {
          const cn = child(tn, fnOf[c]);
          addVals(cn, c, true);
          stack.push([c, cn]);
        }
      }
    });
    const callers = mergedTree(f, occ, (i, root) => {
      addVals(root, i, false);
      let tn = root;
      for (let a = parent[i]; a > 0; a = parent[a]) {
        tn = child(tn, fnOf[a]);
        addVals(tn, i, false);
      }
    });
    callers.s[0] = callees.s[0];
    if (callers.bs) callers.bs[0] = callees.bs[0];
    return { f, td, callers, callees };
  }
  function fnGraph(box, which) {
    const g = new Graph(box, {
      tree: () => fnView[which].tree,
      label: (i) => names[fnView[which].k[i]],
      color: (i) => {
        const m = fnView[which];
        if (match && match[m.k[i]]) return MATCH_COLOR;
        if (m.bv) return diffColor(m.v[i] - m.bv[i], td.maxDelta);
        return nameColor(m.k[i], 0);
      },
      tip: (i, z) => {
        const m = fnView[which];
        return tipLines(i, z, m.v, m.s, m.bv, m.bs, (j) => names[m.k[j]], (j) => files[m.k[j]] || '',
          () => false);
      },
      onZoom: (i) => {
        g.zoom = i;
        g.draw();
      },
    });
    return g;
  }
  const callersGraph = fnGraph($('graph-callers'), 'callers');
  const calleesGraph = fnGraph($('graph-callees'), 'callees');
  calleesGraph.inverted = true;

  function edgeTable(tbl, rowsMap, u, heading) {
    const hr = el('tr');
    for (const h of [heading, 'value', 'of function'].concat(td.bv ? ['base', 'delta'] : [])) hr.append(el('th', '', h));
    tbl.tHead.replaceChildren(hr);
    const rows = [...rowsMap.entries()].sort((a, b) => b[1][0] - a[1][0] || b[1][1] - a[1][1]);
    const body = document.createDocumentFragment();
    const tot = fnView.callees.v[0];
    for (const [k, [v, bv]] of rows) {
      const tr = el('tr');
      tr.dataset.name = k < 0 ? '' : names[k];
      tr.dataset.value = String(v);
      if (td.bv) tr.dataset.base = String(bv);
      const nc = el('td', 'name');
      if (k >= 0) {
        const btn = el('button', '', names[k]);
        btn.type = 'button';
        btn.dataset.fn = String(k);
        nc.append(btn);
      } else nc.textContent = k === -1 ? '(root: no caller)' : '(self)';
      tr.append(nc, el('td', '', label(v, u)), el('td', '', pct(v, tot)));
      if (td.bv) tr.append(el('td', '', label(bv, u)), el('td', v - bv > 0 ? 'grew' : v - bv < 0 ? 'shrank' : '', (v - bv > 0 ? '+' : '') + label(v - bv, u)));
      body.append(tr);
    }
    tbl.tBodies[0].replaceChildren(body);
  }
  function renderCallers() {
    const u = (types[st.type] || {}).unit || 'count';
    if (!(st.fn > 0 && st.fn < names.length)) {
      $('fn-title').textContent = 'Choose a function in the Top table to see its callers and callees.';
      $('fn-note').textContent = '';
      for (const id of ['graph-callers', 'graph-callees', 'fn-tables']) $(id).classList.add('hidden');
      return;
    }
    for (const id of ['graph-callers', 'graph-callees', 'fn-tables']) $(id).classList.remove('hidden');
    const f = st.fn;
    if (!fnView || fnView.f !== f || fnView.td !== td) {
      fnView = buildFnView(f);
      fnView.td = td;
      callersGraph.zoom = 0;
      calleesGraph.zoom = 0;
    }
    const ce = fnView.callees;
    const cr = fnView.callers;
    const v = ce.v[0];
    const total = curTotal();
    $('fn-title').textContent = names[f];
    $('fn-note').textContent = 'cum ' + label(v, u) + ' (' + pct(v, total) + ' of total), flat ' +
      label(ce.s[0], u) + (td.bv ? '; base cum ' + label(ce.bv[0], u) : '') +
      '. Callers above, callees below, merged from every place it appears.';
    // the first step of each merged tree, with what stops there: no caller (a root frame) or self
    const add = (m, k, a, b) => {
      const e = m.get(k) || [0, 0];
      e[0] += a;
      e[1] += b;
      m.set(k, e);
    };
    const edges = (m, rest) => {
      const out = new Map();
      let seen = 0;
      let bseen = 0;
      for (let c = 1; c < m.tree.n; c = m.tree.end[c]) {
        add(out, m.k[c], m.v[c], m.bv ? m.bv[c] : 0);
        seen += m.v[c];
        bseen += m.bv ? m.bv[c] : 0;
      }
      const r = m.v[0] - seen;
      const br = m.bv ? m.bv[0] - bseen : 0;
      if (r || br) add(out, rest, r, br);
      return out;
    };
    const callers = edges(cr, -1);
    const callees = edges(ce, -2);
    edgeTable($('callers'), callers, u, 'caller');
    edgeTable($('callees'), callees, u, 'callee');
    callersGraph.inverted = false;
    callersGraph.draw();
    calleesGraph.draw();
  }
  for (const id of ['callers', 'callees']) {
    $(id).tBodies[0].addEventListener('click', (e) => {
      const b = e.target.closest('button');
      if (!b) return;
      st.fn = Number(b.dataset.fn);
      render();
    });
  }

  // ---- Graph view: the call graph of `go tool pprof -svg` (pprof_report_render), carried base64
  // in the page's #pprof-flame-graph element (docs/flame.md) and parsed as SVG when first shown.
  // Its own script is left out (the page's CSP would refuse it): panning and zooming are here.
  const G = $('pprof-flame-graph');
  const graphOk = !!G && G.dataset.state === 'ok';
  const gv = { svg: null, vp: null, s: 1, x: 0, y: 0, drag: null, fitted: false };
  if (graphOk) $('views').querySelector('[data-view="graph"]').classList.remove('hidden');
  else if (G && G.textContent.trim()) {
    // no graph in this page, and the page says why (e.g. a libpprof built without Graphviz)
    $('graph-note').textContent = G.textContent.trim();
    $('graph-note').classList.remove('hidden');
  }
  function graphLoad() {
    if (gv.svg) return true;
    let doc;
    try {
      const bin = atob(G.dataset.svg || '');
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      doc = new DOMParser().parseFromString(new TextDecoder().decode(bytes), 'image/svg+xml');
    } catch (e) {
      doc = null;
    }
    const root = doc && doc.documentElement;
    if (!root || root.localName !== 'svg' || doc.getElementsByTagName('parsererror').length) {
      say('The call graph in this page cannot be read.');
      return false;
    }
    // No script, handler or link out of the document: the page's CSP would refuse them, and a
    // profile string that became markup must not even leave a link to click (report-svg.c drops
    // them too). A reference inside the SVG ("#...") stays.
    for (const e of [...root.querySelectorAll('script, foreignObject')]) e.remove();
    for (const e of [root, ...root.querySelectorAll('*')]) {
      for (const a of [...e.attributes]) {
        const link = a.localName === 'href' && !a.value.trim().startsWith('#');
        if (/^on/i.test(a.name) || link) e.removeAttributeNode(a);
      }
    }
    gv.svg = document.importNode(root, true);
    gv.vp = gv.svg.querySelector('#viewport') || gv.svg.querySelector('g');
    $('graph-pane').append(gv.svg);
    return true;
  }
  function graphApply() {
    gv.vp.setAttribute('transform', 'translate(' + gv.x + ',' + gv.y + ') scale(' + gv.s + ')');
  }
  function graphFit() {
    const pane = $('graph-pane');
    pane.style.height = Math.max(300, innerHeight - pane.getBoundingClientRect().top - 24) + 'px';
    gv.vp.setAttribute('transform', '');
    const b = gv.vp.getBBox();
    const W = pane.clientWidth, H = pane.clientHeight;
    gv.s = b.width > 0 && b.height > 0 ? Math.min(W / b.width, H / b.height, 1) : 1;
    gv.x = (W - b.width * gv.s) / 2 - b.x * gv.s;
    gv.y = (H - b.height * gv.s) / 2 - b.y * gv.s;
    graphApply();
    gv.fitted = true;
  }
  function renderGraph() {
    if (!graphLoad()) return;
    $('message').classList.add('hidden');
    if (!gv.fitted) graphFit();
  }
  $('graph-pane').addEventListener('wheel', (e) => {
    if (!gv.svg) return;
    e.preventDefault();
    const r = $('graph-pane').getBoundingClientRect();
    const d = e.deltaY * (e.deltaMode === 1 ? 33 : e.deltaMode === 2 ? 400 : 1);
    const f = Math.pow(1.2, -d / 100);
    if (gv.s * f < 1e-3 || gv.s * f > 1e3) return;
    const px = e.clientX - r.left, py = e.clientY - r.top;
    gv.x = px - (px - gv.x) * f;
    gv.y = py - (py - gv.y) * f;
    gv.s *= f;
    graphApply();
  }, { passive: false });
  $('graph-pane').addEventListener('mousedown', (e) => {
    if (e.button !== 0 || !gv.svg) return;
    gv.drag = { cx: e.clientX, cy: e.clientY, x: gv.x, y: gv.y };
    $('graph-pane').classList.add('dragging');
    e.preventDefault();
  });
  window.addEventListener('mousemove', (e) => {
    if (!gv.drag) return;
    gv.x = gv.drag.x + e.clientX - gv.drag.cx;
    gv.y = gv.drag.y + e.clientY - gv.drag.cy;
    graphApply();
  });
  window.addEventListener('mouseup', () => {
    gv.drag = null;
    $('graph-pane').classList.remove('dragging');
  });

  // ---- Time (docs/flame.md "Time"): the samples' times, one entry per sample (or per frame and
  // 20 ms slice) as ticks since the entry before and the key of its (node, ends there, values).
  // A range keeps the entries in [from, to) and sums them up the tree again.
  // decoded on first use: a page opened without a range pays only for JSON.parse
  const hasTime = !!D.time && typeof D.time === 'object' && Array.isArray(D.time.samples) && D.time.samples.length > 0;
  let TM;
  let timeErr = ''; // why the times could not be read, shown in the status line
  function timeData() {
    if (TM === undefined) TM = hasTime ? decodeTime(D.time) : null;
    return TM;
  }
  function decodeTime(T) {
    if (!T || typeof T !== 'object') return null;
    const k = T.keys || {};
    const smp = T.samples;
    const nt = types.length;
    const nk = Array.isArray(k.node) ? k.node.length : -1;
    const fail = (why) => {
      timeErr = 'The times in this page cannot be read: ' + why + '; the Time view is left out.';
      return null;
    };
    if (nk < 0 || !Array.isArray(k.self) || k.self.length !== nk || !Array.isArray(k.value) || k.value.length !== nt ||
      k.value.some((a) => !Array.isArray(a) || a.length !== nk)) return fail('keys of unequal lengths');
    if (!Array.isArray(smp) || smp.length % 2 || !(T.tick > 0)) return fail('samples or tick missing');
    const kNode = Int32Array.from(k.node);
    for (const x of kNode) if (!(x >= 0 && x < N)) return fail('a key names no node');
    const kSelf = Uint8Array.from(k.self);
    const kVal = k.value.map((a) => Float64Array.from(a));
    const n = smp.length / 2;
    const t = new Float64Array(n);
    const key = new Int32Array(n);
    const f = T.tick / 1e9;
    let ticks = 0;
    for (let i = 0; i < n; i++) {
      const d = smp[2 * i];
      const kk = smp[2 * i + 1];
      if (!(d >= 0) || !(kk >= 0 && kk < nk)) return fail('sample ' + i + ' is out of range');
      ticks += d;
      t[i] = ticks * f;
      key[i] = kk;
    }
    if (!n) return null;
    const slice = T.slice > 0 ? T.slice / 1e9 : 0;
    return { n, t, key, kNode, kSelf, kVal, dur: t[n - 1] + (slice || 1e-9), start: String(T.start || '') };
  }
  if (hasTime) $('views').querySelector('[data-view="time"]').classList.remove('hidden');

  function parseRange(s) {
    const m = /^(\d+(?:\.\d*)?|\.\d+)-(\d+(?:\.\d*)?|\.\d+)$/.exec(s || '');
    if (!m) return null;
    const a = Number(m[1]);
    const b = Number(m[2]);
    return b > a ? [a, b] : null;
  }
  function num(x) {
    return String(Number(x.toFixed(3)));
  }
  function rangeText(r, plain) {
    return plain ? num(r[0]) + '-' + num(r[1]) : num(r[0]) + '\u2013' + num(r[1]) + ' s';
  }
  function curTotal() {
    return st.time ? td.v[0] : D.total[st.type];
  }
  // the first entry at or after time x (times are sorted)
  function lowerBound(x) {
    const T = timeData();
    let lo = 0;
    let hi = T.n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (T.t[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  function rangeValues(t, r) {
    const T = timeData();
    const v = new Float64Array(N);
    const s = new Float64Array(N);
    const kv = T.kVal[t];
    const end_ = lowerBound(r[1]);
    for (let i = lowerBound(r[0]); i < end_; i++) {
      const k = T.key[i];
      const node = T.kNode[k];
      v[node] += kv[k];
      if (T.kSelf[k]) s[node] += kv[k];
    }
    for (let i = N - 1; i > 0; i--) v[parent[i]] += v[i];
    return { v, s };
  }
  let rangeCache = null;
  function rangeTd() {
    const id = st.type + '|' + st.time.join('-') + '|' + (st.tbase ? st.tbase.join('-') : '');
    if (rangeCache && rangeCache.id === id) return rangeCache.td;
    const a = rangeValues(st.type, st.time);
    const b = st.tbase ? rangeValues(st.type, st.tbase) : null;
    const r = { v: a.v, s: a.s, bv: b ? b.v : null, bs: b ? b.s : null, maxDelta: 0, tree: null };
    if (b) {
      // the base scaled to the range's total, as --normalize: ranges of other lengths compare
      const f = b.v[0] !== 0 ? a.v[0] / b.v[0] : 1;
      for (let i = 0; i < N; i++) {
        r.bv[i] *= f;
        r.bs[i] *= f;
      }
      for (let i = N > 1 ? 1 : 0; i < N; i++) r.maxDelta = Math.max(r.maxDelta, Math.abs(r.v[i] - r.bv[i]));
    }
    r.tree = makeTree(N, parent, end, depth, maxDepth, r.v);
    rangeCache = { id, td: r };
    return r;
  }

  // The heat map: a column per second, 50 rows of 20 ms (the first at the top), each cell
  // coloured by the chosen type's value in it, as FlameScope draws.
  const ROWS = 50;
  const hm = { cols: 0, cw: 0, ch: 8, cells: null, max: 0, type: -1, drag: null };
  function heatCells() {
    const T = timeData();
    if (hm.type === st.type && hm.cells) return;
    hm.cols = Math.max(1, Math.ceil(T.dur));
    hm.cells = new Float64Array(hm.cols * ROWS);
    const kv = T.kVal[st.type];
    for (let i = 0; i < T.n; i++) {
      const c = Math.min(hm.cols * ROWS - 1, Math.floor(T.t[i] * ROWS));
      hm.cells[c] += kv[T.key[i]];
    }
    hm.max = 0;
    for (const x of hm.cells) hm.max = Math.max(hm.max, Math.abs(x));
    hm.type = st.type;
  }
  function cellColor(x) {
    if (x === 0 || hm.max === 0) return 'rgb(255,255,255)';
    const r = Math.min(1, Math.abs(x) / hm.max);
    const o = Math.round(235 * (1 - r));
    return 'rgb(255,' + o + ',' + Math.round(o * 0.85) + ')';
  }
  function renderTime() {
    const T = timeData();
    heatCells();
    const box = $('heat-box');
    const W = Math.max(200, box.clientWidth);
    // cells fill the pane up to 60 px wide, are at least 6 px, and narrower only for recordings
    // so long that the canvas would pass 30,000 px (browsers stop drawing past about 32k)
    hm.cw = Math.max(1, Math.min(60, Math.max(Math.floor((W - 1) / hm.cols), Math.min(6, Math.floor(30000 / hm.cols)))));
    const w = Math.max(hm.cols * hm.cw + 1, 60);
    const h = ROWS * hm.ch + 1 + 16; // and a line of second marks below
    const dpr = window.devicePixelRatio || 1;
    for (const c of [$('heat'), $('heat-over')]) {
      c.width = Math.round(w * dpr);
      c.height = Math.round(h * dpr);
      c.style.width = w + 'px';
      c.style.height = h + 'px';
    }
    const g = $('heat').getContext('2d', { alpha: false });
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.fillStyle = '#eee';
    g.fillRect(0, 0, w, h);
    for (let c = 0; c < hm.cols; c++) {
      for (let r = 0; r < ROWS; r++) {
        g.fillStyle = cellColor(hm.cells[c * ROWS + r]);
        g.fillRect(c * hm.cw + 1, r * hm.ch + 1, Math.max(1, hm.cw - 1), hm.ch - 1);
      }
    }
    g.fillStyle = '#fff';
    g.fillRect(0, ROWS * hm.ch + 1, w, 16);
    g.fillStyle = '#444';
    g.font = '10px sans-serif';
    g.textBaseline = 'top';
    const every = Math.max(1, Math.ceil(30 / hm.cw)); // a mark every 30 px at least
    for (let c = 0; c < hm.cols; c += every) g.fillText(c + ' s', c * hm.cw + 2, ROWS * hm.ch + 3);
    const ty = types[st.type] || { type: '' };
    $('heat').dataset.cols = String(hm.cols);
    $('heat').dataset.rows = String(ROWS);
    $('heat').dataset.cw = String(hm.cw);
    $('heat').dataset.ch = String(hm.ch);
    $('time-note').textContent = T.n + ' samples over ' + num(T.dur) + ' s; colour: ' + ty.type +
      ' per 20 ms. ' + (st.time ? 'Range ' + rangeText(st.time) + (st.tbase ? ', base ' + rangeText(st.tbase) : '') +
        ': the other views show it.' : 'Drag across the map to choose a range.');
    $('time-base').disabled = !st.time;
    $('time-nobase').disabled = !st.tbase;
    $('time-clear').disabled = !st.time;
    heatOverlay(null);
  }
  function cellAt(e) {
    const r = $('heat-over').getBoundingClientRect();
    const c = Math.floor((e.clientX - r.left - 1) / hm.cw);
    const w = Math.floor((e.clientY - r.top - 1) / hm.ch);
    if (c < 0 || c >= hm.cols || w < 0 || w >= ROWS) return -1;
    return c * ROWS + w;
  }
  function outline(o, r, color) {
    // the cells whose slice lies in [from, to), column by column
    const a = Math.max(0, Math.round(r[0] * ROWS));
    const b = Math.min(hm.cols * ROWS, Math.round(r[1] * ROWS));
    o.fillStyle = color;
    for (let i = a; i < b; i++) {
      const c = Math.floor(i / ROWS);
      const w = i % ROWS;
      o.fillRect(c * hm.cw + 1, w * hm.ch + 1, hm.cw - 1, hm.ch - 1);
    }
  }
  function heatOverlay(sel) {
    const o = $('heat-over').getContext('2d');
    const dpr = window.devicePixelRatio || 1;
    o.setTransform(dpr, 0, 0, dpr, 0, 0);
    o.clearRect(0, 0, $('heat-over').width, $('heat-over').height);
    if (st.tbase) outline(o, st.tbase, 'rgba(30,90,220,0.45)');
    const r = sel || st.time;
    if (r) outline(o, r, 'rgba(0,0,0,0.35)');
  }
  function dragRange(a, b) {
    const lo = Math.min(a, b);
    const hi = Math.max(a, b) + 1;
    return [lo / ROWS, hi / ROWS];
  }
  $('heat-over').addEventListener('mousedown', (e) => {
    const c = cellAt(e);
    if (e.button !== 0 || c < 0) return;
    hm.drag = { from: c, to: c };
    heatOverlay(dragRange(c, c));
    e.preventDefault();
  });
  $('heat-over').addEventListener('mousemove', (e) => {
    const c = cellAt(e);
    const tip = $('tip');
    if (hm.drag && c >= 0) {
      hm.drag.to = c;
      heatOverlay(dragRange(hm.drag.from, c));
    }
    if (c < 0) {
      tip.classList.add('hidden');
      return;
    }
    const ty = types[st.type] || { type: '', unit: 'count' };
    const t0 = c / ROWS;
    tip.replaceChildren(el('div', 'tip-name', num(t0) + '\u2013' + num(t0 + 1 / ROWS) + ' s'),
      el('div', '', ty.type + ': ' + label(hm.cells[c], ty.unit) + '  (' + pct(hm.cells[c], hm.max) + ' of the hottest slice)'));
    tip.classList.remove('hidden');
    tip.style.left = Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 4) + 'px';
    tip.style.top = Math.min(e.clientY + 16, window.innerHeight - tip.offsetHeight - 4) + 'px';
  });
  $('heat-over').addEventListener('mouseleave', () => $('tip').classList.add('hidden'));
  window.addEventListener('mouseup', () => {
    if (!hm.drag) return;
    const r = dragRange(hm.drag.from, hm.drag.to);
    hm.drag = null;
    $('tip').classList.add('hidden');
    st.time = r;
    st.zoom = 0;
    st.view = 'flame';
    render();
  });
  $('time-base').addEventListener('click', () => {
    if (!st.time) return;
    st.tbase = st.time;
    st.time = null;
    st.zoom = 0;
    render();
  });
  $('time-nobase').addEventListener('click', () => {
    st.tbase = null;
    render();
  });
  $('time-clear').addEventListener('click', () => {
    st.time = null;
    st.tbase = null;
    st.zoom = 0;
    render();
  });

  // ---- URL fragment: #type=&search=&zoom=&view=&fn=&time=&tbase=
  function readHash() {
    const h = location.hash.replace(/^#/, '');
    const q = new URLSearchParams(h);
    const t = q.get('type');
    if (t !== null) {
      const i = types.findIndex((x) => x.type === t);
      if (i >= 0) st.type = i;
    }
    const v = q.get('view');
    if (['flame', 'icicle', 'top', 'callers'].includes(v) || (v === 'graph' && graphOk) || (v === 'time' && hasTime)) st.view = v;
    st.time = hasTime ? parseRange(q.get('time')) : null;
    st.tbase = hasTime ? parseRange(q.get('tbase')) : null;
    const z = Number(q.get('zoom'));
    st.zoom = Number.isInteger(z) && z >= 0 && z < N ? z : 0;
    const fn = q.get('fn');
    st.fn = fn !== null && keyOf.has(fn) ? keyOf.get(fn) : -1;
    const s = q.get('search') || '';
    $('search').value = s;
    setSearch(s);
  }
  let lastHash = '';
  function writeHash() {
    const q = new URLSearchParams();
    q.set('type', (types[st.type] || {}).type || '');
    if (st.search) q.set('search', st.search);
    if (st.zoom) q.set('zoom', String(st.zoom));
    q.set('view', st.view);
    if (st.fn > 0) q.set('fn', names[st.fn]);
    if (st.time) q.set('time', rangeText(st.time, true));
    if (st.tbase) q.set('tbase', rangeText(st.tbase, true));
    const h = '#' + q.toString();
    if (h === location.hash) return;
    lastHash = h;
    try {
      history.replaceState(null, '', h);
    } catch (e) {
      location.hash = h;
    }
  }
  window.addEventListener('hashchange', () => {
    if (location.hash === lastHash) return;
    readHash();
    render();
  });

  // ---- Rendering the whole page from the state
  function crumbs() {
    const c = $('crumbs');
    const path = [];
    for (let a = st.zoom; a >= 0; a = parent[a]) path.push(a);
    path.reverse();
    const parts = [];
    path.forEach((a, j) => {
      if (j) parts.push(el('span', 'sep', '\u203a'));
      const b = el('button', '', a === 0 ? 'all' : names[nameOf[a]]);
      b.type = 'button';
      b.dataset.node = String(a);
      parts.push(b);
    });
    c.replaceChildren(...parts);
  }
  $('crumbs').addEventListener('click', (e) => {
    const b = e.target.closest('button');
    if (!b) return;
    st.zoom = Number(b.dataset.node);
    render();
  });

  function empty() {
    return N <= 1 && D.total.every((x) => x === 0);
  }
  function render() {
    if ((st.time || st.tbase || st.view === 'time') && !timeData()) {
      // the times could not be read (the message says why): the whole profile instead
      st.time = st.tbase = null;
      if (st.view === 'time') st.view = 'flame';
      $('views').querySelector('[data-view="time"]').classList.add('hidden');
    }
    td = st.time ? rangeTd() : typeData(st.type);
    const t = types[st.type] || { type: '', unit: 'count' };
    $('type').value = String(st.type);
    const total = curTotal();
    $('total').textContent = 'Total: ' + label(total, t.unit) + ' ' + t.type;
    const rg = $('range');
    if (timeErr) {
      rg.textContent = timeErr;
      rg.classList.remove('hidden');
    } else if (st.time || st.tbase) {
      rg.textContent = st.time ? 'Time: ' + rangeText(st.time) + (st.tbase ? ' against base ' + rangeText(st.tbase) : '')
        : 'Time base: ' + rangeText(st.tbase) + ' (drag a range in Time to compare)';
      rg.classList.remove('hidden');
    } else rg.classList.add('hidden');
    for (const b of $('views').querySelectorAll('button')) b.classList.toggle('on', b.dataset.view === st.view);
    const m = $('matched');
    if (match) {
      // two decimals always, so a link's figure reads the same whatever its size
      m.textContent = 'Matched: ' + (total !== 0 ? (100 * matchedValue() / total).toFixed(2) : '0.00') + '%';
      m.classList.remove('hidden');
    } else m.classList.add('hidden');
    const graph = st.view === 'flame' || st.view === 'icicle';
    $('flame-pane').classList.toggle('hidden', !graph);
    $('crumbs').classList.toggle('hidden', !graph);
    $('top-pane').classList.toggle('hidden', st.view !== 'top');
    $('callers-pane').classList.toggle('hidden', st.view !== 'callers');
    $('graph-pane').classList.toggle('hidden', st.view !== 'graph');
    $('time-pane').classList.toggle('hidden', st.view !== 'time');
    if (empty()) {
      say('This profile has no samples.');
      $('main').classList.add('hidden');
    } else if (graph) {
      if (td.tree.w[0] === 0) say('No samples of type ' + t.type + ' in this profile.');
      else $('message').classList.add('hidden');
      mainGraph.zoom = st.zoom;
      mainGraph.inverted = st.view === 'icicle';
      mainGraph.draw();
      crumbs();
    } else {
      $('message').classList.add('hidden');
      if (st.view === 'top') renderTop();
      else if (st.view === 'graph') renderGraph();
      else if (st.view === 'time') renderTime();
      else renderCallers();
    }
    writeHash();
  }

  // ---- Controls
  const sel = $('type');
  types.forEach((t, i) => {
    const o = el('option', '', String(t.type) + ' (' + String(t.unit) + ')');
    o.value = String(i);
    sel.append(o);
  });
  sel.addEventListener('change', () => {
    st.type = Number(sel.value);
    render();
  });
  $('views').addEventListener('click', (e) => {
    const b = e.target.closest('button');
    if (!b) return;
    st.view = b.dataset.view;
    render();
  });
  let searchTimer = 0;
  $('search').addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => {
      setSearch($('search').value);
      render();
    }, 120);
  });
  $('search').addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      clearTimeout(searchTimer);
      setSearch($('search').value);
      render();
    }
  });
  function reset() {
    st.zoom = 0;
    gv.fitted = false; // the graph view fits the graph again
    $('search').value = '';
    setSearch('');
    render();
  }
  $('reset').addEventListener('click', reset);
  document.addEventListener('keydown', (e) => {
    const inField = e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement;
    if (e.key === '/' && !inField && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      $('search').focus();
      $('search').select();
    } else if (e.key === 'Escape') {
      if (inField) e.target.blur();
      clearTimeout(searchTimer);
      reset();
    }
  });
  let resizeTimer = 0;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(render, 100);
  });

  readHash();
  render();
  performance.mark('pprof-flame-first-draw');
  document.body.dataset.state = 'ready';
})();
