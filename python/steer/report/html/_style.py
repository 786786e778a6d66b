"""The report's inline stylesheet and script (nothing is fetched at view time)."""

CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1200px;
       padding: 1em 2em; color: #222; }
h1 { font-size: 1.6em; margin-bottom: .2em; }
h2 { border-bottom: 1px solid #ddd; margin-top: 1.6em; }
.meta { color: #666; }
.cards { display: flex; flex-wrap: wrap; gap: 1em; }
.card { border: 1px solid #ddd; border-radius: 8px; padding: .6em 1em; min-width: 180px; }
.card .letter { font-size: 2.4em; font-weight: 700; }
table { border-collapse: collapse; margin: .5em 0; }
td, th { padding: 2px 8px; text-align: right; }
td:first-child, th:first-child { text-align: left; } tr:nth-child(even) { background: #f6f6f6; }
.swatch { display: inline-block; width: .9em; height: .9em; border-radius: 2px;
          vertical-align: -1px; }
details { margin: .2em 0 .2em 1em; } summary { cursor: pointer; }
.sev-error { color: #b00020; font-weight: 600; }
.sev-warning { color: #a15c00; } .sev-info { color: #555; }
.scroll { overflow-x: auto; }
/* Long model titles wrap in table headers instead of widening the table. */
table.elements th { max-width: 11em; overflow-wrap: anywhere; vertical-align: bottom; }
#diagnostics td, #metadata td, #metadata th { text-align: left; vertical-align: top; }
.run-meta { border: 1px solid #ddd; border-radius: 8px; padding: .4em .8em; max-width: 36em; }
.run-meta td { overflow-wrap: anywhere; }
.figure svg { max-width: none; height: auto; }
/* Linked heatmap cells are transparent (fill: none): make them clickable anyway. */
.figure a path { pointer-events: all; cursor: pointer; }
#answers pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f6f6;
               padding: .4em .6em; margin: .2em 0; }
#answers dt { font-weight: 600; margin-top: .4em; } #answers dd { margin-left: 1em; }
#answers li.key { font-weight: 600; } #answers .mark { color: #0072B2; }
details.answer.wrong > summary, details.answer.error > summary,
details.answer.no-answer > summary { color: #b00020; }
details.cell:target > summary, details.cell:target { background: #fff6d5; }
"""

JS = """
// Following a link to a cell (#cell-…) opens it, its answers' first entry
// and every <details> around it, so the reply is one click away.
function openTarget() {
  var id = decodeURIComponent(location.hash.slice(1));
  var el = id && document.getElementById(id);
  if (!el) return;
  for (var d = el; d; d = d.parentElement) { if (d.tagName === 'DETAILS') d.open = true; }
  var first = el.querySelector('details.answer');
  if (first) first.open = true;
  el.scrollIntoView();
}
window.addEventListener('hashchange', openTarget);
document.addEventListener('DOMContentLoaded', openTarget);
document.addEventListener('DOMContentLoaded', function () {
  var pick = document.getElementById('graph-model');
  if (!pick) return;
  // Each card's graph is in a div naming the card: show the picked one, taking
  // it out of its <template> the first time.
  function show() {
    document.querySelectorAll('div.dependency-graph').forEach(function (g) {
      var picked = g.getAttribute('data-model') === pick.value;
      var waiting = picked && g.querySelector(':scope > template');
      if (waiting) g.replaceChild(document.importNode(waiting.content, true), waiting);
      g.style.display = picked ? '' : 'none';
    });
  }
  pick.addEventListener('change', show);
  show();
});
"""
