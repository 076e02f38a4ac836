// POST /v1/audio/transcriptions for a CTC transcription package, through `ogai serve` and the
// `openai` npm client: the package (tests/e2e/ctc_package.py, "audio": an audio-preprocess@1
// adapter and an ONNX encoder whose logits have a known argmax path) transcribes a WAV whose
// samples spell the classes, so the answer is an exact string in every response_format. What a
// CTC package cannot do is refused by name: translations (param `model`), completions (the
// package does not generate), a file that is not audio (param `file`).
//   node ctc_transcription_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const peer = require('../peers/peers.cjs');
const { OpenAI, toFile } = peer('openai');
const { startServer, stopServer, postJson } = require('./server_harness.cjs');

const ogai = process.argv[2];
const e2e = path.join(process.env.OGAI_SOURCE_DIR, 'tests/e2e');

// The package and a WAV of the given classes (sample = class / 4), written by ctc_package.py.
function writeFixtures(dir, classes) {
  const script = 'import sys; sys.path.insert(0, sys.argv[1]); import ctc_package as c; ' +
                 'c.write_package(sys.argv[2], "audio"); c.write_wav(sys.argv[3], [int(x) for x in sys.argv[4].split(",")])';
  execFileSync('/usr/bin/python3', ['-c', script, e2e, path.join(dir, 'pkg'), path.join(dir, 'clip.wav'), classes.join(',')]);
  return { pkg: path.join(dir, 'pkg'), wav: fs.readFileSync(path.join(dir, 'clip.wav')) };
}

async function refusal(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail('the request was accepted');
}

describe('a CTC package answers /v1/audio/transcriptions', () => {
  let server, client, dir, wav;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ogai_ctc_'));
    const f = writeFixtures(dir, [1, 1, 0, 1, 2, 3, 3, 2, 4, 2]);
    wav = f.wav;
    server = await startServer(ogai, f.pkg, ['--model-name', 'ctc']);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'x', maxRetries: 0 });
  });
  after(async () => {
    await stopServer(server);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('json, text and verbose_json carry the decoded text', async () => {
    const json = await client.audio.transcriptions.create({ file: await toFile(wav, 'clip.wav', { type: 'audio/wav' }), model: 'ctc' });
    assert.equal(json.text, 'AAB BB');
    const text = await client.audio.transcriptions.create({ file: await toFile(wav, 'clip.wav'), model: 'ctc', response_format: 'text' });
    assert.equal(String(text).trim(), 'AAB BB');
    const verbose = await client.audio.transcriptions.create({ file: await toFile(wav, 'clip.wav'), model: 'ctc', response_format: 'verbose_json' });
    assert.equal(verbose.text, 'AAB BB');
    assert.equal(verbose.task, 'transcribe');
    assert.ok(Math.abs(verbose.duration - 10 / 16000) < 1e-9, String(verbose.duration));
    assert.equal(verbose.segments[0].text, 'AAB BB');
  });

  it('another clip gives its own text', async () => {
    const other = writeFixtures(fs.mkdtempSync(path.join(dir, 'b')), [3, 3, 1, 2, 2, 0, 1]);
    const json = await client.audio.transcriptions.create({ file: await toFile(other.wav, 'b.wav'), model: 'ctc' });
    assert.equal(json.text, 'ABA');  // | A B <blank> A: the blank keeps the two A's apart
  });

  it('what a CTC package cannot do is refused by name', async () => {
    const tr = await refusal(client.audio.translations.create({ file: await toFile(wav, 'clip.wav'), model: 'ctc' }));
    assert.equal(tr.status, 400, tr.message);
    assert.equal(tr.error.param, 'model');
    assert.match(tr.error.message, /does not translate/);
    const notAudio = await refusal(client.audio.transcriptions.create({ file: await toFile(Buffer.from('hello'), 'a.txt', { type: 'text/plain' }), model: 'ctc' }));
    assert.equal(notAudio.status, 400);
    assert.equal(notAudio.error.param, 'file');
    const broken = await refusal(client.audio.transcriptions.create({ file: await toFile(wav.subarray(0, 30), 'cut.wav'), model: 'ctc' }));
    assert.equal(broken.status, 400, broken.message);
    const completion = await postJson(server.url + '/v1/completions', { model: 'ctc', max_tokens: 2, prompt: [1, 2] });
    assert.ok(completion.status >= 400 && completion.status < 500, completion.text);
    assert.match(completion.text, /transcribes audio/);
    // Still serving after the refusals.
    const again = await client.audio.transcriptions.create({ file: await toFile(wav, 'clip.wav'), model: 'ctc' });
    assert.equal(again.text, 'AAB BB');
  });
});
