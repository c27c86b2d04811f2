// The fixed page read (WEB-20..23), evaluated as one expression in an isolated world. The
// `__NAME__` placeholders are the limits of limits.rs, filled in by extract.rs; nothing else
// goes in. "Visible" means what the browser renders for a person: every decision below asks
// the rendering (computed style, layout boxes, checkVisibility), never the markup alone,
// because hidden text is where prompt injection hides.
(() => {
  const MAX_TEXT = __MAX_TEXT__, MAX_LINKS = __MAX_LINKS__, MAX_NODES = __MAX_NODES__,
    MAX_LINK_TEXT = __MAX_LINK_TEXT__, MIN_FONT_PX = __MIN_FONT_PX__,
    MIN_CONTRAST = __MIN_CONTRAST__;
  const EXCLUDED = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'IFRAME', 'FRAME',
    'FRAMESET', 'OBJECT', 'EMBED', 'FORM', 'INPUT', 'TEXTAREA', 'SELECT', 'OPTION', 'OPTGROUP',
    'BUTTON', 'DATALIST', 'OUTPUT', 'CANVAS', 'SVG', 'MATH', 'VIDEO', 'AUDIO', 'HEAD', 'TITLE',
    'META', 'LINK', 'DIALOG']);
  const EDITABLE_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton', 'form']);
  const INF = Infinity;
  // A computed property other than its initial value (and present in this browser).
  const set = (v, initial) => v !== undefined && v !== '' && v !== initial;

  // Every per-element answer is cached: a page's text nodes share few elements, and each
  // answer walks up the tree at most once.
  const styles = new Map();
  const cs = (el) => {
    let s = styles.get(el);
    if (s === undefined) { s = getComputedStyle(el); styles.set(el, s); }
    return s;
  };
  // The value of `own(el, value of next(el))` for el, computed top-down without recursion
  // (a page may nest elements deeper than the stack).
  const upward = (el, cache, next, own) => {
    const chain = [];
    let e = el;
    while (e && !cache.has(e)) { chain.push(e); e = next(e); }
    let v = e ? cache.get(e) : undefined;
    for (let i = chain.length - 1; i >= 0; i--) { v = own(chain[i], v); cache.set(chain[i], v); }
    return v;
  };
  const parentOf = (el) => el.parentElement;

  // Colours as the browser resolves them: any CSS colour syntax (oklch(), color(), …) goes
  // through a canvas, so none can slip past a parser of our own. null: cannot know.
  const paint = typeof OffscreenCanvas === 'function' ?
    new OffscreenCanvas(1, 1).getContext('2d', { willReadFrequently: true }) : null;
  const colours = new Map();
  const rgba = (value) => {
    let c = colours.get(value);
    if (c !== undefined) return c;
    c = null;
    if (paint) {
      paint.fillStyle = '#000000'; paint.fillStyle = value;
      const first = paint.fillStyle;
      paint.fillStyle = '#ffffff'; paint.fillStyle = value;
      if (first !== '#000000' || paint.fillStyle !== '#ffffff') {
        paint.clearRect(0, 0, 1, 1); paint.fillRect(0, 0, 1, 1);
        const d = paint.getImageData(0, 0, 1, 1).data;
        c = [d[0], d[1], d[2], d[3] / 255];
      }
    }
    colours.set(value, c);
    return c;
  };
  const over = (top, alpha, below) => [0, 1, 2].map((i) => top[i] * alpha + below[i] * (1 - alpha));
  const linear = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  const luminance = (c) => 0.2126 * linear(c[0]) + 0.7152 * linear(c[1]) + 0.0722 * linear(c[2]);
  const contrast = (a, b) => {
    const la = luminance(a), lb = luminance(b);
    return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
  };
  const canvasColour = () => {
    const scheme = cs(document.documentElement).colorScheme;
    const dark = /\bdark\b/.test(scheme) &&
      (!/\blight\b/.test(scheme) || matchMedia('(prefers-color-scheme: dark)').matches);
    return dark ? [18, 18, 18] : [255, 255, 255];
  };
  // The opaque colour painted behind an element's text, or null when it cannot be known (an
  // image, or a background painted through the text itself): such text is kept.
  const backgrounds = new Map();
  const backgroundOf = (el) => upward(el, backgrounds, parentOf, (e, below) => {
    if (below === undefined) below = canvasColour();
    const s = cs(e);
    if (s.display === 'contents') return below;
    if (s.backgroundImage !== 'none' || s.backgroundClip === 'text') return null;
    const c = rgba(s.backgroundColor);
    if (c === null) return null;
    if (c[3] >= 1) return c.slice(0, 3);
    if (c[3] <= 0 || below === null) return below;
    return over(c, c[3], below);
  });
  // How much of an element's colour survives every ancestor's opacity and opacity() filter.
  const alphas = new Map();
  const alphaOf = (el) => upward(el, alphas, parentOf, (e, above) => {
    const s = cs(e);
    let a = (above === undefined ? 1 : above) * Number(s.opacity);
    if (s.filter !== 'none') {
      for (const m of s.filter.matchAll(/opacity\(([\d.]+)(%?)\)/g)) a *= m[2] ? m[1] / 100 : Number(m[1]);
    }
    return a;
  });
  // The largest blur() radius applied to an element by itself or an ancestor, in px.
  const blurs = new Map();
  const blurOf = (el) => upward(el, blurs, parentOf, (e, above) => {
    let b = above === undefined ? 0 : above;
    const f = cs(e).filter;
    if (f !== 'none') for (const m of f.matchAll(/blur\(([\d.]+)px\)/g)) b = Math.max(b, Number(m[1]));
    return b;
  });
  // A mask made only of fully transparent gradients shows nothing.
  const masks = new Map();
  const maskedOf = (el) => upward(el, masks, parentOf, (e, above) => {
    if (above) return true;
    const m = cs(e).maskImage || cs(e).webkitMaskImage || 'none';
    if (m === 'none' || /url\(|image\(|element\(|paint\(/.test(m)) return false;
    const inks = m.match(/(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)\([^()]*\)|transparent/g) || [];
    return inks.length > 0 && inks.every((c) => { const v = rgba(c); return v !== null && v[3] === 0; });
  });
  // How much the transforms, `scale`, `rotate` and `zoom` of an element and its ancestors
  // shrink its text at most: the smallest singular value of each 2D part, multiplied.
  const shrink = (m) => {
    const t = m.a * m.a + m.b * m.b + m.c * m.c + m.d * m.d, det = m.a * m.d - m.b * m.c;
    return Math.sqrt(Math.max(0, (t - Math.sqrt(Math.max(0, t * t - 4 * det * det))) / 2));
  };
  const matrix = (css) => { try { return shrink(new DOMMatrixReadOnly(css)); } catch (_) { return 1; } };
  const scales = new Map();
  const scaleOf = (el) => upward(el, scales, parentOf, (e, above) => {
    const s = cs(e);
    let k = (above === undefined ? 1 : above) * (Number(s.zoom) || 1);
    if (set(s.transform, 'none')) k *= matrix(s.transform);
    if (set(s.scale, 'none')) {
      const f = s.scale.split(' ').map(Number);
      k *= Math.min(Math.abs(f[0]), Math.abs(f.length > 1 ? f[1] : f[0]));
    }
    if (set(s.rotate, 'none')) {
      const r = s.rotate.split(' ');
      const axis = r.length === 2 ? { x: '1, 0, 0', y: '0, 1, 0', z: '0, 0, 1' }[r[0]] :
        r.length === 4 ? r.slice(0, 3).join(', ') : null;
      if (axis) k *= matrix(`rotate3d(${axis}, ${r[r.length - 1]})`);
    }
    return k;
  });

  // Regions where something can be seen, in viewport coordinates: [x0, y0, x1, y1] are hard
  // edges (clips, the side of a scroll area no one can scroll to), [4..7] soft ones (how far
  // a scroll area reaches). Content skipped by `content-visibility: auto` is laid out on
  // demand while the area around it is not, so for it only the hard edges count.
  const FULL = [-INF, -INF, INF, INF, -INF, -INF, INF, INF];
  const EMPTY = [0, 0, 0, 0, 0, 0, 0, 0];
  const meet = (a, b) => a.map((v, i) => ((i & 3) < 2 ? Math.max(v, b[i]) : Math.min(v, b[i])));
  const box = (x0, y0, x1, y1) => [x0, y0, x1, y1, -INF, -INF, INF, INF];
  const startsRight = (s) => /-rl$/.test(s.writingMode) || (s.writingMode === 'horizontal-tb' && s.direction === 'rtl');
  // One axis of a scroll area: from the edge its scrolling starts at, as far as it reaches.
  const scrollAxis = (r, i, start, port, extent, fromEnd) => {
    if (fromEnd) { r[i + 2] = start + port; r[i + 4] = start + port - extent; } else { r[i] = start; r[i + 6] = start + extent; }
  };
  const paddingBox = (el) => {
    const b = el.getBoundingClientRect();
    const sx = el.offsetWidth ? b.width / el.offsetWidth : 1, sy = el.offsetHeight ? b.height / el.offsetHeight : 1;
    const x0 = b.left + el.clientLeft * sx, y0 = b.top + el.clientTop * sy;
    return { x0, y0, w: el.clientWidth * sx, h: el.clientHeight * sy, sx, sy };
  };
  const html = document.documentElement, body = document.body;
  const viewportOverflow = (() => {
    const h = cs(html);
    return h.overflowX === 'visible' && h.overflowY === 'visible' && body ? cs(body) : h;
  })();
  const bodyPropagates = body && viewportOverflow === cs(body);
  const viewport = box(0, 0, html.clientWidth, html.clientHeight);
  // The page itself: what a person can scroll to, and what stays out of reach at the negative
  // side of the scroll origin (`left: -9999px`).
  const documentArea = (() => {
    const s = viewportOverflow, se = document.scrollingElement || html, r = FULL.slice();
    const clipped = (o) => o === 'hidden' || o === 'clip';
    if (clipped(s.overflowX)) { r[0] = 0; r[2] = html.clientWidth; } else {
      scrollAxis(r, 0, -se.scrollLeft, html.clientWidth, se.scrollWidth, startsRight(cs(html)));
    }
    if (clipped(s.overflowY)) { r[1] = 0; r[3] = html.clientHeight; } else {
      scrollAxis(r, 1, -se.scrollTop, html.clientHeight, se.scrollHeight, false);
    }
    return r;
  })();
  // The element whose overflow clips this one's box (CSS containing block), null for the page.
  const holds = (p, fixed) => {
    const s = cs(p);
    return (!fixed && s.position !== 'static') || set(s.transform, 'none') ||
      set(s.perspective, 'none') || set(s.filter, 'none') || set(s.backdropFilter, 'none') ||
      set(s.translate, 'none') || set(s.rotate, 'none') || set(s.scale, 'none') ||
      /paint|layout|strict|content/.test(s.contain) ||
      /transform|perspective|filter/.test(s.willChange) || set(s.containerType, 'normal') ||
      set(s.contentVisibility, 'visible');
  };
  const blocks = new Map();
  const containingBlock = (el) => {
    let p = blocks.get(el);
    if (p !== undefined) return p;
    const pos = cs(el).position;
    p = el.parentElement;
    if (pos === 'absolute' || pos === 'fixed') while (p && !holds(p, pos === 'fixed')) p = p.parentElement;
    blocks.set(el, p);
    return p;
  };
  // clip-path and clip: shapes whose bounding box is computed here; geometry that cannot be
  // computed here (url(), path(), calc()) is taken as hiding everything (the safe side; such
  // clips are rare around text).
  const length = (t, ref) => {
    if (t === '0') return 0;
    const m = /^(-?[\d.]+(?:e-?\d+)?)(px|%)$/.exec(t);
    return m ? (m[2] === '%' ? (Number(m[1]) * ref) / 100 : Number(m[1])) : NaN;
  };
  const position = (ts, w, h) => {
    const k = { left: '0%', top: '0%', center: '50%', right: '100%', bottom: '100%' };
    const v = ts.map((t) => k[t] || t);
    return v.length === 2 ? [length(v[0], w), length(v[1], h)] : [NaN, NaN];
  };
  const shapeBox = (v, b) => {
    const w = b.width, h = b.height;
    const m = /^(inset|circle|ellipse|polygon)\((.*)\)(?: [a-z-]+)?$/.exec(v);
    if (!m) return /^[a-z-]+$/.test(v) ? box(b.left, b.top, b.right, b.bottom) : EMPTY;
    const args = m[2];
    let r;
    if (m[1] === 'inset') {
      const t = args.split(' round ')[0].trim().split(/\s+/);
      const [top, right, bottom, left] = [t[0], t[1] || t[0], t[2] || t[0], t[3] || t[1] || t[0]];
      r = [b.left + length(left, w), b.top + length(top, h), b.right - length(right, w), b.bottom - length(bottom, h)];
    } else if (m[1] === 'polygon') {
      const pts = args.split(',').map((p) => p.trim().split(/\s+/)).filter((p) => p.length === 2)
        .map((p) => [length(p[0], w), length(p[1], h)]);
      let area = 0;
      pts.forEach((p, i) => { const q = pts[(i + 1) % pts.length]; area += p[0] * q[1] - q[0] * p[1]; });
      if (pts.length < 3 || !(Math.abs(area / 2) >= 1)) return EMPTY;
      r = [INF, INF, -INF, -INF];
      for (const [x, y] of pts) {
        r = [Math.min(r[0], x), Math.min(r[1], y), Math.max(r[2], x), Math.max(r[3], y)];
      }
      r = [b.left + r[0], b.top + r[1], b.left + r[2], b.top + r[3]];
    } else {
      const [radii, at] = args.split(' at ');
      const [cx, cy] = at === undefined ? [w / 2, h / 2] : position(at.trim().split(/\s+/), w, h);
      const side = (t, c, size, diag) => t === 'closest-side' ? Math.min(c, size - c) :
        t === 'farthest-side' ? Math.max(c, size - c) : length(t, diag);
      const rs = radii.trim() === '' ? ['closest-side'] : radii.trim().split(/\s+/);
      let rx, ry;
      if (m[1] === 'circle') {
        const diag = Math.hypot(w, h) / Math.SQRT2;
        rx = rs[0] === 'closest-side' ? Math.min(cx, w - cx, cy, h - cy) :
          rs[0] === 'farthest-side' ? Math.max(cx, w - cx, cy, h - cy) : length(rs[0], diag);
        ry = rx;
      } else {
        rx = side(rs[0], cx, w, w);
        ry = side(rs[1] || rs[0], cy, h, h);
      }
      r = [b.left + cx - rx, b.top + cy - ry, b.left + cx + rx, b.top + cy + ry];
    }
    return r.every((x) => !Number.isNaN(x)) ? box(...r) : EMPTY;
  };
  const clipRect = (s, b) => {
    const m = /^rect\((.*)\)$/.exec(s.clip);
    if (!m || (s.position !== 'absolute' && s.position !== 'fixed')) return FULL;
    const t = m[1].split(/,\s*|\s+/);
    const at = (i, auto) => (t[i] === 'auto' ? auto : length(t[i], 0));
    const r = [b.left + at(3, 0), b.top + at(0, 0), b.left + at(1, b.width), b.top + at(2, b.height)];
    return r.every((x) => !Number.isNaN(x)) ? box(...r) : EMPTY;
  };
  // An element's own clip-path and clip, where they let anything show.
  const shapes = new Map();
  const shapeOf = (e) => {
    let r = shapes.get(e);
    if (r !== undefined) return r;
    const s = cs(e);
    r = FULL;
    if (s.clipPath !== 'none' || s.clip !== 'auto') {
      const b = e.getBoundingClientRect();
      if (s.clipPath !== 'none') r = meet(r, shapeBox(s.clipPath, b));
      if (s.clip !== 'auto') r = meet(r, clipRect(s, b));
    }
    shapes.set(e, r);
    return r;
  };
  // Where a region leaves at least a pixel square in sight (hard edges only).
  const roomy = (r) => r[2] - r[0] >= 1 && r[3] - r[1] >= 1;
  // Where an element's content shows, given where its box shows: overflow other than visible
  // or paint containment clips it to the padding box; a scroll container instead lets it show
  // as far as its scrolling reaches along each axis it scrolls, if any of its scrollport shows.
  const contentArea = (el, outer) => {
    if (el === html || (el === body && bodyPropagates)) return outer;
    const s = cs(el);
    if (s.display === 'inline' || s.display === 'contents') return outer;
    let ox = s.overflowX, oy = s.overflowY;
    if (/paint|strict|content/.test(s.contain)) {
      if (ox === 'visible') ox = 'clip';
      if (oy === 'visible') oy = 'clip';
    }
    if (ox === 'visible' && oy === 'visible') return outer;
    const p = paddingBox(el), r = outer.slice();
    const scrolls = (o) => o === 'auto' || o === 'scroll';
    if ((scrolls(ox) || scrolls(oy)) && !roomy(meet(box(p.x0, p.y0, p.x0 + p.w, p.y0 + p.h), outer))) return EMPTY;
    if (scrolls(ox)) {
      r[0] = r[4] = -INF; r[2] = r[6] = INF;
      scrollAxis(r, 0, p.x0 - el.scrollLeft * p.sx, p.w, el.scrollWidth * p.sx, startsRight(s));
    } else if (ox !== 'visible') { r[0] = Math.max(r[0], p.x0); r[2] = Math.min(r[2], p.x0 + p.w); }
    if (scrolls(oy)) {
      r[1] = r[5] = -INF; r[3] = r[7] = INF;
      scrollAxis(r, 1, p.y0 - el.scrollTop * p.sy, p.h, el.scrollHeight * p.sy, false);
    } else if (oy !== 'visible') { r[1] = Math.max(r[1], p.y0); r[3] = Math.min(r[3], p.y0 + p.h); }
    return r;
  };
  // Where an element's box shows: within its containing block's content, cut by the
  // clip-path of every element from it up to that block (clip-path clips all descendants).
  const boxRegion = (el, outer) => {
    const cb = containingBlock(el);
    if (outer === undefined) outer = cb ? overflowOf(cb) : cs(el).position === 'fixed' ? viewport : documentArea;
    let r = meet(outer, shapeOf(el));
    for (let a = el.parentElement; a && a !== cb; a = a.parentElement) r = meet(r, shapeOf(a));
    return r;
  };
  const overflows = new Map();
  const overflowOf = (el) => upward(el, overflows, containingBlock, (e, outer) => contentArea(e, boxRegion(e, outer)));
  const contentRegion = overflowOf;
  const skipped = new Map();
  const isSkipped = (el) => {
    let v = skipped.get(el);
    if (v === undefined) { v = !el.checkVisibility({ contentVisibilityAuto: true }); skipped.set(el, v); }
    return v;
  };
  // How much of a layout rectangle shows in a region: 'in', 'part' or 'out'. A line counts as
  // seen when at least half of its height and a pixel of its width show.
  const measure = (rect, r, soft) => {
    if (rect.width <= 0 || rect.height <= 0) return 'out';
    const x0 = Math.max(rect.left, r[0], soft ? r[4] : -INF), y0 = Math.max(rect.top, r[1], soft ? r[5] : -INF);
    const x1 = Math.min(rect.right, r[2], soft ? r[6] : INF), y1 = Math.min(rect.bottom, r[3], soft ? r[7] : INF);
    const w = x1 - x0, h = y1 - y0;
    if (!(w >= 1 && h >= Math.max(1, rect.height / 2))) return 'out';
    return w >= rect.width - 1 && h >= rect.height - 1 ? 'in' : 'part';
  };
  const shows = (rect, r, el) => {
    const s = measure(rect, r, true);
    return s === 'in' || !isSkipped(el) ? s : measure(rect, r, false);
  };
  const VISIBLE = { opacityProperty: true, visibilityProperty: true, checkOpacity: true, checkVisibilityCSS: true };
  // Whether an element has a box a person can see.
  const boxVisible = (el) => {
    if (!el.checkVisibility(VISIBLE)) return false;
    const r = boxRegion(el);
    for (const rect of el.getClientRects()) if (shows(rect, r, el) !== 'out') return true;
    return false;
  };
  // Whether something other than the ancestors' backgrounds may be painted behind faint text:
  // an image, video, canvas or background image, or a coloured box, in a sibling of the
  // element or of an ancestor below the first opaque background, overlapping the element (a
  // headline over a hero image). Then its contrast cannot be known and the text is kept, as
  // over a background image. At most 64 siblings per ancestor and 8 media per sibling are
  // looked at; each sibling's media are found once.
  const MEDIA = 'img, picture, video, canvas, svg, object, embed, iframe';
  const media = new Map();
  const mediaOf = (e) => {
    let m = media.get(e);
    if (m === undefined) { m = [...e.querySelectorAll(MEDIA)].slice(0, 8); media.set(e, m); }
    return m;
  };
  const backdropUnknown = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return false;
    const overlaps = (e) => {
      const b = e.getBoundingClientRect();
      return b.right > r.left && b.left < r.right && b.bottom > r.top && b.top < r.bottom;
    };
    for (let child = null, a = el; a; child = a, a = a.parentElement) {
      let n = 0;
      for (let e = a.firstElementChild; e && n < 64; e = e.nextElementSibling, n++) {
        if (e === child) continue;
        const t = cs(e), c = rgba(t.backgroundColor);
        if ((e.matches(MEDIA) || t.backgroundImage !== 'none' || c === null || c[3] > 0) && overlaps(e)) return true;
        if (mediaOf(e).some(overlaps)) return true;
      }
      const c = rgba(cs(a).backgroundColor);
      if (c === null || c[3] >= 1 || cs(a).backgroundImage !== 'none') break;
    }
    return false;
  };
  // Whether the text an element holds directly can be seen, judged by its style: visible
  // (the walk only enters elements checkVisibility finds rendered), large enough, unmasked,
  // unblurred, and in a colour that stands out from what is behind it.
  const inks = new Map();
  const inkVisible = (el) => {
    let v = inks.get(el);
    if (v !== undefined) return v;
    v = (() => {
      const s = cs(el);
      if (s.visibility !== 'visible') return false;
      const px = parseFloat(s.fontSize) * scaleOf(el);
      if (!(px >= MIN_FONT_PX)) return false;
      if (maskedOf(el) || blurOf(el) * 4 >= px) return false;
      const alpha = alphaOf(el), bg = backgroundOf(el);
      const colours = [s.webkitTextFillColor];
      if (parseFloat(s.webkitTextStrokeWidth) > 0) colours.push(s.webkitTextStrokeColor);
      let inked = false;
      for (const value of colours) {
        const c = rgba(value);
        if (c === null) return true;
        const a = c[3] * alpha;
        if (!(a > 0)) continue;
        if (bg === null || contrast(over(c, a, bg), bg) >= MIN_CONTRAST) return true;
        inked = true;
      }
      return inked && backdropUnknown(el);
    })();
    inks.set(el, v);
    return v;
  };
  // The parts of one text node a person can see: all, none, or (partly clipped) pieces of at
  // most 16 characters, and of a piece that is itself partly clipped each character, judged
  // one by one within a budget.
  const range = document.createRange();
  let pieceBudget = MAX_TEXT, piecesSkipped = false;
  // 'all', 'none' or 'some' of the range's lines show.
  const rangeShows = (r, el) => {
    let seen = 0, hidden = 0;
    for (const rect of range.getClientRects()) {
      if (rect.width <= 0 || rect.height <= 0) continue;
      const s = shows(rect, r, el);
      if (s === 'in') seen++; else if (s === 'out') hidden++; else { seen++; hidden++; }
    }
    return seen === 0 ? 'none' : hidden === 0 ? 'all' : 'some';
  };
  const visibleText = (node) => {
    const el = node.parentElement;
    if (!el || !inkVisible(el)) return '';
    const r = contentRegion(el);
    range.selectNodeContents(node);
    const whole = rangeShows(r, el);
    if (whole !== 'some') return whole === 'all' ? node.data : '';
    const part = (from, to) => {
      if (pieceBudget <= 0) { piecesSkipped = true; return 'none'; }
      pieceBudget--;
      range.setStart(node, from);
      range.setEnd(node, to);
      return rangeShows(r, el);
    };
    let out = '';
    for (const m of node.data.matchAll(/\s+|\S{1,16}/g)) {
      if (/^\s/.test(m[0])) { out += ' '; continue; }
      const piece = part(m.index, m.index + m[0].length);
      if (piece === 'all') { out += m[0]; continue; }
      if (piece === 'none') continue;
      let at = m.index;
      for (const c of m[0]) {
        if (part(at, at + c.length) !== 'none') out += c;
        at += c.length;
      }
    }
    return out;
  };

  const excluded = (el) => {
    if (EXCLUDED.has(el.tagName.toUpperCase())) return true;
    if (el.isContentEditable || el.hidden || el.inert) return true;
    if (el.getAttribute('aria-hidden') === 'true') return true;
    if (EDITABLE_ROLES.has(el.getAttribute('role'))) return true;
    // display: contents has no box for checkVisibility to ask about: its children decide.
    // Nothing under an element checkVisibility finds unrendered (display: none, the content
    // of a closed details, content-visibility: hidden, opacity 0 here or above) is seen.
    // visibility is left to each text node, since a child can be visible inside a hidden
    // parent. content-visibility: auto is not asked about: what it skips until it is
    // scrolled to is what a person sees when they scroll (its boxes are laid out on demand).
    if (cs(el).display === 'contents') return false;
    return !el.checkVisibility({ opacityProperty: true, checkOpacity: true });
  };

  // One walk of the body, in document order, into a list of pieces: visible text (strings),
  // line breaks (BREAK) and links; each article/main found is the range of pieces it holds.
  const BREAK = 0;
  const pieces = [];
  const candidates = [];
  let nodes = 0, nodesTruncated = false, seenChars = 0;
  const unclosed = [];
  const END = {};
  const stack = body ? [body] : [];
  while (stack.length) {
    const node = stack.pop();
    if (node === END) { pieces.push(BREAK); continue; }
    // A function on the stack ends an article, main or link (a page's nodes are never
    // functions, so nothing of the page is ever called).
    if (typeof node === 'function') { node(); continue; }
    if (node.nodeType === Node.TEXT_NODE) {
      if (nodes >= MAX_NODES) { nodesTruncated = true; break; }
      nodes++;
      const s = /\S/.test(node.data) ? visibleText(node) : node.data;
      if (s !== '') { pieces.push(s); seenChars += s.replace(/\s+/g, '').length; }
      continue;
    }
    if (node.nodeType !== Node.ELEMENT_NODE || excluded(node)) continue;
    const tag = node.tagName;
    if (tag === 'ARTICLE' || tag === 'MAIN') {
      const c = { el: node, tag: tag.toLowerCase(), start: pieces.length, end: -1, nodesFrom: nodes,
        nodes: 0, charsFrom: seenChars, chars: 0 };
      candidates.push(c);
      unclosed.push(c);
      stack.push(() => {
        c.end = pieces.length; c.nodes = nodes - c.nodesFrom; c.chars = seenChars - c.charsFrom;
        unclosed.splice(unclosed.lastIndexOf(c), 1);
      });
    }
    if (tag === 'A' && node.hasAttribute('href')) {
      const link = { a: node, start: pieces.length, text: '', keep: false };
      pieces.push(link);
      stack.push(() => {
        let t = '';
        for (let i = link.start + 1; i < pieces.length && t.length <= 4 * MAX_LINK_TEXT; i++) {
          if (typeof pieces[i] === 'string') t += pieces[i]; else if (pieces[i] === BREAK) t += ' ';
        }
        link.text = t.replace(/\s+/g, ' ').trim();
        link.keep = link.text !== '' || [...node.querySelectorAll('img, picture, svg')].slice(0, 8).some(boxVisible);
      });
    }
    const display = cs(node).display;
    if (!display.startsWith('inline') && display !== 'contents') { pieces.push(BREAK); stack.push(END); }
    for (let c = node.lastChild; c; c = c.previousSibling) stack.push(c);
  }
  // Candidates the walk did not finish end where it stopped.
  for (const c of unclosed) { c.end = pieces.length; c.nodes = nodes - c.nodesFrom; c.chars = seenChars - c.charsFrom; c.cut = true; }

  // WEB-21 among what a person can see: the article with the most visible text, else such a
  // main, else the body.
  const pick = (tag) => {
    let best = null;
    for (const c of candidates) {
      if (c.tag === tag && c.chars > 0 && (!best || c.chars > best.chars) && boxVisible(c.el)) best = c;
    }
    return best;
  };
  const chosen = pick('article') || pick('main') ||
    { tag: body ? 'body' : 'none', start: 0, end: pieces.length, nodes, cut: nodesTruncated };

  let text = '', chars = 0, textTruncated = piecesSkipped;
  const links = [], seen = new Set();
  let linksTruncated = false;
  const count = (s) => { let n = 0; for (const _ of s) n++; return n; };
  const cut = (s, max) => { let out = '', n = 0; for (const c of s) { if (n === max) break; out += c; n++; } return out; };
  const breakLine = () => {
    if (text === '' || text.endsWith('\n') || chars >= MAX_TEXT) return;
    if (text.endsWith(' ')) text = text.slice(0, -1) + '\n'; else { text += '\n'; chars++; }
  };
  const addText = (raw) => {
    if (textTruncated) return;
    let s = raw.replace(/\s+/g, ' ');
    if (text === '' || text.endsWith(' ') || text.endsWith('\n')) s = s.replace(/^ /, '');
    if (s === '') return;
    const n = count(s);
    if (chars + n <= MAX_TEXT) { text += s; chars += n; return; }
    const head = cut(s, MAX_TEXT - chars);
    text += head; chars = MAX_TEXT;
    if (s.slice(head.length).trim() !== '') textTruncated = true;
  };
  const addLink = (link) => {
    if (!link.keep) return;
    let u;
    try { u = new URL(link.a.href); } catch (_) { return; }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return;
    u.search = ''; u.hash = ''; u.username = ''; u.password = '';
    const href = u.href;
    if (seen.has(href)) return;
    if (links.length >= MAX_LINKS) { linksTruncated = true; return; }
    seen.add(href);
    links.push({ url: href, text: cut(link.text, MAX_LINK_TEXT) });
  };
  for (let i = chosen.start; i < chosen.end; i++) {
    const p = pieces[i];
    if (p === BREAK) breakLine(); else if (typeof p === 'string') addText(p); else addLink(p);
  }
  return { url: location.href, root: chosen.tag, text: text.trimEnd(), textTruncated, links, linksTruncated,
    nodesVisited: chosen.nodes, nodesTruncated: !!chosen.cut };
})()
