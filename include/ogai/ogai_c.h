/* ogai_c.h: the C API of libogai, for C programs and other languages' foreign-function
 * interfaces. It wraps the C++ API (ogai/ogai.h): same models, options and results.
 *
 *   ogai_model* model = NULL;
 *   if (ogai_model_load("path/to/package", NULL, &model) != OGAI_OK) {
 *     fprintf(stderr, "%s\n", ogai_last_error_message());
 *     return 1;
 *   }
 *   ogai_options* options = NULL;
 *   ogai_options_create(&options);
 *   ogai_options_set_max_new_tokens(options, 40);
 *   ogai_result* result = NULL;
 *   if (ogai_generate(model, "Once upon a time", options, NULL, NULL, &result) == OGAI_OK) {
 *     const char* text; size_t length;
 *     ogai_result_text(result, &text, &length);
 *     fwrite(text, 1, length, stdout);
 *   }
 *   ogai_result_free(result); ogai_options_free(options); ogai_model_free(model);
 *
 * Errors. Every function that can fail returns an ogai_status: OGAI_OK (0) or the kind of error
 * (the C++ ogai::ErrorCode, plus OGAI_OUT_OF_MEMORY). The message of the last failure on the
 * calling thread, "where: what was expected" (a NULL argument names the parameter, a missing
 * package names the path), is ogai_last_error_message(). No C++ exception crosses this API. Out
 * parameters are written only on success.
 *
 * Ownership. Each object made by a *_create / *_load / generate / submit / wait call belongs to the
 * caller and is released by its *_free function (NULL is accepted and ignored). Strings and id
 * arrays returned by ogai_tokenize / ogai_detokenize / ogai_render_chat / ogai_validate are freed with ogai_ids_free /
 * ogai_string_free. Pointers read from a result (text, ids) live as long as the result.
 *
 * Thread safety. A model is immutable once loaded: tokenize, detokenize and generate may be called
 * on one model from many threads at once. An engine's submit, and wait / cancel on its requests,
 * may be called from any thread. Options and results are plain objects: use each from one thread
 * at a time (one options object may be read by many generate / submit calls at once while nobody
 * changes it). The last error message is per thread.
 */
#ifndef OGAI_OGAI_C_H_
#define OGAI_OGAI_C_H_

#include <stddef.h>
#include <stdint.h>

#include "ogai/export.h"
#include "ogai/version.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ogai_status {
  OGAI_OK = 0,
  OGAI_INVALID_ARGUMENT = 1, /* a NULL argument, a value out of range or malformed */
  OGAI_NOT_FOUND = 2,        /* a file, tensor or name does not exist (e.g. the package path) */
  OGAI_PARSE = 3,            /* a document cannot be read */
  OGAI_INVALID_PACKAGE = 4,  /* the package breaks its contract (metadata rules, ONNX admission) */
  OGAI_UNSUPPORTED = 5,      /* valid input that ogai does not implement */
  OGAI_RUNTIME = 6,          /* ONNX Runtime or the OS failed */
  OGAI_CANCELLED = 7,        /* the work was cancelled */
  OGAI_INTERNAL = 8,         /* a bug in ogai */
  OGAI_OUT_OF_MEMORY = 9
} ogai_status;

typedef enum ogai_finish_reason {
  OGAI_FINISH_STOP = 0,     /* a stop string or stop token id matched */
  OGAI_FINISH_LENGTH = 1,   /* max_new_tokens or the context limit */
  OGAI_FINISH_EOS = 2,      /* the model produced an end-of-sequence token */
  OGAI_FINISH_CANCELLED = 3 /* the callback returned 0, or the request was cancelled */
} ogai_finish_reason;

typedef struct ogai_model ogai_model;     /* a loaded package */
typedef struct ogai_options ogai_options; /* generation options */
typedef struct ogai_result ogai_result;   /* what one generation produced */
typedef struct ogai_engine ogai_engine;   /* the batched engine over one model */
typedef struct ogai_request ogai_request; /* one generation submitted to an engine */
typedef struct ogai_chat_result ogai_chat_result; /* a chat reply parsed (content, reasoning, tool calls) */

