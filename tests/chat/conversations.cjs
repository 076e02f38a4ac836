// Conversations for the chat-template differential tests: system prompts, multi-turn chats,
// assistant tool calls (object and string arguments, parallel calls) with tool results, tool
// definitions, empty and multi-part content, unicode, reasoning content, odd role orders.
'use strict';

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Get the current weather in a city — «quoted», 天气',
      parameters: {
        type: 'object',
        properties: {
          city: { type: 'string', description: 'City name, e.g. "Zürich"' },
          unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
          days: { type: 'integer', minimum: 1, maximum: 7 },
        },
        required: ['city'],
        additionalProperties: false,
      },
      strict: true,
    },
  },
  { type: 'function', function: { name: 'list_files', description: 'Lists files.', parameters: { type: 'object', properties: {} } } },
];

const UNICODE = 'Grüße 👋🏽 — 你好，世界！ مرحبا ש\u200dלום e\u0301 \u00a0nbsp\ttab "quotes" \'single\' back\\slash {{ not_a_var }} {% raw %} <|im_end|>';

function call(id, name, args) {
  return { id, type: 'function', function: { name, arguments: args } };
}

// Each entry: [name, messages].
function conversations() {
  const sys = { role: 'system', content: 'You are a careful assistant.' };
  const u = (content) => ({ role: 'user', content });
  const a = (content, extra = {}) => ({ role: 'assistant', content, ...extra });
  const tool = (id, name, content) => ({ role: 'tool', tool_call_id: id, name, content });
  const tenTurns = [];
  for (let i = 0; i < 10; ++i) tenTurns.push(u(`Question ${i}: what is ${i} + ${i}?`), a(`${i} + ${i} = ${2 * i}.`));
  return [
    ['single_user', [u('Hello!')]],
    ['pair', [u('Hi'), a('Hello! How can I help?')]],
    ['multi_turn', [u('Hi'), a('Hello!'), u('Tell me a joke.'), a('Why did the chicken cross the road?'), u('Why?')]],
    ['system_multi_turn', [sys, u('Hi'), a('Hello!'), u('What is 2+2?')]],
    ['system_only', [sys]],
    ['ten_turns', [sys, ...tenTurns, u('Thanks!')]],
    ['tool_call', [sys, u('Weather in Paris?'), a(null, { tool_calls: [call('call_1', 'get_weather', { city: 'Paris', unit: 'celsius' })] }),
      tool('call_1', 'get_weather', '{"temperature": 21, "sky": "clear"}'), a('It is 21 °C and clear in Paris.'), u('And tomorrow?')]],
    ['tool_call_string_arguments', [u('Weather in Oslo?'), a('', { tool_calls: [call('c9', 'get_weather', '{"city": "Oslo"}')] }),
      tool('c9', 'get_weather', 'rain')]],
    ['parallel_tool_calls', [u('Paris and Rome?'), a('Checking both.', { tool_calls: [call('a', 'get_weather', { city: 'Paris' }), call('b', 'get_weather', { city: 'Rome', days: 2 })] }),
      tool('a', 'get_weather', 'sunny'), tool('b', 'get_weather', 'cloudy'), a('Paris is sunny; Rome is cloudy.')]],
    // Arguments as Gemma-4's dialect writes them (keys sorted case-insensitively, raw strings):
    // quotes, newlines, backslashes, unicode, nesting, arrays, numbers, booleans, {}.
    ['tool_call_rich_arguments', [u('Plan it.'), a(null, { tool_calls: [call('r1', 'plan', {
      zeta: 'say "hi"\nthen\ttab \\ back', Alpha: { b: [1, -2.5, true, false], a: {} }, beta: '日本語 🙂', n: 3,
      list: [{ k: 'v' }, []] })] }), tool('r1', 'plan', '{"ok": true}')]],
    ['tool_result_last', [u('List files'), a(null, { tool_calls: [call('x', 'list_files', {})] }), tool('x', 'list_files', 'a.txt\nb.txt')]],
    ['empty_content', [u(''), a(''), u('')]],
    ['multipart_content', [u([{ type: 'text', text: 'Describe this image:' }, { type: 'image' }, { type: 'text', text: '  Be brief.  ' }]), a('A cat.')]],
    ['multipart_system', [{ role: 'system', content: [{ type: 'text', text: 'System as parts.' }] }, u('Hi')]],
    ['unicode', [{ role: 'system', content: UNICODE }, u(UNICODE), a(UNICODE), u('¿Qué? ✓')]],
    ['reasoning_content', [u('Think about 17*3.'), a('51', { reasoning_content: '17*3 = 51 because 17*3 = 10*3 + 7*3.' }), u('Now 18*3?')]],
    ['surrounding_whitespace', [u('  padded question \n'), a('\n\n  padded answer  \n'), u('\tnext')]],
    ['named_messages', [{ role: 'user', content: 'Hi', name: 'alice' }, a('Hi Alice.'), { role: 'user', content: 'Bye', name: 'bob' }]],
    ['roles_not_alternating', [u('one'), u('two')]],
    ['system_in_middle', [u('Hi'), a('Hello'), { role: 'system', content: 'Be terse.' }, u('Again')]],
    ['assistant_first', [a('I start.'), u('OK')]],
    ['think_flags_in_system', [{ role: 'system', content: 'Answer briefly. /no_think' }, u('Hi')]],
    ['null_content_without_tool_calls', [u('Hi'), a(null)]],
  ];
}

module.exports = { conversations, TOOLS };
