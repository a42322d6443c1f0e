"""What the layout tests measure in the page, as the browser drew it (issue 27 §4 and §5): each a JavaScript
function for ``page.evaluate``, so the figures are Chromium's boxes and colours, never the code's own numbers."""

from __future__ import annotations

# The page's width against the window, and any box of the panel that scrolls its own content sideways.
OVERFLOW = """() => {
  const doc = document.documentElement;
  const wide = [...document.querySelectorAll('#changelist .results, .moderation-panel, #content-main, table')]
    .filter(e => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible')
    .map(e => (e.id || e.className || e.tagName) + ' ' + e.scrollWidth + '>' + e.clientWidth);
  return {page: doc.scrollWidth, inner: window.innerWidth, scrollers: wide};
}"""

# The action buttons' boxes against the heading's.
OVERLAPS = """() => {
  const boxes = sel => [...document.querySelectorAll(sel)].filter(e => e.offsetParent !== null)
    .map(e => ({name: e.textContent.trim().slice(0, 40), r: e.getBoundingClientRect()}));
  const heads = boxes('#content > h1, #content > h2, #content-main > h1, #content-main > h2');
  const buttons = boxes('.object-tools a');
  const hit = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const out = [];
  for (const b of buttons) for (const h of heads) if (hit(b.r, h.r)) out.push(b.name + ' × ' + h.name);
  return {overlaps: out, buttons: buttons.length, heads: heads.length};
}"""

# Every visible text with two ellipses in a row ("……", "...…", "… ..."), in the page's text, its buttons' and
# options' labels and its pictures; and every box that CSS clips with an ellipsis (text-overflow) while its own text
# already ends with one, which the reader sees as two.
DOUBLED_ELLIPSIS = """() => {
  const twice = /(…|\\.\\.)[\\s\\u00a0]*(…|\\.\\.\\.)|…[\\s\\u00a0]*\\.\\./;
  const texts = [document.body.innerText,
    ...[...document.querySelectorAll('input[type=submit], input[type=button], button, option, svg text, title')]
      .map(e => e.value || e.textContent || '')];
  const out = [];
  for (const text of texts) {
    for (const line of text.split('\\n')) if (twice.test(line)) out.push(line.trim().slice(0, 80));
  }
  for (const e of document.querySelectorAll('body *')) {
    const s = getComputedStyle(e);
    if (s.textOverflow === 'ellipsis' && e.scrollWidth > e.clientWidth + 1 && /(…|\\.\\.\\.)\\s*$/.test(e.textContent))
      out.push('clipped with an ellipsis after its own: ' + e.textContent.trim().slice(0, 80));
  }
  return out;
}"""

# Every visible piece of text in the page's content (not in pictures: those are measured with their own shapes):
# its colour, the colour behind it (the nearest box with a background), its size and weight.
TEXT_COLOURS = """() => {
  const colour = (c) => {
    const m = (c.match(/[\\d.]+/g) || []).map(Number);
    return m.length < 3 || (m.length > 3 && m[3] === 0) ? null : m.slice(0, 3);
  };
  const behind = (e) => {
    for (; e; e = e.parentElement) { const c = colour(getComputedStyle(e).backgroundColor); if (c) return c; }
    return [255, 255, 255];
  };
  const root = document.querySelector('#container') || document.body;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const seen = new Set(), out = [];
  while (walker.nextNode()) {
    const node = walker.currentNode, e = node.parentElement;
    if (!node.textContent.trim() || !e || seen.has(e) || e.closest('svg, option, script, style, noscript')) continue;
    seen.add(e);
    if (!e.getClientRects().length) continue;
    const s = getComputedStyle(e);
    if (s.visibility === 'hidden' || parseFloat(s.opacity) < 0.1) continue;
    const cls = typeof e.className === 'string' && e.className ? '.' + e.className : '';
    out.push({text: node.textContent.trim().slice(0, 40), fg: colour(s.color), bg: behind(e),
              size: parseFloat(s.fontSize), bold: parseInt(s.fontWeight, 10) >= 700,
              where: e.tagName.toLowerCase() + cls});
  }
  return out;
}"""
