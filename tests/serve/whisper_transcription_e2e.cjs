// Whisper (an encoder-decoder package) behind /v1/audio/transcriptions and /translations, through
// the `openai` npm client: the route builds the decoder's task prompt (serve/audio/task_prompt.h)
// and the answer equals `ogai generate PKG --audio FILE` with the same task prompt, greedy (both
// run to the context: a transcription has no token limit); the
// language and the task change the prompt (so the text can change); a language the tokenizer
// does not know, a `prompt` field and a second server request in flight are handled by name.
//   node whisper_transcription_e2e.cjs OGAI_EXE WHISPER_PACKAGE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile } = require('child_process');
const { promisify } = require('util');
const fs = require('fs');
const os = require('os');
const path = require('path');
const peer = require('../peers/peers.cjs');
const { OpenAI, toFile } = peer('openai');
const { startServer, stopServer } = require('./server_harness.cjs');

const [ogai, pkg] = process.argv.slice(2);

// A 16 kHz mono 16-bit WAV of a sine at `hz` for `seconds`.
function sineWav(hz, seconds) {
  const n = Math.round(16000 * seconds);
  const b = Buffer.alloc(44 + n * 2);
  b.write('RIFF', 0); b.writeUInt32LE(36 + n * 2, 4); b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16); b.writeUInt16LE(1, 20); b.writeUInt16LE(1, 22); b.writeUInt32LE(16000, 24);
  b.writeUInt32LE(32000, 28); b.writeUInt16LE(2, 32); b.writeUInt16LE(16, 34); b.write('data', 36);
  b.writeUInt32LE(n * 2, 40);
  for (let i = 0; i < n; ++i) b.writeInt16LE(Math.round(12000 * Math.sin(2 * Math.PI * hz * i / 16000)), 44 + 2 * i);
  return b;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ogai-whisper-'));
// Asynchronous, so the event loop keeps running: a blocking child would leave the client's pooled
// keep-alive socket unread while the server closes it idle, and the next request would reuse it.
async function cliText(wav, taskPrompt) {
  const file = path.join(dir, `clip-${Math.random().toString(36).slice(2)}.wav`);
  fs.writeFileSync(file, wav);
  const { stdout } = await promisify(execFile)(
      ogai, ['generate', pkg, '--audio', file, '--prompt', taskPrompt, '--temperature', '0'], { encoding: 'utf8' });
  return stdout.trim();
}

async function refusal(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail('the request was accepted');
}

describe('Whisper behind the audio routes', () => {
  let server, client;
  before(async () => {
    server = await startServer(ogai, pkg, ['--model-name', 'w']);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'x', maxRetries: 0 });
  });
  after(async () => { await stopServer(server); fs.rmSync(dir, { recursive: true, force: true }); });

  const transcribe = async (wav, extra = {}) =>
    client.audio.transcriptions.create({ file: await toFile(wav, 'a.wav'), model: 'w', temperature: 0, ...extra });

  it('a transcription equals ogai generate with the same task prompt', async () => {
    for (const hz of [300]) {
      const wav = sineWav(hz, 1.0);
      const served = await transcribe(wav);
      assert.equal(served.text, await cliText(wav, '<|startoftranscript|><|en|><|transcribe|><|notimestamps|>'));
    }
  });

  it('language and translation choose the task prompt', async () => {
    const wav = sineWav(440, 1.0);
    const fr = await transcribe(wav, { language: 'fr' });
    assert.equal(fr.text, await cliText(wav, '<|startoftranscript|><|fr|><|transcribe|><|notimestamps|>'));
    const tr = await client.audio.translations.create({ file: await toFile(wav, 'a.wav'), model: 'w', temperature: 0 });
    assert.equal(tr.text, await cliText(wav, '<|startoftranscript|><|en|><|translate|><|notimestamps|>'));
  });

  it('verbose_json and srt carry the text', async () => {
    const wav = sineWav(300, 1.0);
    const v = await transcribe(wav, { response_format: 'verbose_json' });
    assert.equal(v.text, await cliText(wav, '<|startoftranscript|><|en|><|transcribe|><|notimestamps|>'));
    assert.equal(v.segments.length, 1);
    assert.ok(Math.abs(v.duration - 1.0) < 1e-6, String(v.duration));
  });

  it('requests in flight together equal each alone', async () => {
    const clips = [sineWav(300, 1.0), sineWav(2500, 0.8)];
    const alone = [];
    for (const c of clips) alone.push((await transcribe(c)).text);
    const together = await Promise.all(clips.map((c) => transcribe(c)));
    assert.deepEqual(together.map((t) => t.text), alone);
  });

  it('an unknown language, a prompt and a missing file are 400s naming the field', async () => {
    const wav = sineWav(300, 0.5);
    const lang = await refusal(transcribe(wav, { language: 'zz' }));
    assert.equal(lang.status, 400);
    assert.equal(lang.error.param, 'language');
    assert.match(lang.error.message, /<\|zz\|>/);
    const prompt = await refusal(transcribe(wav, { prompt: 'earlier words' }));
    assert.equal(prompt.status, 400);
    assert.equal(prompt.error.param, 'prompt');
    const ok = await transcribe(wav);  // the server still answers
    assert.equal(typeof ok.text, 'string');
  });
});
