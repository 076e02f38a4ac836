// Synthetic tokenizer.json documents for the differential test: the shared tokenizers with one
// component swapped, so that every normalizer, pre-tokenizer, model, post-processor, decoder,
// added-token option and truncation/padding setting runs against the Rust reference, plus
// documents that must fail to load with a precise message.
'use strict';
const fs = require('fs');
const path = require('path');

function trainBpe(words, { prefix = '', suffix = '', merges = 300 }) {
  let seqs = words.map((w) => Array.from(w).map((c, i, all) => (i ? prefix : '') + c + (i === all.length - 1 ? suffix : '')));
  const vocab = new Map();
  const add = (t) => { if (!vocab.has(t)) vocab.set(t, vocab.size); };
  add('<unk>');
  seqs.flat().forEach(add);
  const rules = [];
  for (let k = 0; k < merges; ++k) {
    const counts = new Map();
    for (const s of seqs) for (let i = 0; i + 1 < s.length; ++i) {
      const key = s[i] + ' ' + s[i + 1];
      counts.set(key, (counts.get(key) || 0) + 1);
    }
    let best = null, bestCount = 1;
    for (const [key, n] of counts) if (n > bestCount) best = key, bestCount = n;
    if (!best) break;
    const [a, b] = best.split(' ');
    const merged = a + (prefix && b.startsWith(prefix) ? b.slice(prefix.length) : b);
    add(merged);
    rules.push(best);
    seqs = seqs.map((s) => {
      const out = [];
      for (let i = 0; i < s.length; ++i) {
        if (i + 1 < s.length && s[i] === a && s[i + 1] === b) out.push(merged), ++i;
        else out.push(s[i]);
      }
      return out;
    });
  }
  return { vocab: Object.fromEntries(vocab), merges: rules };
}

