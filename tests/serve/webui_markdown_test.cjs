// The chat page's Markdown renderer (src/serve/webui/markdown.js) under Node: what it renders, and
// that no input makes it emit a tag, attribute or URL scheme of its own choosing (the model's text
// reaches innerHTML only through it).
//   node webui_markdown_test.cjs
'use strict';
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { render, escapeHtml } = require(path.join(process.env.OGAI_SOURCE_DIR || path.join(__dirname, '../..'),
                                                 'src/serve/webui/markdown.js'));

const ALLOWED_TAGS = new Set(['p', 'br', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'strong', 'em', 'del', 'code', 'pre', 'ul',
                              'ol', 'li', 'blockquote', 'hr', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'a', 'div',
                              'span', 'button']);
const ALLOWED_ATTRS = new Set(['href', 'target', 'rel', 'class', 'start', 'type']);

// Every tag and attribute in `html` is one the renderer itself writes; hrefs are http(s)/mailto.
function assertSafe(html, input) {
  for (const m of html.matchAll(/<\/?([a-zA-Z0-9]+)([^>]*)>/g)) {
    assert.ok(ALLOWED_TAGS.has(m[1].toLowerCase()), `tag <${m[1]}> from ${JSON.stringify(input)}: ${html}`);
    const attrs = m[2].replace(/"[^"]*"/g, '""');
    for (const a of attrs.matchAll(/([^\s=]+)=/g))
      assert.ok(ALLOWED_ATTRS.has(a[1].toLowerCase()), `attribute ${a[1]} from ${JSON.stringify(input)}: ${html}`);
    for (const h of m[2].matchAll(/href="([^"]*)"/g)) assert.match(h[1], /^(https?:\/\/|mailto:)/i);
  }
  assert.ok(!/<[a-zA-Z]/.test(html.replace(/<\/?([a-zA-Z0-9]+)[^>]*>/g, '')), `stray tag in ${html}`);
}

describe('markdown.js renders', () => {
  it('headings, emphasis, inline code and links', () => {
    assert.equal(render('# Title'), '<h1>Title</h1>');
    assert.equal(render('a **b** *c* _d_ ~~e~~ `f<g>`'),
                 '<p>a <strong>b</strong> <em>c</em> <em>d</em> <del>e</del> <code>f&lt;g&gt;</code></p>');
    assert.equal(render('[x](https://a.b/?q=1&r=2)'),
                 '<p><a href="https://a.b/?q=1&amp;r=2" target="_blank" rel="noopener noreferrer">x</a></p>');
    assert.equal(render('snake_case_name **`code`**'), '<p>snake_case_name <strong><code>code</code></strong></p>');
    assert.equal(render('line one\nline two\n\nnext'), '<p>line one<br>line two</p><p>next</p>');
  });

  it('fenced code, closed or still streaming', () => {
    const html = render('```python\nprint("<hi>")\n```\nafter');
    assert.match(html, /<span class="code-lang">python<\/span>/);
    assert.match(html, /<pre><code class="language-python">print\(&quot;&lt;hi&gt;&quot;\)<\/code><\/pre>/);
    assert.match(html, /<p>after<\/p>$/);
    assert.match(render('```\nunfinished **not bold**'), /<code>unfinished \*\*not bold\*\*<\/code>/);
  });

  it('lists (nested), quotes, rules and tables', () => {
    assert.equal(render('- a\n- b\n  - c\n- d'), '<ul><li>a</li><li>b<ul><li>c</li></ul></li><li>d</li></ul>');
    assert.equal(render('3. x\n4. y'), '<ol start="3"><li>x</li><li>y</li></ol>');
    assert.equal(render('> q\n> r'), '<blockquote><p>q<br>r</p></blockquote>');
    assert.equal(render('a\n\n---\n\nb'), '<p>a</p><hr><p>b</p>');
    assert.equal(render('| h | i |\n|:-:|--:|\n| 1 | 2 |'),
                 '<table><thead><tr><th class="align-center">h</th><th class="align-right">i</th></tr></thead>' +
                 '<tbody><tr><td class="align-center">1</td><td class="align-right">2</td></tr></tbody></table>');
  });
});

describe('markdown.js is safe', () => {
  const attacks = [
    '<script>alert(1)</script>', '<img src=x onerror=alert(1)>', '<a href="javascript:alert(1)">x</a>',
    '[x](javascript:alert(1))', '[x](JaVaScRiPt:alert(1))', '[x](data:text/html,<script>alert(1)</script>)',
    '[x](https://a" onmouseover="alert(1))', '[x](https://a"onmouseover="alert(1))', '`<b>`**<i>**',
    '```"><script>alert(1)</script>\ncode\n```', '```js" onclick="x\ncode\n```', '| <b> | x |\n|---|---|\n| <i> | y |',
    '- <svg onload=alert(1)>\n  - <iframe src=x>', '> <style>body{}</style>', '# <h1 onclick=x>',
    '\u0001 0 \u0001 [a](https://x) \u00010\u0001', '<!-- comment -->', '&lt;script&gt;', '**[x](https://a/**b**)**',
    '[`x`](https://a)', '[a](https://x)[b](mailto:y) <a href=https://z>',
  ];
  for (const input of attacks) {
    it(`escapes ${JSON.stringify(input)}`, () => assertSafe(render(input), input));
  }

  it('never un-escapes entities the input wrote', () => {
    assert.equal(render('&lt;b&gt;'), '<p>&amp;lt;b&amp;gt;</p>');
    assert.equal(escapeHtml(`<>&"'`), '&lt;&gt;&amp;&quot;&#39;');
  });

  it('survives random input with no stray tag', () => {
    const alphabet = ['<', '>', '"', "'", '&', '`', '*', '_', '~', '[', ']', '(', ')', '|', '-', '#', '\n', ' ', 'a',
                      'javascript:', 'https://', 'script', 'on', '=', '>', '1.', '\u0001'];
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    for (let n = 0; n < 2000; ++n) {
      let s = '';
      for (let k = next() % 60; k > 0; --k) s += alphabet[next() % alphabet.length];
      assertSafe(render(s), s);
    }
  });
});
