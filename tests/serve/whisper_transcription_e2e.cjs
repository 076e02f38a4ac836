// Whisper (an encoder-decoder package) behind /v1/audio/transcriptions and /translations, through
// the `openai` npm client: the route drives the decoder (serve/audio/whisper_transcriber.h) and
// each answer equals `ogai generate PKG --audio FILE` with the task prompt it should have used,
// greedy (both run to the context: a transcription has no token limit): the language given or
// detected (reported by verbose_json), the task, the `prompt` field as <|startofprev|> context,
// audio over 30 s as consecutive 30 s windows. Timestamped formats (verbose_json, srt, vtt) give
// segments within the audio, in order, and srt / vtt cues equal verbose_json's segments. A
// language the tokenizer does not know and a second request in flight are handled by name.
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

// A 16 kHz mono 16-bit WAV of a sine at `hz` for `seconds` (samples [from, from + seconds) of it).
function sineWav(hz, seconds, from = 0) {
  const n = Math.round(16000 * seconds), first = Math.round(16000 * from);
  const b = Buffer.alloc(44 + n * 2);
  b.write('RIFF', 0); b.writeUInt32LE(36 + n * 2, 4); b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16); b.writeUInt16LE(1, 20); b.writeUInt16LE(1, 22); b.writeUInt32LE(16000, 24);
  b.writeUInt32LE(32000, 28); b.writeUInt16LE(2, 32); b.writeUInt16LE(16, 34); b.write('data', 36);
  b.writeUInt32LE(n * 2, 40);
  for (let i = 0; i < n; ++i) b.writeInt16LE(Math.round(12000 * Math.sin(2 * Math.PI * hz * (first + i) / 16000)), 44 + 2 * i);
  return b;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ogai-whisper-'));