function syntheticCases(shared) {
  const load = (name) => JSON.parse(fs.readFileSync(path.join(shared, 'tokenizers', name, 'tokenizer.json'), 'utf8'));
  const bert = load('bert-base-uncased'), gpt2 = load('gpt2'), t5 = load('t5-small'), phi3 = load('phi-3-mini');
  const cases = [];
  const variant = (name, base, overrides, extra = {}) =>
    cases.push({ name, doc: JSON.stringify({ ...base, ...overrides }), ...extra });

  // Normalizers (on BERT's WordPiece model and pre-tokenizer).
  const norms = {
    NFC: { type: 'NFC' }, NFD: { type: 'NFD' }, NFKC: { type: 'NFKC' }, NFKD: { type: 'NFKD' },
    Lowercase: { type: 'Lowercase' }, Strip: { type: 'Strip', strip_left: true, strip_right: false },
    StripAccents: { type: 'Sequence', normalizers: [{ type: 'NFD' }, { type: 'StripAccents' }, { type: 'Lowercase' }] },
    ReplaceString: { type: 'Replace', pattern: { String: 'o' }, content: '0' },
    ReplaceRegex: { type: 'Replace', pattern: { Regex: '\\s+' }, content: ' ' },
    Prepend: { type: 'Prepend', prepend: '##' },
    BertNoLower: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: true, lowercase: false },
    BertPlain: { type: 'BertNormalizer', clean_text: false, handle_chinese_chars: false, strip_accents: null, lowercase: true },
    Precompiled: { type: 'Sequence', normalizers: [t5.normalizer, { type: 'Lowercase' }] },
    ByteLevelNorm: { type: 'ByteLevel' },
  };
  for (const [name, n] of Object.entries(norms)) variant(`normalizer ${name}`, bert, { normalizer: n });

  // Pre-tokenizers (on BERT's model).
  const behaviors = ['Removed', 'Isolated', 'MergedWithPrevious', 'MergedWithNext', 'Contiguous'];
  const pres = {
    Whitespace: { type: 'Whitespace' }, WhitespaceSplit: { type: 'WhitespaceSplit' },
    DigitsSingle: { type: 'Digits', individual_digits: true }, DigitsRun: { type: 'Sequence', pretokenizers: [{ type: 'WhitespaceSplit' }, { type: 'Digits', individual_digits: false }] },
    UnicodeScripts: { type: 'UnicodeScripts' }, CharDelimiter: { type: 'CharDelimiterSplit', delimiter: 'e' },
    RegexInvert: { type: 'Split', pattern: { Regex: '\\w+|[^\\w\\s]+' }, behavior: 'Removed', invert: true },
    Sequence: { type: 'Sequence', pretokenizers: [{ type: 'Whitespace' }, { type: 'Digits', individual_digits: true }, { type: 'Punctuation', behavior: 'Isolated' }] },
  };
  for (const b of behaviors) {
    pres[`Punctuation ${b}`] = { type: 'Punctuation', behavior: b };
    pres[`SplitString ${b}`] = { type: 'Split', pattern: { String: ' ' }, behavior: b, invert: false };
    pres[`SplitRegex ${b}`] = { type: 'Split', pattern: { Regex: '\\s+|[,.!?]' }, behavior: b, invert: false };
  }
  for (const [name, p] of Object.entries(pres)) variant(`pre-tokenizer ${name}`, bert, { pre_tokenizer: p });

  // Metaspace on T5's Unigram model and on Phi-3's BPE model.
  for (const scheme of ['first', 'always', 'never']) {
    for (const split of [true, false]) {
      const meta = { type: 'Metaspace', replacement: '\u2581', prepend_scheme: scheme, split };
      variant(`Metaspace ${scheme} split=${split} (Unigram)`, t5, {
        pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'WhitespaceSplit' }, meta] },
        decoder: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: scheme, split } });
      variant(`Metaspace ${scheme} split=${split} (BPE)`, phi3, {
        normalizer: null, pre_tokenizer: meta, decoder: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: scheme, split } });
    }
  }

  // Byte-level BPE variants on GPT-2.
  const llama3 = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
  const qwen2 = llama3.replace('\\p{N}{1,3}', '\\p{N}');
  const splitThenBytes = (regex) => ({ type: 'Sequence', pretokenizers: [
    { type: 'Split', pattern: { Regex: regex }, behavior: 'Isolated', invert: false },
    { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false }] });
  variant('ByteLevel add_prefix_space', gpt2, { pre_tokenizer: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true } });
  variant('ByteLevel no regex', gpt2, { pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false } });
  variant('Split llama3 + ByteLevel', gpt2, { pre_tokenizer: splitThenBytes(llama3) });
  variant('Split qwen2 + ByteLevel', gpt2, { pre_tokenizer: splitThenBytes(qwen2) });
  variant('Split custom regex + ByteLevel', gpt2, { pre_tokenizer: splitThenBytes('\\p{L}+|\\p{N}|[^\\p{L}\\p{N}\\s]+') });
  variant('BPE ignore_merges', gpt2, { model: { ...gpt2.model, ignore_merges: true }, pre_tokenizer: splitThenBytes(llama3) });
  variant('NFC + ByteLevel', gpt2, { normalizer: { type: 'NFC' } });

  // Models.
  variant('WordLevel', bert, { model: { type: 'WordLevel', vocab: bert.model.vocab, unk_token: '[UNK]' }, pre_tokenizer: { type: 'Whitespace' } });
  const unigramBytes = { ...t5.model, byte_fallback: true, vocab: [...t5.model.vocab, ...Array.from({ length: 256 }, (_, b) => [`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`, -30])] };
  variant('Unigram byte_fallback', t5, { model: unigramBytes, added_tokens: [] });
  variant('BPE unk fuse', phi3, { model: { ...phi3.model, byte_fallback: false, fuse_unk: true } });
  variant('BPE unk no fuse', phi3, { model: { ...phi3.model, byte_fallback: false, fuse_unk: false } });
  const words = require('./corpus.cjs').corpus([]).join(' ').toLowerCase().split(/[^a-z]+/).filter((w) => w);
  const suffixBpe = trainBpe(words, { suffix: '</w>' });
  variant('BPE end_of_word_suffix', bert, {
    model: { type: 'BPE', vocab: suffixBpe.vocab, merges: suffixBpe.merges, unk_token: '<unk>', end_of_word_suffix: '</w>' },
    added_tokens: [], post_processor: null, pre_tokenizer: { type: 'Whitespace' }, decoder: { type: 'BPEDecoder', suffix: '</w>' } });
  const prefixBpe = trainBpe(words, { prefix: '##' });
  variant('BPE continuing_subword_prefix', bert, {
    model: { type: 'BPE', vocab: prefixBpe.vocab, merges: prefixBpe.merges.map((m) => m.split(' ')), unk_token: '<unk>', continuing_subword_prefix: '##' },
    added_tokens: [], post_processor: null, decoder: { type: 'WordPiece', prefix: '##', cleanup: false } });
  const chars = {};
  'abcdefghijklmnopqrstuvwxyz|'.split('').forEach((c, i) => { chars[c] = i + 1; });
  chars['<pad>'] = 0;
  variant('CTC', bert, { model: { type: 'WordLevel', vocab: chars, unk_token: '<pad>' }, normalizer: { type: 'Lowercase' },
    pre_tokenizer: { type: 'Split', pattern: { Regex: '.' }, behavior: 'Isolated', invert: false }, post_processor: null, added_tokens: [],
    decoder: { type: 'CTC', pad_token: '<pad>', word_delimiter_token: '|', cleanup: true } });

  // Post-processors and decoders.
  variant('RobertaProcessing', gpt2, { post_processor: { type: 'RobertaProcessing', sep: ['<|endoftext|>', 50256], cls: ['<|endoftext|>', 50256], trim_offsets: true, add_prefix_space: false } });
  variant('BertProcessing', bert, { post_processor: { type: 'BertProcessing', sep: ['[SEP]', 102], cls: ['[CLS]', 101] } });
  variant('Sequence post-processor', gpt2, { post_processor: { type: 'Sequence', processors: [gpt2.post_processor,
    { type: 'TemplateProcessing', single: [{ SpecialToken: { id: '<|endoftext|>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '<|endoftext|>', type_id: 0 } }],
      pair: [{ Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }], special_tokens: { '<|endoftext|>': { id: '<|endoftext|>', ids: [50256], tokens: ['<|endoftext|>'] } } }] } });
  variant('WordPiece decoder no cleanup', bert, { decoder: { type: 'WordPiece', prefix: '##', cleanup: false } });
  variant('Strip + Replace regex decoders', phi3, { decoder: { type: 'Sequence', decoders: [
    { type: 'Replace', pattern: { Regex: '\u2581+' }, content: ' ' }, { type: 'ByteFallback' }, { type: 'Fuse' }, { type: 'Strip', content: ' ', start: 2, stop: 0 }] } });
  // (Strip with stop > 0 is left to the unit tests: the Rust library panics on tokens shorter than `stop`.)

  // Added tokens with every option, normalized and not. Their ids are those the Rust library
  // writes: a content in the model vocabulary has its vocabulary id, a new one the next free id.
  const added = (content, opts) => ({ id: 0, content, single_word: false, lstrip: false, rstrip: false, normalized: true, special: false, ...opts });
  variant('added tokens (WordPiece)', bert, { added_tokens: [...bert.added_tokens,
    added('hello world', { id: 30522 }), added('[SPECIAL]', { id: 30523, special: true, normalized: false, lstrip: true, rstrip: true }),
    added('ab', { id: bert.model.vocab.ab, single_word: true }), added('xyz', { id: 30524, rstrip: true, normalized: false }),
    added('Québec', { id: 30525, normalized: true }), added('hello', { id: 7592 })] });
  variant('added tokens (byte-level)', gpt2, { added_tokens: [...gpt2.added_tokens,
    added('<tool>', { id: 50257, special: true, normalized: false, lstrip: true }), added('ing', { id: gpt2.model.vocab.ing, single_word: true, normalized: false }),
    added('  ', { id: 50258, normalized: false }), added('</tool>', { id: 50259, special: true, rstrip: true, normalized: false })] },
    { extraSpecials: ['<tool>', '</tool>'] });

  // Truncation and padding from the file.
  variant('truncation right + fixed padding', bert, { truncation: { direction: 'Right', max_length: 12, strategy: 'LongestFirst', stride: 0 },
    padding: { strategy: { Fixed: 16 }, direction: 'Right', pad_to_multiple_of: null, pad_id: 0, pad_type_id: 0, pad_token: '[PAD]' } });
  variant('truncation left + padding multiple', bert, { truncation: { direction: 'Left', max_length: 20, strategy: 'LongestFirst', stride: 0 },
    padding: { strategy: 'BatchLongest', direction: 'Left', pad_to_multiple_of: 8, pad_id: 0, pad_type_id: 0, pad_token: '[PAD]' } });

  // Documents that must fail to load, with the position or JSON path in the message.
  const bad = (name, doc, expectError) => cases.push({ name, doc, expectError });
  bad('error: unknown normalizer', JSON.stringify({ ...bert, normalizer: { type: 'Sequence', normalizers: [{ type: 'NFC' }, { type: 'Foo' }] } }),
    "unsupported normalizer 'Foo' at normalizer.normalizers[1]");
  bad('error: unknown pre-tokenizer', JSON.stringify({ ...bert, pre_tokenizer: { type: 'Bar' } }), "unsupported pre-tokenizer 'Bar' at pre_tokenizer");
  bad('error: unknown decoder', JSON.stringify({ ...bert, decoder: { type: 'Sequence', decoders: [{ type: 'Baz' }] } }), "unsupported decoder 'Baz' at decoder.decoders[0]");
  bad('error: unknown model', JSON.stringify({ ...bert, model: { type: 'Qux', vocab: {} } }), "unsupported model 'Qux' at model");
  bad('error: unknown post-processor', JSON.stringify({ ...bert, post_processor: { type: 'Zap' } }), "unsupported post-processor 'Zap' at post_processor");
  bad('error: malformed JSON', '{\n  "model": {"type": "BPE",\n    "vocab": {"a": 0,}\n  }\n}', 'malformed JSON at line 3, column 22');
  return cases;
}

module.exports = { syntheticCases, trainBpe };
