// Differential test: ogai's tokenizer against Hugging Face's, on every tokenizer.json in
// ../shared (and synthetic documents that exercise each component type), over a generated corpus.
//   node differential.cjs TOKENIZER_BATCH OGAI
// Reference: `tokenizers` (the Rust library's Node binding). ogai must match it exactly: encode
// with and without special tokens, decode with and without skip_special_tokens, and the
// streaming decoder's output must equal decode. `@huggingface/tokenizers` (JS) is a second peer
// for the shared files: ogai must match it wherever it agrees with the Rust library, and
// everywhere for files the Rust library refuses to load. Disagreements between the two peers are
// counted and printed.
'use strict';
const fs = require('fs');
const path = require('path');
const os = require('os');
const { execFileSync } = require('child_process');
const peers = require('../peers/peers.cjs');
const { corpus, rng } = require('./corpus.cjs');
const { syntheticCases } = require('./synthetic.cjs');

const rustLib = peers('tokenizers');
const jsLib = peers('@huggingface/tokenizers');
const [batchTool, ogaiBin] = process.argv.slice(2);
const shared = process.env.OGAI_SHARED_DIR;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ogai-tokdiff-'));

let passed = 0, failed = 0;
const failures = [];
const reported = new Map();
function check(name, ok, detail) {
  if (ok) { ++passed; return; }
  ++failed;
  const n = reported.get(name) || 0;
  reported.set(name, n + 1);
  if (n < 2 && failures.length < 60) failures.push(`${name}: ${detail}`);
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const show = (s) => JSON.stringify(s).slice(0, 160);
// Both values around their first difference.
function diff(a, b) {
  if (typeof a === 'string' && typeof b === 'string') {
    let i = 0;
    while (i < a.length && a[i] === b[i]) ++i;
    return `at char ${i}: ${show(a.slice(Math.max(0, i - 20), i + 40))} vs ${show(b.slice(Math.max(0, i - 20), i + 40))}`;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    let i = 0;
    while (i < a.length && a[i] === b[i]) ++i;
    return `at id ${i}: ${show(a.slice(Math.max(0, i - 3), i + 8))} vs ${show(b.slice(Math.max(0, i - 3), i + 8))}`;
  }
  return `${show(a)} vs ${show(b)}`;
}

function sharedCases() {
  const files = [];
  const dir = path.join(shared, 'tokenizers');
  for (const name of fs.readdirSync(dir).sort()) {
    const file = path.join(dir, name, 'tokenizer.json');
    if (fs.existsSync(file)) files.push({ name, file, configFile: path.join(dir, name, 'tokenizer_config.json') });
  }
  files.push({ name: 'stories260k', file: path.join(shared, 'models', 'stories260k', 'tokenizer.json') });
  return files.map((c) => ({ ...c, doc: fs.readFileSync(c.file, 'utf8'), withJs: true }));
}

// Some converted SentencePiece files hold merges of tokens that contain spaces ("   " for
// " " + " "), which the Rust library refuses to read. ogai reads such a line as the one split
// whose parts and concatenation are all in the vocabulary; the reference gets the same merges
// written as pairs, so it can still check everything else in the file.
function pairMerges(doc) {
  const vocab = doc.model.vocab;
  doc.model.merges = doc.model.merges.map((m) => {
    if (Array.isArray(m)) return m;
    const splits = [];
    for (let i = m.indexOf(' '); i >= 0; i = m.indexOf(' ', i + 1)) {
      const a = m.slice(0, i), b = m.slice(i + 1);
      if (m.split(' ').length === 2 || (a in vocab && b in vocab && (a + b) in vocab)) splits.push([a, b]);
    }
    return splits.length === 1 ? splits[0] : m;
  });
  return JSON.stringify(doc);
}

function loadRust(c) {
  try { return c.file ? rustLib.Tokenizer.fromFile(c.file) : rustLib.Tokenizer.fromString(c.doc); }
  catch (e) {
    if (!/Merges text file invalid/.test(e.message)) return { error: e.message };
    c.rustNote = 'rust (merges with spaces given as pairs)';
    try { return rustLib.Tokenizer.fromString(pairMerges(JSON.parse(c.doc))); } catch (e2) { return { error: e2.message }; }
  }
}

function loadJs(c) {
  if (!c.withJs) return null;
  const config = c.configFile && fs.existsSync(c.configFile) ? JSON.parse(fs.readFileSync(c.configFile, 'utf8')) : {};
  try { return new jsLib.Tokenizer(JSON.parse(c.doc), config); } catch (e) { return null; }
}

function randomIdLists(vocabSize, specialIds, seed) {
  const r = rng(seed);
  const lists = [];
  for (let i = 0; i < 40; ++i) {
    const n = 1 + Math.floor(r() * 30);
    const ids = [];
    for (let k = 0; k < n; ++k) {
      const x = r();
      if (x < 0.15 && specialIds.length) ids.push(specialIds[Math.floor(r() * specialIds.length)]);
      else if (x < 0.35) ids.push(Math.floor(r() * Math.min(vocabSize, 600)));  // byte tokens live here
      else ids.push(Math.floor(r() * vocabSize));
    }
    lists.push(ids);
  }
  return lists;
}

async function reference(c, rust, texts) {
  const out = { encode: [], encode_plain: [], id_lists: [], decode: [], decode_skip: [] };
  if (JSON.parse(c.doc).padding) {  // a batch would pad to its longest text: encode one by one
    for (const t of texts) {
      out.encode.push((await rust.encode(t, null, { addSpecialTokens: true })).getIds());
      out.encode_plain.push((await rust.encode(t, null, { addSpecialTokens: false })).getIds());
    }
  } else if (texts.length) {
    out.encode = (await rust.encodeBatch(texts, { addSpecialTokens: true })).map((e) => e.getIds());
    out.encode_plain = (await rust.encodeBatch(texts, { addSpecialTokens: false })).map((e) => e.getIds());
  }
  const specialIds = JSON.parse(c.doc).added_tokens.filter((t) => t.special).map((t) => t.id);
  out.id_lists = [...out.encode.filter((ids) => ids.length).slice(0, c.withJs ? 120 : 50), ...randomIdLists(rust.getVocabSize(true), specialIds, 99)];
  out.decode = await rust.decodeBatch(out.id_lists, false);
  out.decode_skip = await rust.decodeBatch(out.id_lists, true);
  return out;
}

function jsReference(jsTok, texts, idLists) {
  const out = { encode: [], encode_plain: [], decode: [], decode_skip: [] };
  for (const t of texts) {
    out.encode.push(jsTok.encode(t, { add_special_tokens: true }).ids);
    out.encode_plain.push(jsTok.encode(t, { add_special_tokens: false }).ids);
  }
  for (const ids of idLists) {
    const opts = { clean_up_tokenization_spaces: false };
    out.decode.push(ids.length ? jsTok.decode(ids, { ...opts, skip_special_tokens: false }) : '');
    out.decode_skip.push(ids.length ? jsTok.decode(ids, { ...opts, skip_special_tokens: true }) : '');
  }
  return out;
}

function compare(c, texts, ours, rustRef, jsRef) {
  const keys = ['encode', 'encode_plain'];
  let jsDisagree = 0;
  for (const key of keys) {
    texts.forEach((t, i) => {
      if (rustRef) check(`${c.name} ${key}`, same(ours[key][i], rustRef[key][i]),
        `text ${show(t)}: ogai vs rust ${diff(ours[key][i], rustRef[key][i])}`);
      if (!jsRef) return;
      const agree = !rustRef || same(jsRef[key][i], rustRef[key][i]);
      if (!agree) { ++jsDisagree; return; }
      check(`${c.name} ${key} (js)`, same(ours[key][i], jsRef[key][i]),
        `text ${show(t)}: ogai vs js ${diff(ours[key][i], jsRef[key][i])}`);
    });
  }
  for (const key of ['decode', 'decode_skip']) {
    ours[key].forEach((text, i) => {
      const ids = show(c.idLists[i]);
      if (rustRef) check(`${c.name} ${key}`, text === rustRef[key][i], `ids ${ids}: ogai vs rust ${diff(text, rustRef[key][i])}`);
      const streamKey = key === 'decode' ? 'stream' : 'stream_skip';
      check(`${c.name} ${streamKey}`, ours[streamKey][i] === text, `ids ${ids}: stream vs decode ${diff(ours[streamKey][i], text)}`);
      if (!jsRef) return;
      if (rustRef && jsRef[key][i] !== rustRef[key][i]) { ++jsDisagree; return; }
      check(`${c.name} ${key} (js)`, text === jsRef[key][i], `ids ${ids}: ogai vs js ${diff(text, jsRef[key][i])}`);
    });
  }
  check(`${c.name} stream chunks`, ours.stream_chunks_utf8 === true, 'a streamed chunk was not valid UTF-8');
  return jsDisagree;
}

async function main() {
  const t0 = Date.now();
  const stamp = (what) => process.env.OGAI_TIMING && console.log(`${what}: ${Date.now() - t0} ms`);
  const cases = [...sharedCases(), ...syntheticCases(shared)];
  const jobs = [];
  for (const c of cases) {
    const rust = c.expectError ? { error: 'not loaded' } : loadRust(c);
    c.rustError = rust.error;
    c.js = c.expectError ? null : loadJs(c);
    if (c.expectError) {
      c.texts = [];
      c.idLists = [];
      const file = path.join(work, `case${jobs.length}.json`);
      fs.writeFileSync(file, c.doc);
      jobs.push({ tokenizer: file, texts: [], id_lists: [] });
      continue;
    }
    const doc = JSON.parse(c.doc);
    c.texts = corpus((doc.added_tokens || []).map((t) => t.content).concat(c.extraSpecials || []), Number(process.env.OGAI_TOKENIZER_SEED || c.seed || 1234));
    // Synthetic documents vary one component each: half the corpus (and every long text) is enough.
    if (!c.withJs) c.texts = c.texts.filter((t, i) => i % 2 === 0 || t.length > 1000);
    if (!rust.error) c.rustRef = await reference(c, rust, c.texts);
    c.idLists = c.rustRef ? c.rustRef.id_lists : randomIdLists(c.js ? c.js.get_vocab().size : 1000, [], 99);
    if (c.js) c.jsRef = jsReference(c.js, c.texts, c.idLists);
    let file = c.file;
    if (!file) fs.writeFileSync(file = path.join(work, `case${jobs.length}.json`), c.doc);
    jobs.push({ tokenizer: file, texts: c.texts, id_lists: c.idLists });
  }
  stamp('references');
  fs.writeFileSync(path.join(work, 'jobs.json'), JSON.stringify({ jobs }));
  execFileSync(batchTool, [path.join(work, 'jobs.json'), path.join(work, 'out.json')], { stdio: 'inherit' });
  stamp('ogai');
  const results = JSON.parse(fs.readFileSync(path.join(work, 'out.json'), 'utf8'));
  cases.forEach((c, k) => {
    const ours = results[k];
    if (c.expectError) {
      check(`${c.name} error`, ours.error && ours.error.includes(c.expectError), `expected error '${c.expectError}', got ${show(ours.error)}`);
      return;
    }
    if (ours.error) { check(`${c.name} load`, false, ours.error); return; }
    if (!c.rustRef && !c.jsRef) { check(`${c.name} reference`, false, `no peer could load it: ${c.rustError}`); return; }
    const before = failed;
    const disagreements = compare(c, c.texts, ours, c.rustRef, c.jsRef);
    const peersUsed = [c.rustRef ? (c.rustNote || 'rust') : `rust refused (${(c.rustError || '').slice(0, 60)})`, c.jsRef ? 'js' : null].filter(Boolean);
    console.log(`${failed === before ? 'ok  ' : 'FAIL'} ${c.name}: ${c.texts.length} texts, ${c.idLists.length} id lists vs ${peersUsed.join(' + ')}` +
      (c.jsRef && c.rustRef ? `; js differs from rust on ${disagreements}` : ''));
  });
  await cliChecks();
  for (const f of failures) console.log('  ' + f);
  fs.rmSync(work, { recursive: true, force: true });
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

// The CLI form other checks call: ids as a JSON array on one line; --decode prints the text
// with no newline; stdin is read whole, trailing newline included.
function cliChecks() {
  const gpt2 = path.join(shared, 'tokenizers', 'gpt2');
  const rust = rustLib.Tokenizer.fromFile(path.join(gpt2, 'tokenizer.json'));
  const run = (args, input) => execFileSync(ogaiBin, ['tokenize', ...args], { input: input ?? '', encoding: 'utf8' });
  const text = 'Hello world\n';
  return Promise.all([rust.encode(text, null, { addSpecialTokens: false })]).then(([enc]) => {
    const ids = enc.getIds();
    check('cli stdin', run([gpt2], text) === JSON.stringify(ids) + '\n', `got ${show(run([gpt2], text))}`);
    check('cli --text', run([path.join(gpt2, 'tokenizer.json'), '--text', text, '--json']) === JSON.stringify(ids) + '\n', 'mismatch');
    check('cli --decode', run([gpt2, '--decode'], JSON.stringify(ids)) === text, 'mismatch');
  }).then(async () => {
    // A template post-processor: <s> by default, none with --no-special; --skip-special on decode.
    const stories = path.join(shared, 'models', 'stories260k');
    const ref = rustLib.Tokenizer.fromFile(path.join(stories, 'tokenizer.json'));
    const text = 'Once upon a time';
    const withSpecial = (await ref.encode(text, null, { addSpecialTokens: true })).getIds();
    const plain = (await ref.encode(text, null, { addSpecialTokens: false })).getIds();
    check('cli specials', run([stories, '--text', text]) === JSON.stringify(withSpecial) + '\n', 'mismatch');
    check('cli --no-special', run([stories, '--text', text, '--no-special']) === JSON.stringify(plain) + '\n', 'mismatch');
    check('cli --skip-special', run([stories, '--decode', '--skip-special'], JSON.stringify(withSpecial)) ===
      await ref.decode(withSpecial, true), 'mismatch');
    check('cli decode with specials', run([stories, '--decode'], JSON.stringify(withSpecial)) ===
      await ref.decode(withSpecial, false), 'mismatch');
  });
}

main().catch((e) => { console.error(e); process.exit(1); });