// Asynchronous, so the event loop keeps running: a blocking child would leave the client's pooled
// keep-alive socket unread while the server closes it idle, and the next request would reuse it.
async function cliText(wav, taskPrompt) {
  const file = path.join(dir, `clip-${Math.random().toString(36).slice(2)}.wav`);
  fs.writeFileSync(file, wav);
  const { stdout } = await promisify(execFile)(
      ogai, ['generate', pkg, '--audio', file, '--prompt', taskPrompt, '--temperature', '0'],
      { encoding: 'utf8', maxBuffer: 1 << 24 });
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
    server = await startServer(ogai, pkg, ['--model-name', 'w', '--max-audio-seconds', '40']);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'x', maxRetries: 0 });
  });
  after(async () => { await stopServer(server); fs.rmSync(dir, { recursive: true, force: true }); });

  const transcribe = async (wav, extra = {}) =>
    client.audio.transcriptions.create({ file: await toFile(wav, 'a.wav'), model: 'w', temperature: 0, ...extra });

  it('a transcription equals ogai generate with the same task prompt', async () => {
    const wav = sineWav(300, 1.0);
    const served = await transcribe(wav, { language: 'en' });
    assert.equal(served.text, await cliText(wav, '<|startoftranscript|><|en|><|transcribe|><|notimestamps|>'));
  });

  it('without a language, the detected one is reported and used', async () => {
    for (const hz of [300, 1700]) {
      const wav = sineWav(hz, 1.0);
      const v = await transcribe(wav, { response_format: 'verbose_json' });
      assert.match(v.language, /^[a-z]{2,3}$/);
      const plain = await transcribe(wav);
      assert.equal(plain.text, await cliText(wav, `<|startoftranscript|><|${v.language}|><|transcribe|><|notimestamps|>`));
    }
  });

  it('the prompt field is previous text before the task prompt, not part of the answer', async () => {
    const wav = sineWav(440, 1.0);
    const served = await transcribe(wav, { language: 'en', prompt: '  earlier words ' });
    assert.equal(served.text,
                 await cliText(wav, '<|startofprev|> earlier words<|startoftranscript|><|en|><|transcribe|><|notimestamps|>'));
    const without = await transcribe(wav, { language: 'en' });
    assert.notEqual(served.text, without.text);  // the context changes what the decoder reads
  });

  it('audio over 30 s is transcribed in consecutive 30 s windows', async () => {
    const served = await transcribe(sineWav(300, 33.0), { language: 'en' });
    const task = '<|startoftranscript|><|en|><|transcribe|><|notimestamps|>';
    const first = await cliText(sineWav(300, 30.0), task);
    const second = await cliText(sineWav(300, 3.0, 30.0), task);
    assert.equal(served.text, [first, second].filter((t) => t !== '').join(' '));
  });

  it('timestamped segments lie within the audio, in order, and srt / vtt carry them', async () => {
    for (const seconds of [1.0, 33.0]) {
      const wav = sineWav(700, seconds);
      const v = await transcribe(wav, { response_format: 'verbose_json', timestamp_granularities: ['segment'] });
      assert.ok(Math.abs(v.duration - seconds) < 1e-6, String(v.duration));
      assert.ok(v.segments.length >= 1);
      let last = 0;
      for (const s of v.segments) {
        assert.ok(s.start >= last - 1e-9 && s.end >= s.start && s.end <= seconds + 1e-9, JSON.stringify(s));
        last = s.start;
      }
      if (seconds > 30) assert.ok(v.segments[v.segments.length - 1].end > 30 - 1e-9, 'the second window is read');
      const cue = (t, sep) => {
        const ms = Math.round(t * 1000), p = (n, w) => String(n).padStart(w, '0');
        return `${p(Math.floor(ms / 3600000), 2)}:${p(Math.floor(ms / 60000) % 60, 2)}:${p(Math.floor(ms / 1000) % 60, 2)}${sep}${p(ms % 1000, 3)}`;
      };
      const srt = await transcribe(wav, { response_format: 'srt' });
      assert.equal(srt, v.segments.map((s, i) => `${i + 1}\n${cue(s.start, ',')} --> ${cue(s.end, ',')}\n${s.text}\n\n`).join(''));
      const vtt = await transcribe(wav, { response_format: 'vtt' });
      assert.equal(vtt, 'WEBVTT\n\n' + v.segments.map((s) => `${cue(s.start, '.')} --> ${cue(s.end, '.')}\n${s.text}\n\n`).join(''));
    }
  });

  it('audio over --max-audio-seconds is a 400 naming the flag, and the server keeps answering', async () => {
    const e = await refusal(transcribe(sineWav(300, 41.0), { language: 'en' }));
    assert.equal(e.status, 400);
    assert.match(e.message, /--max-audio-seconds/);
    assert.ok((await transcribe(sineWav(300, 1.0), { language: 'en' })).text !== undefined);
  });

  it('language and translation choose the task prompt', async () => {
    const wav = sineWav(440, 1.0);
    const fr = await transcribe(wav, { language: 'fr' });  // (detection: the test above)
    assert.equal(fr.text, await cliText(wav, '<|startoftranscript|><|fr|><|transcribe|><|notimestamps|>'));
    // A translation detects the source language as a transcription does (the same first step).
    const detected = (await transcribe(wav, { response_format: 'verbose_json' })).language;
    const tr = await client.audio.translations.create({ file: await toFile(wav, 'a.wav'), model: 'w', temperature: 0 });
    assert.equal(tr.text, await cliText(wav, `<|startoftranscript|><|${detected}|><|translate|><|notimestamps|>`));
  });

  it('verbose_json reports the language asked and the segments\' text', async () => {
    const wav = sineWav(300, 1.0);
    const v = await transcribe(wav, { response_format: 'verbose_json', language: 'de' });
    assert.equal(v.language, 'de');
    assert.equal(v.text, v.segments.map((s) => s.text).filter((t) => t !== '').join(' '));
  });

  it('requests in flight together equal each alone', async () => {
    const clips = [sineWav(300, 1.0), sineWav(2500, 0.8)];
    const alone = [];
    for (const c of clips) alone.push((await transcribe(c, { language: 'en' })).text);
    const together = await Promise.all(clips.map((c) => transcribe(c, { language: 'en' })));
    assert.deepEqual(together.map((t) => t.text), alone);
  });

  it('an unknown language is a 400 naming the field', async () => {
    const wav = sineWav(300, 0.5);
    const lang = await refusal(transcribe(wav, { language: 'zz' }));
    assert.equal(lang.status, 400);
    assert.equal(lang.error.param, 'language');
    assert.match(lang.error.message, /<\|zz\|>/);
    const ok = await transcribe(wav);  // the server still answers
    assert.equal(typeof ok.text, 'string');
  });
});
