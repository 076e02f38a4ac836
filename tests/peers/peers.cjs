// Loads an npm peer (tests/peers/package.json) from the cache scripts/install_peers.sh fills.
// Usage in a CommonJS test script: const { Template } = require('../peers/peers.cjs')('@huggingface/jinja');
const { createRequire } = require('module');
const dir = process.env.OGAI_PEERS_NODE_MODULES;
if (!dir) throw new Error('OGAI_PEERS_NODE_MODULES is not set: run through tests/peers/run_node.sh');
const load = createRequire(dir + '/');
module.exports = (name) => load(name);