/* Called for every generated token with the text it made printable (possibly empty; not
 * NUL-terminated: use `length`). Return nonzero to go on, 0 to cancel (finish reason
 * OGAI_FINISH_CANCELLED). `text` is valid during the call only. */
typedef int (*ogai_token_callback)(void* user_data, int32_t token, const char* text, size_t length);

/* --- Library ------------------------------------------------------------------------------- */

/* The library's version, "MAJOR.MINOR.PATCH" (compare with OGAI_VERSION_STRING of the header). */
OGAI_API const char* ogai_version(void);
/* "ok", "invalid_argument", "not_found", ...; "unknown" for a value outside ogai_status. */
OGAI_API const char* ogai_status_name(ogai_status status);
/* "stop", "length", "eos", "cancelled"; "unknown" otherwise. */
OGAI_API const char* ogai_finish_reason_name(ogai_finish_reason reason);
/* The message of the last failed call on this thread ("" if none yet). Valid until the next
 * failing call on this thread. */
OGAI_API const char* ogai_last_error_message(void);

/* --- Models -------------------------------------------------------------------------------- */

/* Loads and validates the package at `path`. `execution_provider`: "cpu" or "cuda"; NULL = "cpu".
 * `*model` receives the model; free it with ogai_model_free. */
OGAI_API ogai_status ogai_model_load(const char* path, const char* execution_provider, ogai_model** model);
/* Budgets on the images and audio of each request (ogai::MediaLimits, include/ogai/media.h; the
 * CLI flags of the same names): a request over one fails with OGAI_INVALID_ARGUMENT whose message
 * names the flag ("... (--max-image-pixels)") and the input. Fill with ogai_media_limits_default,
 * then lower what you need; every field must be > 0. */
typedef struct ogai_media_limits {
  uint64_t max_media_parts;   /* images and audio clips in one request (32) */
  uint64_t max_media_bytes;   /* one encoded file (20 MiB) */
  uint64_t max_image_pixels;  /* width x height of one image, from its header (50,000,000) */
  uint64_t max_decoded_bytes; /* one image's pixels x channels or one clip's float32 samples (256 MiB) */
  double max_audio_seconds;   /* one clip's duration, from its header (3600) */
} ogai_media_limits;
OGAI_API void ogai_media_limits_default(ogai_media_limits* limits);
/* ogai_model_load with media budgets (`limits` NULL: the defaults). */
OGAI_API ogai_status ogai_model_load_with_limits(const char* path, const char* execution_provider,
                                                 const ogai_media_limits* limits, ogai_model** model);
/* ogai_model_load with `dtype`: for a Hugging Face Optimum / onnx-community folder, which of its
 * graphs runs, by transformers.js's dtype names ("fp32", "fp16", "q8", "int8", "uint8", "q4",
 * "q4f16", "bnb4"; the CLI's --dtype); NULL or "" = the folder's config.json choice, else fp32.
 * An unknown name, a variant the folder lacks, or a dtype for any other package: invalid_argument
 * naming it. */
OGAI_API ogai_status ogai_model_load_dtype(const char* path, const char* execution_provider, const char* dtype,
                                           ogai_model** model);
/* Releases the caller's reference; engines created over the model keep it alive until freed. */
OGAI_API void ogai_model_free(ogai_model* model);

/* Token ids of `text`; `add_special_tokens` nonzero lets the tokenizer add BOS etc. `*ids`
 * (free with ogai_ids_free) receives `*count` ids; an empty text may give NULL with count 0. */
OGAI_API ogai_status ogai_tokenize(const ogai_model* model, const char* text, int add_special_tokens, int32_t** ids,
                                   size_t* count);
/* Text of `count` ids (`ids` may be NULL when count is 0); `skip_special_tokens` nonzero drops
 * special tokens. `*text` (NUL-terminated, free with ogai_string_free) receives the text. */
