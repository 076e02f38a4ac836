// The differential-test corpus, generated deterministically: many scripts, emoji and ZWJ
// sequences, combining marks, whitespace runs, code, numbers, strings that need byte fallback,
// random mixtures and long inputs. `specials` are a tokenizer's added tokens, placed inside text.
'use strict';

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    return s / 4294967296;
  };
}

const FIXED = [
  '', ' ', '  ', 'a', 'Hello world', 'Hello, World! How are you?', "It's a dog's life; they'll say I'M fine, we've, you're, he'd",
  'The quick brown fox jumps over the lazy dog.', '   leading spaces', 'trailing spaces   ', 'a  b   c    d',
  'tabs\tand\t\ttabs', 'new\nlines\n\nand\r\nCRLF\r\n', ' \n \n  x', '\n', '\t', '\u3000ideographic\u3000space',
  'nbsp\u00a0here', 'zero\u200bwidth\u200djoiner', 'soft\u00adhyphen', 'ctrl\u0001\u0002\u007f chars', 'bom\ufeffmark',
  'replacement \ufffd char', 'numbers 0 12 345 6789 1234567890 3.14159 1,000,000 -42 +7 1e10',
  'def f(x):\n    return x**2  # square\n\nfor i in range(10):\n\tprint(i)',
  'int main() { std::vector<int> v{1, 2, 3}; return v[0] + v.size(); }', '{"key": [1, 2, {"n": null}], "s": "\\n"}',
  '<html><body class="x">Hi &amp; bye</body></html>', 'email@example.com https://example.org/a?b=c&d=e#f',
  'naïve café résumé Ångström façade jalapeño über Straße', 'cafe\u0301 e\u0301\u0301 a\u030a n\u0303',
  'Ελληνικά κείμενα με τόνους', 'Русский текст, ёлка и Ё', 'Українська мова: ї, є, ґ', 'עברית עם ניקוד שָׁלוֹם',
  'العربية: مرحبا بالعالم ١٢٣', 'हिन्दी में लिखा गया पाठ', 'বাংলা লিপি', 'தமிழ் எழுத்துக்கள்', 'ภาษาไทยไม่มีช่องว่าง',
  '中文文本，包括标点符号。', '日本語のテキスト、ひらがなとカタカナ、ー長音', '한국어 텍스트 입니다', 'Tiếng Việt có dấu: Điều này',
  'emoji 😀😃😄 👍🏽 👩‍💻 👨‍👩‍👧‍👦 🇫🇷🇯🇵 ❤️ ✨', '🏳️‍🌈 family 👨‍👨‍👧 skin 👋🏿👋🏻', 'math ∑∫√∞≠≤≥ ± × ÷ ∂ ∇ α β γ',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝓜𝓪𝓽𝓱 𝟙𝟚𝟛', 'rare ꙮ 𐍈 𓀀 𒀀 ᚠᛇᚻ', 'Ⅻ ½ ² ³ ¼ ① ⑳', 'ﬁ ﬂ ﬀ ＡＢＣ ｱｲｳ ㍿ ㎞', 'ALL CAPS AND MiXeD CaSe',
  '...!!!???,,,;;;:::', "quotes 'single' \"double\" “curly” ‘x’ «guillemets» „low“", 'dashes - – — ― hyphen-ated',
  'İstanbul ǅ ǈ ß ẞ ς σ Σ', 'path/to/file.txt C:\\Windows\\system32', '@user #hashtag $100 50% ^caret ~tilde `tick`',
  'a\u0000b', "''s 's 'S 'T 're 'Re 'LL ' s", 'x\u2028y\u2029z\u0085w\u000bv\u000cu',
];

const POOL = Array.from('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789' +
  '     \t\n\r.,;:!?\'"-_()[]{}<>/\\@#$%^&*+=~`|' +
  'éèêëàâäïîôöùûüçñÅØæœß' + 'αβγδεζηθ' + 'абвгдежз' + '中文字符测试日本語' + 'ひらがなカタカナー' + '한국어' +
  'عربي' + 'हिन्दी' + 'ไทย' + '\u0301\u0308\u200d\u3000\u00a0' + '😀👍🏽✨❤️🇫🇷𝔘ꙮ①½');

