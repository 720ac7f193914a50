/* Placeholder viewer: shows the title and the size of the data, nothing more. The real viewer
 * (flame and icicle views, search, top table) replaces these three files; the data contract is
 * docs/flame.md. Names are written with textContent only. */
(function () {
  'use strict';
  var el = document.getElementById('pprof-flame-data');
  var text = el ? el.textContent : '';
  var data = JSON.parse(text);
  document.getElementById('title').textContent = data.title;
  var n = data.nodes.parent.length;
  var empty = data.total.every(function (v) { return v === 0; });
  document.getElementById('summary').textContent = empty
    ? 'No samples in ' + data.source + '.'
    : data.source + ': ' + n + ' frames, ' + data.names.length + ' names, ' + text.length +
      ' bytes of data' + (data.pruned ? ' (' + data.pruned + ' small frames not included)' : '') + '.';
})();