OGAI_API ogai_status ogai_detokenize(const ogai_model* model, const int32_t* ids, size_t count, int skip_special_tokens,
                                     char** text);
OGAI_API void ogai_ids_free(int32_t* ids);
OGAI_API void ogai_string_free(char* text);

/* --- Chat and validation ------------------------------------------------------------------ */

/* Renders `messages_json`, a JSON array of {"role": "...", "content": "..."} objects (roles
 * "system", "user", "assistant", "tool"), through the model's chat template; with
 * `add_generation_prompt` nonzero the text ends where the assistant's reply begins. `*text`
 * (NUL-terminated, free with ogai_string_free) receives the prompt; generate from it with
 * ogai_options_set_add_special_tokens(options, 0), since the template writes the special tokens.
 * Fails with OGAI_PARSE for text that is not JSON, OGAI_INVALID_ARGUMENT naming the element that
 * is not a message (`messages_json[1].content: expected a string`), and the template's error (a
 * package without a chat template, a template that raises). Thread safety: like ogai_tokenize. */
OGAI_API ogai_status ogai_render_chat(const ogai_model* model, const char* messages_json, int add_generation_prompt,
                                      char** text);
/* Generates the assistant's reply to `messages_json` and parses it, as Model::prepare_chat and
 * parse_chat_reply do in C++ (include/ogai/chat.h). Messages as OpenAI's: "role", "content" (null
 * beside "tool_calls"), an assistant's "tool_calls" [{"id", "type": "function", "function":
 * {"name", "arguments"}}], a tool message's "tool_call_id" (and "name"), "reasoning_content".
 * `tools_json`: NULL or OpenAI's tools array. `tool_choice`: NULL or "auto", "none", "required",
 * or a function's name (required / a name force the call through the grammar engine, its
 * arguments valid against the tool's schema). `template_kwargs_json`: NULL or a JSON object of
 * template variables ({"enable_thinking": false}). `options` as ogai_generate's (special tokens
 * are never added: the template writes them); `on_token` streams the raw reply text. Errors name
 * the element (`tools_json[0].function.name: expected a string`). Free with ogai_chat_result_free.
 * Content may also be an array of parts, in order: {"type": "text", "text": "..."}, {"type":
 * "image"} and {"type": "audio"}; each media part takes the next clip of its kind added with
 * ogai_options_add_media, and every added clip must be taken (a count that differs is
 * OGAI_INVALID_ARGUMENT naming it). */
OGAI_API ogai_status ogai_chat(const ogai_model* model, const char* messages_json, const char* tools_json,
                               const char* tool_choice, const char* template_kwargs_json, const ogai_options* options,
                               ogai_token_callback on_token, void* user_data, ogai_chat_result** result);
/* The reply outside reasoning and calls; the reasoning section's text ("" without one). Valid
 * while the result lives; `length` may be NULL. */
OGAI_API ogai_status ogai_chat_result_content(const ogai_chat_result* result, const char** text, size_t* length);
OGAI_API ogai_status ogai_chat_result_reasoning(const ogai_chat_result* result, const char** text, size_t* length);
/* The calls as OpenAI's JSON array ("[]" without calls), NUL-terminated, valid while the result lives. */
OGAI_API ogai_status ogai_chat_result_tool_calls(const ogai_chat_result* result, const char** json);
/* The generation behind the reply (text, ids, finish reason, logprobs): owned by the chat result. */
OGAI_API ogai_status ogai_chat_result_generation(const ogai_chat_result* result, const ogai_result** generation);
OGAI_API void ogai_chat_result_free(ogai_chat_result* result);

/* Validates the package directory (or metadata file) at `path` without loading it, as
 * `ogai validate PATH` does: `*valid` receives 1 or 0, `*problems` (free with ogai_string_free)
 * one "RULE path: message\n" line per problem ("" when valid). Fails with OGAI_NOT_FOUND when
 * the path has no metadata file and OGAI_PARSE when its text is unreadable (nothing could be
 * checked). Thread safety: callable from any thread; it shares no state. */
