// The x-prefix-hash header a client sends so that a load balancer keeps requests that share a
// leading prompt on one ogai replica (docs/deploy.md, "Prefix-affinity routing").
//
// Rule (the same in every language; docs/deploy.md has a Python version):
//   text  = chat: the first message's content (text parts joined with "\n" when it is an array);
//           completions: the prompt (the first one when it is an array of strings)
//   key   = the first 1024 bytes of text's UTF-8 (a cut may split a character; it is only hashed)
//   value = the first 16 hex digits of SHA-256(key)
// Requests whose first message is the same system prompt get the same value. A request without
// text (token-id prompts) gets no header (the balancer then spreads it freely).
// deploy/haproxy/haproxy.cfg computes the same value from the body when a client sends none.
'use strict';
const crypto = require('crypto');

const kPrefixBytes = 1024;

function leadingText(body) {
  if (Array.isArray(body.messages) && body.messages.length > 0) {
    const content = body.messages[0].content;
    if (typeof content === 'string') return content;
    if (Array.isArray(content))
      return content.filter((p) => p && typeof p.text === 'string').map((p) => p.text).join('\n');
    return '';
  }
  if (typeof body.prompt === 'string') return body.prompt;
  if (Array.isArray(body.prompt) && typeof body.prompt[0] === 'string') return body.prompt[0];
  return '';
}

// The header's value for a request body (an object), or '' when it has no leading text.
function prefixHash(body) {
  const text = leadingText(body);
  if (text === '') return '';
  const key = Buffer.from(text, 'utf8').subarray(0, kPrefixBytes);
  return crypto.createHash('sha256').update(key).digest('hex').slice(0, 16);
}

module.exports = { prefixHash, leadingText, kPrefixBytes };

if (require.main === module) {  // node prefix_hash.cjs < request.json
  let input = '';
  process.stdin.on('data', (d) => { input += d; });
  process.stdin.on('end', () => { process.stdout.write(prefixHash(JSON.parse(input)) + '\n'); });
}
