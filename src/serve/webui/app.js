// The chat page of `ogai serve` (served at /, docs/serve.md "Chat page"). Talks to the same server
// through its OpenAI routes: GET /v1/models for the model, POST /v1/chat/completions with
// "stream": true and stream_options.include_usage for every reply. Conversations and settings live
// in this browser's localStorage; the API key (when the server has one) in sessionStorage only.
// No framework, no third-party code: the DOM is built with textContent, and model text becomes HTML
// only through markdown.js (which escapes it first).
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const md = window.ogaiMarkdown;

  // ---- Storage ---------------------------------------------------------------------------------
  const store = {
    load(key, fallback) {
      try {
        const v = localStorage.getItem(key);
        return v === null ? fallback : JSON.parse(v);
      } catch { return fallback; }
    },
    save(key, value) {
      try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* storage full or disabled */ }
    },
  };

  const SETTINGS = ['system', 'temperature', 'top_p', 'max_tokens', 'tools'];
  const state = {
    conversations: store.load('ogai.conversations', []),
    currentId: store.load('ogai.current', null),
    settings: { system: '', temperature: '', top_p: '', max_tokens: '', tools: '', ...store.load('ogai.settings', {}) },
    apiKey: sessionStorage.getItem('ogai.apiKey') || '',
    model: null,      // the /v1/models entry chatted with
    models: [],       // every served model (several: the top bar's selector picks one)
    streaming: null,  // {controller, message} while a reply streams
    pending: [],      // attachments for the next message (see attachmentKinds)
  };

  function saveConversations() {
    store.save('ogai.conversations', state.conversations);
    store.save('ogai.current', state.currentId);
  }

  function current() { return state.conversations.find((c) => c.id === state.currentId) || null; }

  function newConversation() {
    const conv = { id: `c${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`, title: 'New chat',
                   created: Date.now(), messages: [] };
    state.conversations.unshift(conv);
    state.currentId = conv.id;
    return conv;
  }

  // ---- Server calls ----------------------------------------------------------------------------
  function headers(json) {
    const h = {};
    if (json) h['Content-Type'] = 'application/json';
    if (state.apiKey) h.Authorization = `Bearer ${state.apiKey}`;
    return h;
  }

  class HttpError extends Error {
    constructor(status, message) { super(message); this.status = status; }
  }

  async function failure(res) {
    let message = `${res.status} ${res.statusText}`;
    try {
      const body = await res.json();
      if (body && body.error && body.error.message) message = body.error.message;
    } catch { /* not JSON */ }
    return new HttpError(res.status, message);
  }

  async function loadModel() {
    setStatus('connecting…');
    const res = await fetch('/v1/models', { headers: headers(false) });
    if (res.status === 401) return askKey(state.apiKey ? 'The server refused this key.' : '');
    if (!res.ok) throw await failure(res);
    const list = await res.json();
    state.models = list.data || [];
    const kept = state.model && state.models.find((m) => m.id === state.model.id);  // a refresh keeps the choice
    state.model = kept || state.models.find((m) => m.state === 'loaded') || state.models[0] || null;
    $('model-name').textContent = state.model ? state.model.id : 'no model';
    $('model-name').title = state.model && state.model.context_length ? `context ${state.model.context_length} tokens` : '';
    showModelSelect();
    showAttachmentSupport();
    setStatus('');
  }

  // With several models (ogai serve A B, --models-dir): a selector in the top bar, each model with
  // its state from /v1/models ("not loaded", "loading", "failed"; loaded ones bare). One model: its
  // name only.
  function showModelSelect() {
    const select = $('model-select');
    const several = state.models.length > 1;
    select.hidden = !several;
    $('model-name').hidden = several;
    if (!several) return;
    select.replaceChildren(...state.models.map((m) => {
      const option = document.createElement('option');
      option.value = m.id;
      option.textContent = m.state && m.state !== 'loaded' ? `${m.id} (${m.state.replace('_', ' ')})` : m.id;
      if (m.state === 'failed' && m.error) option.title = m.error;
      option.selected = state.model !== null && m.id === state.model.id;
      return option;
    }));
  }

  function chooseModel(id) {
    state.model = state.models.find((m) => m.id === id) || state.model;
    showAttachmentSupport();
  }

  // Server-sent events from a fetch body: calls `onData` with each event's parsed JSON until [DONE].
  async function readEvents(body, onData) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
        const data = event.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
        if (!data) continue;
        if (data === '[DONE]') return;
        onData(JSON.parse(data));
      }
    }
  }

  // ---- Attachments: the hook for images and audio ---------------------------------------------
  // Which inputs besides text the model takes, from its /v1/models entry (input_modalities, e.g.
  // ["text", "image", "audio"]). ogai's server publishes none yet, so every model is text-only
  // and the attach button stays hidden. Once it does, the button accepts those kinds and a user
  // message's attachments are sent as OpenAI content parts (contentOf).
  function attachmentKinds() {
    const m = state.model && Array.isArray(state.model.input_modalities) ? state.model.input_modalities : ['text'];
    return m.filter((k) => k === 'image' || k === 'audio');
  }

  function showAttachmentSupport() {
    const kinds = attachmentKinds();
    $('attach').hidden = kinds.length === 0;
    $('attach-file').accept = kinds.map((k) => `${k}/*`).join(',');
    $('model-inputs').textContent = kinds.length ? `takes text, ${kinds.join(', ')}` : 'text input only';
  }

  function readAttachment(file) {
    return new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve({ kind: file.type.split('/')[0], name: file.name, type: file.type, url: reader.result });
      reader.onerror = () => reject(reader.error);
      reader.readAsDataURL(file);
    });
  }

  async function addAttachments(files) {
    const kinds = attachmentKinds();
    for (const file of files) {
      const a = await readAttachment(file);
      if (kinds.includes(a.kind)) state.pending.push(a);
    }
    renderAttachments();
  }

  function renderAttachments() {
    const box = $('attachments');
    box.replaceChildren(...state.pending.map((a, i) => button(`${a.name} ×`, 'link', () => {
      state.pending.splice(i, 1);
      renderAttachments();
    })));
    box.hidden = state.pending.length === 0;
  }

  // A user message as the API takes it: a string, or content parts when it has attachments.
  function contentOf(message) {
    if (!message.attachments || !message.attachments.length) return message.content;
    const parts = [{ type: 'text', text: message.content }];
    for (const a of message.attachments) {
      if (a.kind === 'image') parts.push({ type: 'image_url', image_url: { url: a.url } });
      else parts.push({ type: 'input_audio', input_audio: { data: a.url.split(',')[1], format: a.type.split('/')[1] } });
    }
    return parts;
  }

  // ---- Requests --------------------------------------------------------------------------------
  function numberSetting(name) {
    const v = String(state.settings[name]).trim();
    return v === '' ? undefined : Number(v);
  }

  function requestBody(conv) {
    const messages = [];
    if (state.settings.system.trim()) messages.push({ role: 'system', content: state.settings.system });
    for (const m of conv.messages) {
      if (m.role === 'user') messages.push({ role: 'user', content: contentOf(m) });
      else if (m.role === 'assistant' && !m.streaming && (m.content || (m.tool_calls && m.tool_calls.length))) {
        const a = { role: 'assistant', content: m.content || '' };
        if (m.tool_calls && m.tool_calls.length) a.tool_calls = m.tool_calls;
        messages.push(a);
      }
    }
    const body = { model: state.model ? state.model.id : undefined, messages, stream: true,
                   stream_options: { include_usage: true } };
    for (const name of ['temperature', 'top_p', 'max_tokens']) {
      const v = numberSetting(name);
      if (v !== undefined) body[name] = v;
    }
    if (state.settings.tools.trim()) body.tools = JSON.parse(state.settings.tools);
    return body;
  }

  function mergeToolCall(message, delta) {
    message.tool_calls = message.tool_calls || [];
    const i = delta.index || 0;
    if (!message.tool_calls[i]) message.tool_calls[i] = { id: '', type: 'function', function: { name: '', arguments: '' } };
    const call = message.tool_calls[i];
    if (delta.id) call.id = delta.id;
    if (delta.function && delta.function.name) call.function.name = delta.function.name;
    if (delta.function && delta.function.arguments) call.function.arguments += delta.function.arguments;
  }

  function applyChunk(message, chunk, timing) {
    if (chunk.error) throw new Error(chunk.error.message || 'the server ended the reply with an error');
    if (chunk.usage) message.usage = chunk.usage;
    if (chunk.model) message.model = chunk.model;  // which model answered
    const choice = (chunk.choices || [])[0];
    if (!choice) return;
    const d = choice.delta || {};
    const text = (d.content || '') + (d.reasoning_content || '');
    if ((text || d.tool_calls) && !timing.first) timing.first = performance.now();
    if (text || d.tool_calls) ++timing.deltas;
    if (d.reasoning_content) message.reasoning = (message.reasoning || '') + d.reasoning_content;
    if (d.content) message.content += d.content;
    for (const call of d.tool_calls || []) mergeToolCall(message, call);
    if (choice.finish_reason) message.finish = choice.finish_reason;
  }

  // Streams the reply of `conv` into its last message (an assistant placeholder).
  async function streamReply(conv) {
    const message = conv.messages[conv.messages.length - 1];
    const controller = new AbortController();
    state.streaming = { controller, message };
    message.streaming = true;
    setBusy(true);
    const timing = { start: performance.now(), first: 0, deltas: 0 };
    const view = renderConversation();
    const redraw = throttled(() => {  // follows the reply unless the user scrolled up
      const list = $('messages');
      const following = list.scrollHeight - list.scrollTop - list.clientHeight < 80;
      updateMessage(view.get(message), message);
      if (following) list.scrollTop = list.scrollHeight;
    });
    try {
      const res = await fetch('/v1/chat/completions', { method: 'POST', headers: headers(true),
                                                        body: JSON.stringify(requestBody(conv)), signal: controller.signal });
      if (!res.ok) throw await failure(res);
      await readEvents(res.body, (chunk) => {
        applyChunk(message, chunk, timing);
        redraw();
      });
      if (!message.finish) message.finish = 'stop';
    } catch (e) {
      if (e.name === 'AbortError') message.finish = 'stopped';
      else {
        message.finish = 'error';
        message.error = e.message;
        if (e.status === 401) askKey('The server refused the key.');
      }
    } finally {
      const end = performance.now();
      message.stats = { ms: end - timing.start, first_ms: timing.first ? timing.first - timing.start : null,
                        decode_ms: timing.first ? end - timing.first : null, deltas: timing.deltas };
      delete message.streaming;
      state.streaming = null;
      setBusy(false);
      saveConversations();
      renderConversation();
      if (state.models.length > 1) loadModel().catch(showLoadError);  // the selector's states after a load
    }
  }

  // ---- Actions ---------------------------------------------------------------------------------
  function splitThink(message) {  // a template that left "<think>...</think>" in the content
    const m = /^\s*<think>([\s\S]*?)(<\/think>|$)/.exec(message.content || '');
    if (!m || message.reasoning) return message;
    return { ...message, reasoning: m[1], content: message.content.slice(m[0].length).trimStart() };
  }

  function send(text) {
    if (state.streaming || (!text.trim() && !state.pending.length)) return;
    const conv = current() || newConversation();
    const user = { role: 'user', content: text };
    if (state.pending.length) user.attachments = state.pending.splice(0);
    renderAttachments();
    conv.messages.push(user, { role: 'assistant', content: '' });
    if (conv.title === 'New chat') conv.title = text.trim().slice(0, 48) || 'Attachment';
    saveConversations();
    renderSidebar();
    return streamReply(conv);
  }

  function regenerate(conv, index) {
    if (state.streaming) return;
    conv.messages.splice(index);
    conv.messages.push({ role: 'assistant', content: '' });
    return streamReply(conv);
  }

  function resubmitEdit(conv, index, text) {
    conv.messages[index].content = text;
    if (index === 0) conv.title = text.trim().slice(0, 48) || conv.title;
    renderSidebar();
    conv.messages.splice(index + 1);
    conv.messages.push({ role: 'assistant', content: '' });
    return streamReply(conv);
  }

  function stop() { if (state.streaming) state.streaming.controller.abort(); }

  // ---- Rendering -------------------------------------------------------------------------------
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function button(label, cls, onClick) {
    const b = el('button', cls, label);
    b.type = 'button';
    b.addEventListener('click', onClick);
    return b;
  }

  function throttled(fn) {
    let queued = false;
    return () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => { queued = false; fn(); });
    };
  }

  function statsText(m) {
    const parts = [];
    const s = m.stats || {};
    if (m.usage) {
      parts.push(`${m.usage.prompt_tokens} prompt + ${m.usage.completion_tokens} tokens`);
      if (s.decode_ms > 0 && m.usage.completion_tokens > 1)
        parts.push(`${((m.usage.completion_tokens - 1) / (s.decode_ms / 1000)).toFixed(1)} tokens/s`);
    } else if (s.deltas) {
      parts.push(`≈${s.deltas} tokens (no usage: the reply did not end normally)`);
    }
    if (s.first_ms !== null && s.first_ms !== undefined) parts.push(`${(s.first_ms / 1000).toFixed(2)} s to first token`);
    if (m.finish === 'length') parts.push('stopped at max tokens');
    else if (m.finish === 'stopped') parts.push('stopped');
    else if (m.finish === 'tool_calls') parts.push('tool calls');
    return parts.join(' · ');
  }

  function toolCallView(call) {
    const d = el('details', 'tool-call');
    d.append(el('summary', '', `Tool call: ${call.function.name || '(unnamed)'}`));
    let args = call.function.arguments;
    try { args = JSON.stringify(JSON.parse(args), null, 2); } catch { /* still streaming, or not JSON */ }
    const pre = el('pre');
    pre.append(el('code', '', args));
    d.append(pre);
    return d;
  }

  // Fills a message's element from its state (called on every streamed delta, throttled).
  function updateMessage(node, message) {
    if (!node) return;
    const m = message.role === 'assistant' ? splitThink(message) : message;
    node.classList.toggle('streaming', !!message.streaming);
    node.dataset.finish = message.finish || '';
    node.dataset.model = message.model || '';
    const reasoning = node.querySelector('.reasoning');
    reasoning.hidden = !m.reasoning;
    if (m.reasoning) {
      reasoning.querySelector('.reasoning-text').textContent = m.reasoning;
      reasoning.querySelector('summary').textContent = message.streaming && !m.content ? 'Reasoning…' : 'Reasoning';
    }
    node.querySelector('.tool-calls').replaceChildren(...(m.tool_calls || []).map(toolCallView));
    const body = node.querySelector('.body');
    if (message.role === 'assistant') body.innerHTML = md.render(m.content || '');  // escaped by the renderer
    else body.textContent = m.content;
    const error = node.querySelector('.error');
    error.hidden = !message.error;
    error.textContent = message.error || '';
    node.querySelector('.stats').textContent = message.streaming ? '' : statsText(message);
    node.dataset.completionTokens = message.usage ? message.usage.completion_tokens : '';
  }

  function messageView(conv, message, index) {
    const node = el('div', `msg ${message.role}`);
    node.dataset.index = index;
    node.append(el('div', 'role', message.role === 'user' ? 'You' : 'Assistant'));
    const reasoning = el('details', 'reasoning');
    reasoning.append(el('summary', '', 'Reasoning'), el('div', 'reasoning-text'));
    reasoning.open = !!message.streaming;
    node.append(reasoning, el('div', 'tool-calls'), el('div', 'body'), el('div', 'error'));
    if (message.attachments && message.attachments.length)
      node.append(el('div', 'muted', `attached: ${message.attachments.map((a) => a.name).join(', ')}`));
    const meta = el('div', 'meta');
    meta.append(el('span', 'stats'));
    if (!message.streaming && !state.streaming) {
      if (message.role === 'assistant') meta.append(button('Regenerate', 'link regenerate', () => regenerate(conv, index)));
      else meta.append(button('Edit', 'link edit', () => editMessage(conv, index, node)));
      meta.append(button('Copy', 'link copy', () => copyText(message.content)));
    }
    node.append(meta);
    updateMessage(node, message);
    return node;
  }

  function editMessage(conv, index, node) {
    const box = el('div', 'edit-box');
    const area = el('textarea');
    area.value = conv.messages[index].content;
    area.rows = Math.min(12, area.value.split('\n').length + 1);
    const row = el('div');
    row.append(button('Cancel', '', () => renderConversation()),
               button('Save & send', 'primary save-edit', () => resubmitEdit(conv, index, area.value)));
    box.append(area, row);
    node.querySelector('.body').replaceChildren(box);
    node.querySelector('.meta').hidden = true;
    area.focus();
  }

  function copyText(text) {
    if (navigator.clipboard) navigator.clipboard.writeText(text).catch(() => {});
  }

  // Rebuilds the message list; returns message -> element, for streaming updates.
  function renderConversation() {
    const conv = current();
    const list = $('messages');
    const views = new Map();
    const nodes = (conv ? conv.messages : []).map((m, i) => {
      const v = messageView(conv, m, i);
      views.set(m, v);
      return v;
    });
    list.replaceChildren(...(nodes.length ? nodes : [emptyView()]));
    list.scrollTop = list.scrollHeight;
    return views;
  }

  const emptyTemplate = $('empty').cloneNode(true);
  function emptyView() { return emptyTemplate.cloneNode(true); }

  function renderSidebar() {
    const items = state.conversations.map((c) => {
      const li = el('li', c.id === state.currentId ? 'current' : '');
      li.append(button(c.title, 'title', () => select(c.id)),
                button('×', 'link delete', () => removeConversation(c.id)));
      li.lastChild.setAttribute('aria-label', 'Delete this chat');
      return li;
    });
    $('conversations').replaceChildren(...items);
  }

  function select(id) {
    if (state.streaming) return;
    state.currentId = id;
    saveConversations();
    renderSidebar();
    renderConversation();
    $('app').classList.remove('sidebar-open');
  }

  function removeConversation(id) {
    if (state.streaming) return;
    state.conversations = state.conversations.filter((c) => c.id !== id);
    if (state.currentId === id) state.currentId = state.conversations.length ? state.conversations[0].id : null;
    saveConversations();
    renderSidebar();
    renderConversation();
  }

  function setBusy(busy) {
    $('send').hidden = busy;
    $('stop').hidden = !busy;
    setStatus(busy ? 'generating…' : '');
  }

  function setStatus(text) { $('status').textContent = text; }

  // ---- Dialogs ---------------------------------------------------------------------------------
  function askKey(message) {
    setStatus('API key needed');
    $('key-error').textContent = message || '';
    $('key-error').hidden = !message;
    if (!$('key-dialog').open) $('key-dialog').showModal();
    $('key-input').focus();
  }

  function useKey(key) {
    state.apiKey = key.trim();
    if (state.apiKey) sessionStorage.setItem('ogai.apiKey', state.apiKey);
    else sessionStorage.removeItem('ogai.apiKey');
  }

  function openSettings() {
    for (const name of SETTINGS) $(`set-${name}`).value = state.settings[name];
    $('set-key').value = state.apiKey;
    $('settings-error').hidden = true;
    $('settings').showModal();
  }

  function saveSettings() {
    const next = {};
    for (const name of SETTINGS) next[name] = $(`set-${name}`).value;
    try {
      if (next.tools.trim() && !Array.isArray(JSON.parse(next.tools))) throw new Error('not an array');
    } catch (e) {
      $('settings-error').textContent = `Tools must be a JSON array of tool definitions (${e.message}).`;
      $('settings-error').hidden = false;
      return;
    }
    state.settings = next;
    store.save('ogai.settings', next);
    const keyChanged = $('set-key').value.trim() !== state.apiKey;
    useKey($('set-key').value);
    $('settings').close();
    if (keyChanged) loadModel().catch(showLoadError);
  }

  function showLoadError(e) { setStatus(`cannot reach the server: ${e.message}`); }

  // ---- Wiring ----------------------------------------------------------------------------------
  function autosize() {
    const input = $('input');
    input.style.height = 'auto';
    input.style.height = `${input.scrollHeight + 2}px`;
  }

  function wire() {
    $('composer').addEventListener('submit', (e) => {
      e.preventDefault();
      const text = $('input').value;
      if (state.streaming) return;
      $('input').value = '';
      autosize();
      send(text);
    });
    $('input').addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        $('composer').requestSubmit();
      }
    });
    $('input').addEventListener('input', autosize);
    $('stop').addEventListener('click', stop);
    $('new-chat').addEventListener('click', () => {
      if (state.streaming) return;
      newConversation();
      saveConversations();
      renderSidebar();
      renderConversation();
      $('input').focus();
    });
    $('toggle-sidebar').addEventListener('click', () => $('app').classList.toggle('sidebar-open'));
    $('open-settings').addEventListener('click', openSettings);
    $('model-select').addEventListener('change', (e) => chooseModel(e.target.value));
    $('settings-save').addEventListener('click', saveSettings);
    $('settings-cancel').addEventListener('click', () => $('settings').close());
    $('settings-clear').addEventListener('click', () => {
      if (state.streaming) return;
      state.conversations = [];
      state.currentId = null;
      saveConversations();
      renderSidebar();
      renderConversation();
      $('settings').close();
    });
    $('key-save').addEventListener('click', () => {
      useKey($('key-input').value);
      $('key-dialog').close();
      loadModel().catch(showLoadError);
    });
    $('key-input').addEventListener('keydown', (e) => { if (e.key === 'Enter') $('key-save').click(); });
    $('attach').addEventListener('click', () => $('attach-file').click());
    $('attach-file').addEventListener('change', (e) => addAttachments([...e.target.files]).catch(showLoadError));
    $('messages').addEventListener('click', (e) => {  // the renderer's code-block copy buttons
      const b = e.target.closest('.copy-code');
      if (b) copyText(b.closest('.code-block').querySelector('code').textContent);
    });
  }

  wire();
  renderSidebar();
  renderConversation();
  loadModel().catch(showLoadError);
})();
