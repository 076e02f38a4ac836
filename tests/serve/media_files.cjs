// Small media files the served media tests send, made in memory with no dependency: a PNG (zlib's
// deflate, CRC-32 chunks) and a 16-bit PCM WAV. Deterministic: the same arguments give the same bytes.
const zlib = require('zlib');

const CRC = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

// A w x h RGB PNG whose pixels depend on `seed`.
function png(seed, w = 8, h = 8) {
  const rows = [];
  for (let y = 0; y < h; ++y) {
    const row = [0];
    for (let x = 0; x < w; ++x) row.push((x * 37 + seed * 91) % 256, (y * 53 + seed * 17) % 256, (x * y + seed * 7) % 256);
    rows.push(Buffer.from(row));
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0); ihdr.writeUInt32BE(h, 4); ihdr[8] = 8; ihdr[9] = 2;
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr),
                        chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]);
}

// A 16 kHz mono 16-bit WAV: `seconds` of a sine at `hz`.
function wav(seconds, hz) {
  const n = Math.round(seconds * 16000), b = Buffer.alloc(44 + n * 2);
  b.write('RIFF', 0); b.writeUInt32LE(36 + n * 2, 4); b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16); b.writeUInt16LE(1, 20); b.writeUInt16LE(1, 22); b.writeUInt32LE(16000, 24);
  b.writeUInt32LE(32000, 28); b.writeUInt16LE(2, 32); b.writeUInt16LE(16, 34); b.write('data', 36); b.writeUInt32LE(n * 2, 40);
  for (let i = 0; i < n; ++i) b.writeInt16LE(Math.round(12000 * Math.sin(2 * Math.PI * hz * i / 16000)), 44 + 2 * i);
  return b;
}

module.exports = { png, wav };