OGAI_API ogai_status ogai_validate(const char* path, int* valid, char** problems);

/* --- Generation options -------------------------------------------------------------------- */

/* New options with nothing set: every field takes the package's generation defaults (its
 * generation_config.json), then ogai's: sampling at temperature 1 with every filter off; a
 * temperature of 0 is greedy. NULL options mean the same. Values are checked when generation starts: a value
 * out of range makes ogai_generate / ogai_engine_submit fail with OGAI_INVALID_ARGUMENT naming
 * the option. */
OGAI_API ogai_status ogai_options_create(ogai_options** options);
OGAI_API void ogai_options_free(ogai_options* options);
OGAI_API ogai_status ogai_options_set_max_new_tokens(ogai_options* options, int32_t max_new_tokens); /* >= 0 */
OGAI_API ogai_status ogai_options_set_temperature(ogai_options* options, float temperature);         /* 0 = greedy */
OGAI_API ogai_status ogai_options_set_top_k(ogai_options* options, int32_t top_k);                   /* 0 = off */
OGAI_API ogai_status ogai_options_set_top_p(ogai_options* options, float top_p);                     /* (0, 1] */
OGAI_API ogai_status ogai_options_set_seed(ogai_options* options, uint64_t seed);
/* Nonzero (the default) lets the tokenizer add BOS etc. to a text prompt; 0 for a prompt rendered
 * by ogai_render_chat. */
OGAI_API ogai_status ogai_options_set_add_special_tokens(ogai_options* options, int add_special_tokens);
/* Adds a stop string (copied): generation ends before it, and it is never part of the text. */
OGAI_API ogai_status ogai_options_add_stop(ogai_options* options, const char* stop);
/* Sets any sampling field by its name (the table of ogai/sampling_fields.h: "temperature",
 * "top_k", "top_p", "min_p", "typical_p", "repetition_penalty", "frequency_penalty",
 * "presence_penalty"); an integer field takes `value` rounded toward zero. An unknown name is
 * OGAI_INVALID_ARGUMENT naming it. */
OGAI_API ogai_status ogai_options_set_sampling(ogai_options* options, const char* name, double value);
/* Nonzero: a prompt longer than the context keeps its end instead of failing. */
OGAI_API ogai_status ogai_options_set_truncate_prompt(ogai_options* options, int truncate_prompt);
/* Constrains the output: `type` "json_object" (`text` unused, may be NULL), "json_schema" (`text`
 * the schema's JSON), "regex" (`text` an ECMAScript regular expression) or "grammar" (`text` GBNF);
 * "text" removes the constraint. A schema ogai cannot enforce fails when generation starts,
 * naming the keyword. */
OGAI_API ogai_status ogai_options_set_response_format(ogai_options* options, const char* type, const char* text);
/* top >= 0: each generated token's log-probability is recorded, with its `top` most likely
 * alternatives (read with ogai_result_logprob / ogai_result_top_logprob); < 0 turns it off. */
OGAI_API ogai_status ogai_options_set_logprobs(ogai_options* options, int32_t top);
/* Images and audio (include/ogai/media.h), for packages with the matching encoders; a text-only
 * package refuses them when generation starts (OGAI_UNSUPPORTED naming "media[i]" or the message
 * part), never drops them. */
typedef enum ogai_media_kind { OGAI_MEDIA_IMAGE = 0, OGAI_MEDIA_AUDIO = 1 } ogai_media_kind;
/* Appends one image or audio clip: `data` is the encoded file (PNG, JPEG, WebP, GIF, BMP; WAV,
 * FLAC, OGG, MP3), `size` bytes, copied; `mime` a hint or NULL. ogai_generate: the prompt's
 * placeholders of that kind take the clips of that kind in order. ogai_chat: the messages'
 * {"type": "image"} / {"type": "audio"} content parts take them in order (see ogai_chat). */
