// measure.js returns the layout facts that the Go checks judge, read from the
// browser's own layout (getBoundingClientRect, Range.getClientRects, the SVG
// screen CTM). It judges nothing itself. Boxes are in CSS pixels of the page
// (scroll offsets added), as {x, y, w, h}.
(() => {
  const sx = window.scrollX, sy = window.scrollY;
  const box = (r) => ({x: r.left + sx, y: r.top + sy, w: r.width, h: r.height});
  const short = (s) => (s || '').replace(/\s+/g, ' ').trim().slice(0, 80);
  const name = (el) => {
    let n = el.tagName.toLowerCase();
    if (el.id) n += '#' + el.id;
    const c = el.getAttribute('class');
    if (c) n += '.' + c.trim().split(/\s+/).join('.');
    return n;
  };
  const shown = (el) => el.checkVisibility({opacityProperty: true, visibilityProperty: true});
  // Inside an element that scrolls sideways (a table in a scroll wrapper).
  const inScroller = (el) => {
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX;
      if (o === 'auto' || o === 'scroll') return true;
    }
    return false;
  };
  const vw = document.documentElement.clientWidth;
  const out = {
    innerWidth: window.innerWidth,
    clientWidth: vw,
    scrollWidth: document.documentElement.scrollWidth,
    viewportMeta: (document.querySelector('meta[name="viewport"]') || {content: ''}).content || '',
    wide: [], texts: [], svgs: [],
  };
  if (!document.body) return out;

  // Elements past the right edge of the viewport, outermost only.
  const flagged = new Set();
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue; // the svg speaks for its parts
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.right <= vw + 1 || inScroller(el) || !shown(el)) continue;
    let a = el.parentElement;
    while (a && !flagged.has(a)) a = a.parentElement;
    if (a) continue;
    flagged.add(el);
    out.wide.push({tag: name(el), text: short(el.textContent), box: box(r)});
  }

  // HTML text: the boxes of each element's own (direct) text nodes.
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('svg') || !shown(el)) continue;
    const rects = [];
    let text = '';
    for (const n of el.childNodes) {
      if (n.nodeType !== Node.TEXT_NODE || !n.textContent.trim()) continue;
      text += n.textContent;
      const range = document.createRange();
      range.selectNodeContents(n);
      for (const r of range.getClientRects()) {
        if (r.width > 0 && r.height > 0) rects.push(box(r));
      }
    }
    if (rects.length) out.texts.push({tag: name(el), text: short(text), rects});
  }

  // SVG text: per outermost svg, each <text>'s box and rendered line height.
  for (const svg of document.querySelectorAll('svg')) {
    if (svg.parentElement && svg.parentElement.closest('svg')) continue;
    const title = svg.querySelector(':scope > title') || svg.querySelector('text');
    const s = {label: short(svg.getAttribute('aria-label') || (title ? title.textContent : '')),
      box: box(svg.getBoundingClientRect()), texts: []};
    for (const t of svg.querySelectorAll('text')) {
      if (!shown(t) || !t.textContent.trim()) continue;
      const r = t.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      const m = t.getScreenCTM();
      const scale = m ? Math.hypot(m.a, m.b) : 1;
      // em: the rendered font size; across: the text runs sideways (not rotated a quarter turn).
      const em = parseFloat(getComputedStyle(t).fontSize) * scale;
      const across = !m || Math.abs(m.a) >= Math.abs(m.b);
      s.texts.push({tag: 'text', text: short(t.textContent), box: box(r), height: t.getBBox().height * scale, em, across});
    }
    out.svgs.push(s);
  }
  return out;
})()
