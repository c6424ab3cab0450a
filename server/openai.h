// pte-run serve: the OpenAI API's request bodies read into plain structs (every field
// checked, unsupported parameters named), and its response bodies and stream chunks
// written. No HTTP and no model here: pure functions over text, tested and fuzzed alone.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chat/chat_template.h"
#include "llm/sampler.h"
#include "util/json.h"

namespace pte::server {

// POST /v1/chat/completions (chat) or /v1/completions.
struct CompletionRequest {
  bool chat = true;
  std::vector<ChatMessage> messages;  // chat: content given as text parts is joined
  // chat with images ("image_url" parts holding data: URLs): the images' bytes in the order
  // they appear, and the messages as the chat template sees them (each image part becomes
  // {"type": "image"}, text parts stay parts)
  std::vector<std::string> images;
  json::Value parts_messages;
  std::string prompt;            // completions
  bool stream = false;
  bool include_usage = false;    // stream_options.include_usage
  int max_tokens = -1;           // -1: until EOS or the slot's context is full
  SamplerConfig sampling;
  bool seeded = false;           // "seed" given (else the server picks one when sampling)
  std::vector<std::string> stop;
};

// A body that is not JSON, a field of the wrong type or range, or parameters this server
// does not implement (n > 1, logprobs, tools, ...): false and one line for a 400.
bool parse_completion_request(std::string_view body, bool chat, CompletionRequest* out, std::string* error);

// The bytes of a data: URL ("data:image/png;base64,...."); false and one line otherwise (an
// http(s) URL: the server fetches nothing).
bool decode_data_url(std::string_view url, std::string* bytes, std::string* error);

// POST /tokenize {"content": "text", "add_special": bool} and /detokenize {"tokens": [ids]}.
bool parse_tokenize_request(std::string_view body, std::string* content, bool* add_special, std::string* error);
bool parse_detokenize_request(std::string_view body, int64_t vocab_size, std::vector<int32_t>* ids, std::string* error);

// POST /v1/embeddings {"input": "text" | ["text", ...], "encoding_format": "float" | "base64"}.
bool parse_embeddings_request(std::string_view body, std::vector<std::string>* texts, bool* base64, std::string* error);
// A vector as base64 of its little-endian float32 bytes (encoding_format "base64").
std::string base64_floats(const std::vector<float>& v);

struct Usage {
  int64_t prompt_tokens = 0, completion_tokens = 0, cached_tokens = 0;
};

// The runner's stop reason as OpenAI's finish_reason ("stop" or "length").
const char* finish_reason(const std::string& stop_reason);

// One complete response body (chat.completion or text_completion).
std::string completion_body(bool chat, const std::string& id, int64_t created, const std::string& model,
                            const std::string& text, const char* finish, const Usage& usage);
// One server-sent event "data: {...}\n\n": a chunk with `text` as its delta (role on the first
// chat chunk), or the closing chunk with finish_reason (finish != nullptr, text empty).
std::string stream_chunk(bool chat, const std::string& id, int64_t created, const std::string& model,
                         const std::string& text, bool first, const char* finish);
// The usage chunk (stream_options.include_usage): choices empty.
std::string stream_usage_chunk(bool chat, const std::string& id, int64_t created, const std::string& model,
                               const Usage& usage);

// {"error": {"message", "type", "code"}} as OpenAI answers errors.
std::string error_body(const std::string& message, const char* type, int code);

}  // namespace pte::server
