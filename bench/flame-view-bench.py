#!/usr/bin/env python3
"""Time to the first drawn frame of flame graph files in headless Chromium (docs/bench/flame.md).

usage: bench/flame-view-bench.py [--runs N] FILE...   (.html pages of pprof-flame, .svg of
                                                      flamegraph.pl or pprof-flame)

Each file is opened from file:// in one headless Chromium (tests/flame/browser.py: the flags
the browser tests use, a fresh profile directory), after about:blank, N times. Printed per file,
the median over the runs, in ms from the start of navigation:
  fcp     first-contentful-paint (the browser's own paint timing, the same rule for both kinds)
  drawn   the viewer's 'pprof-flame-first-draw' mark (HTML only: its canvas is filled)
  load    loadEventEnd
  hover   (HTML) handling one mousemove over the widest frame of the second row, ms
  zoom    (HTML) handling a click that zooms to it (the whole redraw), ms
  reset   (HTML) handling Esc back to the root (the largest redraw), ms
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'flame'))
import browser  # noqa: E402

INTERACT = """
const o = document.querySelector('#graph-main canvas.overlay');
if (!o) return [null, null, null];
const r = o.getBoundingClientRect();
const row = Number(document.querySelector('#graph-main canvas.frames').dataset.row);
const x = r.left + r.width * 0.37, y = r.top + r.height - 1.5 * row;
window.scrollTo(0, 0);
const ev = (t) => new MouseEvent(t, { clientX: x, clientY: y, bubbles: true });
let t = performance.now();
o.dispatchEvent(ev('mousemove'));
const hover = performance.now() - t;
t = performance.now();
o.dispatchEvent(ev('click'));
const zoom = performance.now() - t;
t = performance.now();
document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
const reset = performance.now() - t;
return [hover, zoom, reset];
"""

PROBE = """
const p = performance.getEntriesByType('paint').find(e => e.name === 'first-contentful-paint');
const m = performance.getEntriesByName('pprof-flame-first-draw')[0];
const n = performance.getEntriesByType('navigation')[0];
return [p ? p.startTime : null, m ? m.startTime : null, n && n.loadEventEnd ? n.loadEventEnd : null];
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('files', nargs='+')
    a = ap.parse_args()
    r = browser.skip_reason()
    if r:
        sys.exit('flame-view-bench: ' + r)
    b = browser.Browser(width=1200, height=900)
    b.d.set_page_load_timeout(900)
    try:
        print('%-40s %10s %10s %10s %8s %8s %8s %8s' % ('file', 'fcp ms', 'drawn ms', 'load ms', 'MB', 'hover', 'zoom', 'reset'))
        for f in a.files:
            res = []
            for _ in range(a.runs):
                b.d.get('about:blank')
                b.d.get('file://' + os.path.abspath(f))
                t0 = time.time()
                while True:  # paint timing is reported after the frame is presented
                    v = b.js(PROBE)
                    if v[0] is not None and v[2] is not None or time.time() - t0 > 60:
                        break
                    time.sleep(0.05)
                v += b.js(INTERACT) if f.endswith('.html') else [None, None, None]
                res.append(v)
            med = [statistics.median([x[k] for x in res if x[k] is not None]) if any(x[k] is not None for x in res)
                   else float('nan') for k in range(6)]
            print('%-40s %10.0f %10.0f %10.0f %8.1f %8.1f %8.1f %8.1f' % (os.path.basename(f), med[0], med[1], med[2],
                                                                        os.path.getsize(f) / 1e6, med[3], med[4], med[5]))
    finally:
        b.close()


if __name__ == '__main__':
    main()