OGAI_API ogai_status ogai_options_add_media(ogai_options* options, ogai_media_kind kind, const void* data, size_t size,
                                            const char* mime);
/* Removes every media item added. */
OGAI_API ogai_status ogai_options_clear_media(ogai_options* options);

/* --- Generating on the calling thread ------------------------------------------------------- */

/* Generates from the text `prompt`. `options` may be NULL (all defaults); `on_token` may be NULL,
 * else it is called on this thread with `user_data`. `*result` receives the result (free with
 * ogai_result_free). */
OGAI_API ogai_status ogai_generate(const ogai_model* model, const char* prompt, const ogai_options* options,
                                   ogai_token_callback on_token, void* user_data, ogai_result** result);

/* Generates from `count` token ids, fed as they are (no BOS added); the only prompt a package
 * without a tokenizer takes (its text is then its ids in decimal, space-separated). */
OGAI_API ogai_status ogai_generate_ids(const ogai_model* model, const int32_t* ids, size_t count,
                                       const ogai_options* options, ogai_token_callback on_token, void* user_data,
                                       ogai_result** result);

/* The generated text (stop string excluded), NUL-terminated; `length` (may be NULL) gets its
 * byte length. */
OGAI_API ogai_status ogai_result_text(const ogai_result* result, const char** text, size_t* length);
/* The generated ids (`*count` of them; `*ids` may be NULL when none). */
OGAI_API ogai_status ogai_result_ids(const ogai_result* result, const int32_t** ids, size_t* count);
/* The prompt's ids as fed. */
OGAI_API ogai_status ogai_result_prompt_ids(const ogai_result* result, const int32_t** ids, size_t* count);
/* With ogai_options_set_logprobs: the log-probability of generated token `index` (< the count
 * ogai_result_ids gives); OGAI_INVALID_ARGUMENT when logprobs were not asked for or `index` is out
 * of range. */
OGAI_API ogai_status ogai_result_logprob(const ogai_result* result, size_t index, float* logprob);
/* Its `rank`-th most likely alternative (rank < the `top` asked for): id and log-probability. */
OGAI_API ogai_status ogai_result_top_logprob(const ogai_result* result, size_t index, size_t rank, int32_t* id,
                                             float* logprob);
OGAI_API ogai_status ogai_result_finish_reason(const ogai_result* result, ogai_finish_reason* reason);
OGAI_API void ogai_result_free(ogai_result* result);

/* --- The batched engine (continuous batching; ogai::Engine) -------------------------------- */

/* An engine over `model` with its own thread. `max_sequences`: requests decoded together (rows of
 * the batch), 0 = the default (16). The engine holds the model until ogai_engine_free. */
OGAI_API ogai_status ogai_engine_create(ogai_model* model, int32_t max_sequences, ogai_engine** engine);
/* Cancels what still runs, joins the engine's thread. Requests stay valid: their wait returns the
 * cancelled result. */
OGAI_API void ogai_engine_free(ogai_engine* engine);
/* Queues a generation. `on_token` (may be NULL) runs on the engine's thread: keep it short and do
 * not wait on a request inside it. Fails at once for options out of range or a prompt that does
 * not fit. `*request` receives the request (free with ogai_request_free). */
OGAI_API ogai_status ogai_engine_submit(ogai_engine* engine, const char* prompt, const ogai_options* options,
                                        ogai_token_callback on_token, void* user_data, ogai_request** request);
/* ogai_engine_submit with `count` token ids as the prompt (fed as they are). */
OGAI_API ogai_status ogai_engine_submit_ids(ogai_engine* engine, const int32_t* ids, size_t count,
                                            const ogai_options* options, ogai_token_callback on_token,
                                            void* user_data, ogai_request** request);
/* Blocks until the request ends; `*result` receives its result (free with ogai_result_free). The
 * error that ended a failed request is returned instead. Once per request: a second wait fails
 * with OGAI_INVALID_ARGUMENT. */
