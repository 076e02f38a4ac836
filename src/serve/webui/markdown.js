// The chat page's Markdown renderer: text in, HTML out, safe by construction. The whole input is
// HTML-escaped first (& < > " '), so nothing the model writes can open a tag or an attribute; the
// renderer then adds only its own fixed tags (p, h1-h6, strong, em, del, code, pre, ul, ol, li,
// blockquote, hr, table, a). A link's href must be http:, https: or mailto: (anything else stays
// text), and links open with rel="noopener noreferrer". Partial input (a reply still streaming, a
// code fence not yet closed) renders as far as it goes.
// Supported: paragraphs (a newline is a line break), ATX headings, fenced code (``` or ~~~, with a
// language label and a copy button), inline code, **bold**, *italic*, ~~strike~~, [links](url),
// lists (nested by indentation), blockquotes, rules and pipe tables. Not supported: raw HTML (shown
// as text), images, reference links, setext headings, math.
// Runs in the page (window.ogaiMarkdown) and under Node (module.exports) for its unit test.
'use strict';
(function (root) {
  const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
  function escapeHtml(text) { return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]); }

  // `url` is already escaped; only these schemes become links.
  function safeHref(url) { return /^(https?:\/\/|mailto:)/i.test(url) ? url : null; }

  // Inline markup of one escaped block of text. Code spans and links are set aside first so that
  // emphasis never reaches inside them; \u0001 cannot occur in the text (render() removes it).
  function inline(escaped) {
    const stash = [];
    const keep = (html) => `\u0001${stash.push(html) - 1}\u0001`;
    let s = escaped.replace(/(`+)([^`\n]|[^`\n][\s\S]*?[^`\n])\1(?!`)/g, (_, ticks, code) => keep(`<code>${code}</code>`));
    s = s.replace(/\[([^\]\n]+)\]\(([^()\s]+)\)/g, (whole, text, url) => {
      const href = safeHref(url);
      return href ? keep(`<a href="${href}" target="_blank" rel="noopener noreferrer">${text}</a>`) : whole;
    });
    s = s.replace(/\*\*(?=\S)([^*\n]*?\S)\*\*/g, '<strong>$1</strong>')
         .replace(/(^|[^\w])__(?=\S)([^_\n]*?\S)__(?!\w)/g, '$1<strong>$2</strong>')
         .replace(/(^|[^*\w])\*(?=[^\s*])([^*\n]*?[^\s*])\*(?!\w)/g, '$1<em>$2</em>')
         .replace(/(^|[^\w])_(?=[^\s_])([^_\n]*?[^\s_])_(?!\w)/g, '$1<em>$2</em>')
         .replace(/~~(?=\S)([^~\n]*?\S)~~/g, '<del>$1</del>');
    return s.replace(/\u0001(\d+)\u0001/g, (_, i) => stash[Number(i)]).replace(/\n/g, '<br>');
  }

  const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/;
  const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
  const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
  const QUOTE = /^ {0,3}&gt; ?/;
  const ITEM = /^( *)([-*+]|\d{1,9}[.)])( +|$)/;
  const TABLE_RULE = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

  function startsBlock(line) {
    return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || ITEM.test(line);
  }

  function fence(lines, i, out) {
    const [, marker, lang] = FENCE.exec(lines[i]);
    const body = [];
    let j = i + 1;
    for (; j < lines.length; ++j) {
      const close = new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`);
      if (close.test(lines[j])) break;
      body.push(lines[j]);
    }
    const label = lang ? `<span class="code-lang">${lang}</span>` : '<span class="code-lang"></span>';
    const cls = lang ? ` class="language-${lang.replace(/[^\w+#-]/g, '')}"` : '';
    out.push(`<div class="code-block"><div class="code-head">${label}<button type="button" class="copy-code">Copy</button>` +
             `</div><pre><code${cls}>${body.join('\n')}</code></pre></div>`);
    return j + 1;
  }

  function cells(line) {
    let s = line.trim();
    if (s.startsWith('|')) s = s.slice(1);
    if (s.endsWith('|')) s = s.slice(0, -1);
    return s.split('|').map((c) => c.trim());
  }

  function table(lines, i, out) {
    const aligns = cells(lines[i + 1]).map((c) => (c.startsWith(':') && c.endsWith(':') ? 'center' : c.endsWith(':') ? 'right' : ''));
    const row = (tag, line) => '<tr>' + cells(line).map((c, k) =>
      `<${tag}${aligns[k] ? ` class="align-${aligns[k]}"` : ''}>${inline(c)}</${tag}>`).join('') + '</tr>';
    const body = [];
    let j = i + 2;
    for (; j < lines.length && lines[j].includes('|') && lines[j].trim(); ++j) body.push(row('td', lines[j]));
    out.push(`<table><thead>${row('th', lines[i])}</thead><tbody>${body.join('')}</tbody></table>`);
    return j;
  }

  // A list: its items, each with the lines indented under it (rendered recursively: nested lists).
  function list(lines, i, out) {
    const first = ITEM.exec(lines[i]);
    const indent = first[1].length;
    const ordered = /\d/.test(first[2]);
    const items = [];
    let j = i;
    const depth = (line) => line.length - line.trimStart().length;
    const sibling = (line) => {
      const m = ITEM.exec(line);
      return m && m[1].length === indent && /\d/.test(m[2]) === ordered ? m : null;
    };
    while (j < lines.length) {
      const line = lines[j];
      const m = sibling(line);
      if (m) items.push([line.slice(m[0].length)]);
      else if (!line.trim()) {  // a blank line ends the list unless an item or an indented line follows
        const next = lines[j + 1];
        if (next === undefined || !(sibling(next) || (next.trim() && depth(next) > indent))) break;
        items[items.length - 1].push('');
      } else if (depth(line) > indent) items[items.length - 1].push(line.replace(new RegExp(`^ {1,${indent + 4}}`), ''));
      else if (startsBlock(line)) break;
      else items[items.length - 1].push(line);  // a lazy continuation of the item's text
      ++j;
    }
    const start = ordered && parseInt(first[2], 10) !== 1 ? ` start="${parseInt(first[2], 10)}"` : '';
    const tag = ordered ? 'ol' : 'ul';
    out.push(`<${tag}${start}>` + items.map((body) => `<li>${blocks(body, true)}</li>`).join('') + `</${tag}>`);
    return j;
  }

  function paragraph(lines, i, out, tight) {
    const text = [];
    let j = i;
    for (; j < lines.length && lines[j].trim() && (j === i || !startsBlock(lines[j])); ++j) {
      if (j > i && lines[j].includes('|') && j + 1 < lines.length && TABLE_RULE.test(lines[j + 1])) break;
      text.push(lines[j].trim());
    }
    out.push(tight ? inline(text.join('\n')) : `<p>${inline(text.join('\n'))}</p>`);
    return j;
  }

  // Escaped lines -> HTML. `tight`: a list item's lone paragraph gets no <p>.
  function blocks(lines, tight = false) {
    const out = [];
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      let m;
      if (!line.trim()) ++i;
      else if (FENCE.test(line)) i = fence(lines, i, out);
      else if ((m = HEADING.exec(line))) {
        out.push(`<h${m[1].length}>${inline(m[2])}</h${m[1].length}>`);
        ++i;
      } else if (RULE.test(line)) {
        out.push('<hr>');
        ++i;
      } else if (QUOTE.test(line)) {
        const quoted = [];
        for (; i < lines.length && QUOTE.test(lines[i]); ++i) quoted.push(lines[i].replace(QUOTE, ''));
        out.push(`<blockquote>${blocks(quoted)}</blockquote>`);
      } else if (ITEM.test(line)) i = list(lines, i, out);
      else if (line.includes('|') && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1])) i = table(lines, i, out);
      else i = paragraph(lines, i, out, tight && out.length === 0);
    }
    return out.join('');
  }

  // Markdown text -> safe HTML.
  function render(text) {
    const escaped = escapeHtml(String(text).replace(/[\u0000\u0001]/g, '').replace(/\r\n?/g, '\n').replace(/\t/g, '    '));
    return blocks(escaped.split('\n'));
  }

  const api = { render, escapeHtml };
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
  else root.ogaiMarkdown = api;
})(typeof window !== 'undefined' ? window : globalThis);