function randomText(r, len) {
  let s = '';
  for (let i = 0; i < len; ++i) s += POOL[Math.floor(r() * POOL.length)];
  return s;
}

// Texts that put each special/added token inside words, beside spaces and at the ends.
function specialTexts(specials) {
  const out = [];
  for (const t of specials.slice(0, 12)) {
    out.push(t, `${t}Hello`, `Hello${t}`, `foo ${t} bar`, `foo${t}bar`, `  ${t}  x`, `a\n${t}\nb`, `${t}${t}`,
      `x ${t.toLowerCase()} y`);
  }
  if (specials.length > 1) out.push(specials.join(' middle '), specials.slice(0, 5).join(''));
  return out;
}

// Random code points from many blocks (marks, scripts, symbols, private use, unassigned, planes
// 1, 2 and 14): these catch differences in Unicode tables, which Hugging Face takes from several
// Unicode versions.
const BLOCKS = [[0x20, 0x7e], [0x9, 0xd], [0xa0, 0x24f], [0x300, 0x36f], [0x370, 0x3ff], [0x400, 0x4ff],
  [0x530, 0x58f], [0x590, 0x6ff], [0x860, 0x8ff], [0x900, 0x97f], [0xe00, 0xe7f], [0x1100, 0x11ff], [0x1700, 0x18af],
  [0x1cd0, 0x1cff], [0x2000, 0x206f], [0x2070, 0x22ff], [0x2460, 0x24ff], [0x2e00, 0x2e7f], [0x3000, 0x30ff],
  [0x4e00, 0x4f00], [0xa900, 0xa9ff], [0xac00, 0xad00], [0xe000, 0xe010], [0xfb00, 0xfb4f], [0xfe00, 0xfe0f],
  [0xff00, 0xffef], [0x111c0, 0x111df], [0x1d400, 0x1d7ff], [0x1e900, 0x1e95f], [0x1f300, 0x1f6ff],
  [0x1f900, 0x1f9ff], [0x20000, 0x20100], [0xe0001, 0xe007f], [0x10fffe, 0x10ffff],
  // assigned in Unicode 15.0 and 16.0
  [0x31350, 0x323af], [0x11f00, 0x11f5f], [0x10d40, 0x10d8f], [0xa7c0, 0xa7df], [0x105c0, 0x105ff],
  [0x1ccf0, 0x1ccf9], [0x11bc0, 0x11bff], [0x11380, 0x113ff], [0x1e4d0, 0x1e4ff], [0x1c80, 0x1c8f]];

function codePointTexts(seed, count) {
  const r = rng(seed);
  const texts = [];
  for (let k = 0; k < count; ++k) {
    let t = '';
    for (let n = 1 + Math.floor(r() * 30); n > 0; --n) {
      const [a, b] = BLOCKS[Math.floor(r() * BLOCKS.length)];
      const cp = a + Math.floor(r() * (b - a + 1));
      t += String.fromCodePoint(cp >= 0xd800 && cp <= 0xdfff ? 0x41 : cp);
      if (r() < 0.2) t += ' ';
    }
    texts.push(t);
  }
  return texts;
}

function corpus(specials, seed = 1234) {
  const r = rng(seed);
  const texts = [...FIXED, ...specialTexts(specials)];
  for (let i = 0; i < 60; ++i) texts.push(randomText(r, 1 + Math.floor(r() * 40)));
  for (let i = 0; i < 20; ++i) {
    const parts = [randomText(r, 8), specials.length ? specials[Math.floor(r() * specials.length)] : '', randomText(r, 8)];
    texts.push(parts.join(r() < 0.5 ? ' ' : ''));
  }
  texts.push(...codePointTexts(seed + 1, process.env.OGAI_LONG_TESTS === '1' ? 1500 : 40));
  texts.push(FIXED.join(' ').repeat(8));
  texts.push(randomText(r, 3000));
  texts.push(' '.repeat(300) + 'x' + '\n'.repeat(50) + '\t'.repeat(20));
  texts.push('a'.repeat(500) + ' ' + '1'.repeat(400));
  return texts;
}

module.exports = { corpus, rng, randomText, codePointTexts };