OGAI_API ogai_status ogai_request_wait(ogai_request* request, ogai_result** result);
/* Ends the request at the engine's next step (finish reason OGAI_FINISH_CANCELLED). */
OGAI_API ogai_status ogai_request_cancel(ogai_request* request);
/* Releases the request handle. A request still running is cancelled, and its callback is not
 * called once this returns (do not call it from that request's own callback). */
OGAI_API void ogai_request_free(ogai_request* request);

/* --- Workflows ------------------------------------------------------------------------------ */
/* Any package's `pipeline.workflow` through ogai's interpreter (ogai::Workflow): named inputs in,
 * every emitted output out as JSON, and the media outputs encoded as files (WAV for audio with a
 * media contract, PNG for an image through its value_range, PNG frames for a video), named as
 * `ogai run --output-dir` names them ("audio.wav", "image.png", "video/frame-0001.png").
 * A workflow is immutable once loaded (run from many threads at once); requests and results are
 * plain objects. An image value outside its value_range fails the run (OGAI_INVALID_PACKAGE,
 * naming the output and the value): ogai never clamps an image. */
typedef struct ogai_workflow ogai_workflow;
typedef struct ogai_workflow_request ogai_workflow_request;
typedef struct ogai_workflow_result ogai_workflow_result;

OGAI_API ogai_status ogai_workflow_load(const char* path, ogai_workflow** workflow);
OGAI_API void ogai_workflow_free(ogai_workflow* workflow);
OGAI_API ogai_status ogai_workflow_request_create(ogai_workflow_request** request);
OGAI_API void ogai_workflow_request_free(ogai_workflow_request* request);
/* An input (workflow input name or application alias) as a JSON nested array or scalar, typed by
 * the input's contract: "[[1, 2]]". */
OGAI_API ogai_status ogai_workflow_request_set_json(ogai_workflow_request* request, const char* name, const char* json);
/* An input as raw row-major bytes of `dtype` ("float32", "int64", ...) and `shape`. */
OGAI_API ogai_status ogai_workflow_request_set_tensor(ogai_workflow_request* request, const char* name,
                                                      const char* dtype, const int64_t* shape, size_t rank,
                                                      const void* data, size_t size);
/* A media input: a file's bytes (PNG, JPEG, WAV, ...) for an encoded uint8 [bytes] input; the
 * package's preprocessing decodes them. Copied. */
OGAI_API ogai_status ogai_workflow_request_set_media(ogai_workflow_request* request, const char* name,
                                                     const void* data, size_t size);
OGAI_API ogai_status ogai_workflow_request_set_max_new_tokens(ogai_workflow_request* request, int64_t max_new_tokens);
OGAI_API ogai_status ogai_workflow_request_set_seed(ogai_workflow_request* request, int64_t seed);
OGAI_API ogai_status ogai_workflow_run(const ogai_workflow* workflow, const ogai_workflow_request* request,
                                       ogai_workflow_result** result);
/* {"outputs": {KEY: {"dtype", "shape", "data"}}} (KEY: NAME, NAME.row.R); data null for float16
 * and bfloat16. A package with a transcription profile (CTC) adds "transcriptions": {PROFILE:
 * [{"text", "ids"}, ...]}, one per batch row, as `ogai run --json` prints them. Lives as long as
 * the result. */
OGAI_API ogai_status ogai_workflow_result_json(const ogai_workflow_result* result, const char** json);
OGAI_API ogai_status ogai_workflow_result_media_count(const ogai_workflow_result* result, size_t* count);
/* Media file `index`: its relative path and encoded bytes, living as long as the result. */
OGAI_API ogai_status ogai_workflow_result_media(const ogai_workflow_result* result, size_t index, const char** path,
                                                const uint8_t** data, size_t* size);
OGAI_API void ogai_workflow_result_free(ogai_workflow_result* result);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* OGAI_OGAI_C_H_ */
