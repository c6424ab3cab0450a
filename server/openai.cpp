#include "server/openai.h"

#include <cmath>
#include <cstring>

namespace pte::server {

namespace {

using json::Type;
using json::Value;

// Parses the body as one JSON object (depth bounded: requests are shallow).
bool parse_object(std::string_view body, Value* doc, std::string* error) {
  json::ParseOptions po;
  po.max_depth = 32;
  Status s = json::parse(body, doc, po);
  if (!s) {
    *error = "malformed JSON body: " + s.message();
    return false;
  }
  if (!doc->is_object()) {
    *error = "the body must be a JSON object";
    return false;
  }
  return true;
}

bool number_field(const Value& doc, const char* key, double lo, double hi, double* out, std::string* error) {
  const Value* v = doc.find(key);
  if (!v || v->is_null()) return true;
  if (!v->is_number() || !std::isfinite(v->as_double()) || v->as_double() < lo || v->as_double() > hi) {
    *error = std::string("'") + key + "' must be a number in [" + json::write(Value(lo)) + ", " + json::write(Value(hi)) + "]";
    return false;
  }
  *out = v->as_double();
  return true;
}

bool int_field(const Value& doc, const char* key, int64_t lo, int64_t hi, int64_t* out, std::string* error) {
  const Value* v = doc.find(key);
  if (!v || v->is_null()) return true;
  bool integral = v->is_int() || (v->is_double() && std::isfinite(v->as_double()) && std::floor(v->as_double()) == v->as_double());
  if (!integral || v->as_double() < static_cast<double>(lo) || v->as_double() > static_cast<double>(hi)) {
    *error = std::string("'") + key + "' must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    return false;
  }
  *out = v->as_int();
  return true;
}

bool bool_field(const Value& doc, const char* key, bool* out, std::string* error) {
  const Value* v = doc.find(key);
  if (!v || v->is_null()) return true;
  if (!v->is_bool()) {
    *error = std::string("'") + key + "' must be true or false";
    return false;
  }
  *out = v->as_bool();
  return true;
}

// A message's content: a string, or a list of {"type": "text", "text": ...} parts (joined)
// and {"type": "image_url", "image_url": {"url": "data:..."}} parts (their bytes appended to
// `images`; `parts` gets the content as the chat template sees it).
bool message_content(const Value& c, size_t index, std::string* out, std::vector<std::string>* images, Value* parts,
                     std::string* error) {
  const std::string where = "messages[" + std::to_string(index) + "].content";
  *parts = c;
  if (c.is_null()) return true;
  if (c.is_string()) {
    *out = c.as_string();
    return true;
  }
  if (!c.is_array()) {
    *error = where + " must be a string or a list of text and image_url parts";
    return false;
  }
  *parts = Value::array();
  for (const Value& part : c.items()) {
    const Value* type = part.find("type", Type::String);
    const Value* text = part.find("text", Type::String);
    if (type && type->as_string() == "text" && text) {
      *out += text->as_string();
      Value& p = parts->push(Value::object());
      p.set("type", Value("text"));
      p.set("text", *text);
      continue;
    }
    if (type && type->as_string() == "image_url") {
      const Value* iu = part.find("image_url");
      const Value* url = iu && iu->is_object() ? iu->find("url", Type::String) : iu && iu->is_string() ? iu : nullptr;
      if (!url) {
        *error = where + ": an image_url part needs {\"image_url\": {\"url\": \"data:...\"}}";
        return false;
      }
      std::string bytes, why;
      if (!decode_data_url(url->as_string(), &bytes, &why)) {
        *error = where + ": " + why;
        return false;
      }
      images->push_back(std::move(bytes));
      parts->push(Value::object()).set("type", Value("image"));
      continue;
    }
    *error = where + ": only text and image_url parts are supported";
    return false;
  }
  return true;
}

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

// Parameters the API defines that this server does not implement, when set to anything
// but their neutral value.
std::string unsupported(const Value& doc, bool chat) {
  std::string names;
  auto add = [&](const char* n) { names += (names.empty() ? "" : ", ") + std::string(n); };
  auto set = [&](const char* key) {
    const Value* v = doc.find(key);
    return v && !v->is_null();
  };
  if (const Value* n = doc.find("n"); n && !n->is_null() && !(n->is_number() && n->as_double() == 1)) add("n > 1");
  if (const Value* b = doc.find("best_of"); b && !b->is_null() && !(b->is_number() && b->as_double() == 1)) add("best_of");
  if (const Value* l = doc.find("logprobs"); l && !l->is_null() && !(l->is_bool() && !l->as_bool())) add("logprobs");
  if (set("top_logprobs")) add("top_logprobs");
  for (const char* k : {"tools", "tool_choice", "functions", "function_call", "logit_bias", "suffix", "audio", "prediction"})
    if (set(k)) add(k);
  if (const Value* e = doc.find("echo"); e && e->as_bool()) add("echo");
  for (const char* k : {"presence_penalty", "frequency_penalty"})
    if (const Value* v = doc.find(k); v && !v->is_null() && !(v->is_number() && v->as_double() == 0)) add(k);
  if (const Value* rf = doc.find("response_format"); rf && !rf->is_null()) {
    const Value* t = rf->find("type", Type::String);
    if (!t || t->as_string() != "text") add("response_format other than text");
  }
  if (const Value* m = doc.find("modalities"); m && m->is_array())
    for (const Value& x : m->items())
      if (!(x.is_string() && x.as_string() == "text")) add("modalities other than text");
  (void)chat;
  return names;
}

}  // namespace

bool parse_completion_request(std::string_view body, bool chat, CompletionRequest* out, std::string* error) {
  Value doc;
  if (!parse_object(body, &doc, error)) return false;
  CompletionRequest r;
  r.chat = chat;
  std::string bad = unsupported(doc, chat);
  if (!bad.empty()) {
    *error = "unsupported parameters: " + bad;
    return false;
  }
  if (chat) {
    const Value* msgs = doc.find("messages", Type::Array);
    if (!msgs || msgs->size() == 0) {
      *error = "'messages' must be a non-empty array";
      return false;
    }
    for (size_t i = 0; i < msgs->size(); ++i) {
      const Value& m = (*msgs)[i];
      const Value* role = m.find("role", Type::String);
      if (!m.is_object() || !role || role->as_string().empty()) {
        *error = "messages[" + std::to_string(i) + "] must be an object with a 'role' string";
        return false;
      }
      ChatMessage cm;
      cm.role = role->as_string();
      const Value* content = m.find("content");
      if (!content && !m.find("tool_calls")) {
        *error = "messages[" + std::to_string(i) + "] has no 'content'";
        return false;
      }
      if (m.find("tool_calls") || cm.role == "tool" || cm.role == "function") {
        *error = "unsupported parameters: tool calls (messages[" + std::to_string(i) + "])";
        return false;
      }
      Value parts;
      if (!message_content(*content, i, &cm.content, &r.images, &parts, error)) return false;
      Value pm = Value::object();
      pm.set("role", Value(cm.role));
      pm.set("content", std::move(parts));
      if (!r.parts_messages.is_array()) r.parts_messages = Value::array();
      r.parts_messages.push(std::move(pm));
      r.messages.push_back(std::move(cm));
    }
    if (r.images.size() > 16) {
      *error = "at most 16 images a request";
      return false;
    }
  } else {
    const Value* p = doc.find("prompt");
    if (p && p->is_array() && p->size() == 1 && (*p)[0].is_string()) p = &(*p)[0];  // ["text"]
    if (!p || !p->is_string()) {
      *error = "'prompt' must be a string (one prompt per request)";
      return false;
    }
    r.prompt = p->as_string();
    if (r.prompt.empty()) {
      *error = "'prompt' is empty";
      return false;
    }
  }
  if (!bool_field(doc, "stream", &r.stream, error)) return false;
  if (const Value* so = doc.find("stream_options"); so && !so->is_null()) {
    if (!so->is_object()) {
      *error = "'stream_options' must be an object";
      return false;
    }
    if (!bool_field(*so, "include_usage", &r.include_usage, error)) return false;
  }
  int64_t max_tokens = -1;
  if (!int_field(doc, "max_tokens", 1, 1 << 30, &max_tokens, error)) return false;
  if (doc.find("max_completion_tokens") && !int_field(doc, "max_completion_tokens", 1, 1 << 30, &max_tokens, error)) return false;
  r.max_tokens = static_cast<int>(max_tokens);
  double t = 1.0, top_p = 1.0, min_p = 0.0, rep = 1.0;  // OpenAI's default temperature is 1
  if (!number_field(doc, "temperature", 0, 2, &t, error)) return false;
  if (!number_field(doc, "top_p", 0, 1, &top_p, error)) return false;
  if (!number_field(doc, "min_p", 0, 1, &min_p, error)) return false;
  if (!number_field(doc, "repeat_penalty", 0.01, 100, &rep, error)) return false;
  int64_t top_k = 0, seed = 0;
  if (!int_field(doc, "top_k", 0, 1 << 30, &top_k, error)) return false;
  if (!int_field(doc, "seed", INT64_MIN, INT64_MAX, &seed, error)) return false;
  r.seeded = doc.find("seed") && !doc.find("seed")->is_null();
  r.sampling.temperature = static_cast<float>(t);
  r.sampling.top_p = static_cast<float>(top_p);
  r.sampling.min_p = static_cast<float>(min_p);
  r.sampling.repeat_penalty = static_cast<float>(rep);
  r.sampling.top_k = static_cast<int>(top_k);
  r.sampling.seed = static_cast<uint64_t>(seed);
  if (const Value* s = doc.find("stop"); s && !s->is_null()) {
    std::vector<const Value*> items;
    if (s->is_string()) items.push_back(s);
    else if (s->is_array()) for (const Value& x : s->items()) items.push_back(&x);
    if ((!s->is_string() && !s->is_array()) || items.size() > 16) {
      *error = "'stop' must be a string or an array of at most 16 strings";
      return false;
    }
    for (const Value* x : items) {
      if (!x->is_string() || x->as_string().empty()) {
        *error = "'stop' entries must be non-empty strings";
        return false;
      }
      r.stop.push_back(x->as_string());
    }
  }
  *out = std::move(r);
  return true;
}

bool decode_data_url(std::string_view url, std::string* bytes, std::string* error) {
  if (url.substr(0, 5) != "data:") {
    *error = "image_url: only data: URLs (base64) are supported; the server fetches nothing";
    return false;
  }
  const size_t comma = url.find(',');
  if (comma == std::string_view::npos || comma < 12 || url.substr(comma - 7, 7) != ";base64") {
    *error = "image_url: a data: URL must be data:<type>;base64,<data>";
    return false;
  }
  std::string_view b = url.substr(comma + 1);
  bytes->clear();
  bytes->reserve(b.size() / 4 * 3);
  uint32_t acc = 0;
  int bits = 0;
  size_t pad = 0;
  for (char c : b) {
    if (c == '=') {
      ++pad;
      continue;
    }
    if (c == '\n' || c == '\r' || c == ' ') continue;
    const int v = base64_value(c);
    if (v < 0 || pad) {
      *error = "image_url: the data: URL is not valid base64";
      return false;
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes->push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  if (pad > 2 || bytes->empty()) {
    *error = "image_url: the data: URL is not valid base64, or empty";
    return false;
  }
  return true;
}

bool parse_tokenize_request(std::string_view body, std::string* content, bool* add_special, std::string* error) {
  Value doc;
  if (!parse_object(body, &doc, error)) return false;
  const Value* c = doc.find("content", Type::String);
  if (!c) {
    *error = "'content' must be a string";
    return false;
  }
  *content = c->as_string();
  *add_special = false;
  return bool_field(doc, "add_special", add_special, error);
}

bool parse_detokenize_request(std::string_view body, int64_t vocab_size, std::vector<int32_t>* ids, std::string* error) {
  Value doc;
  if (!parse_object(body, &doc, error)) return false;
  const Value* t = doc.find("tokens", Type::Array);
  if (!t) {
    *error = "'tokens' must be an array of token ids";
    return false;
  }
  ids->clear();
  for (const Value& x : t->items()) {
    if (!x.is_int() || x.as_int() < 0 || x.as_int() >= vocab_size) {
      *error = "'tokens' must hold integers in [0, " + std::to_string(vocab_size) + ")";
      return false;
    }
    ids->push_back(static_cast<int32_t>(x.as_int()));
  }
  return true;
}

bool parse_embeddings_request(std::string_view body, std::vector<std::string>* texts, bool* base64, std::string* error) {
  Value doc;
  if (!parse_object(body, &doc, error)) return false;
  *base64 = false;
  if (const Value* f = doc.find("encoding_format"); f && !f->is_null()) {
    if (!f->is_string() || (f->as_string() != "float" && f->as_string() != "base64")) {
      *error = "'encoding_format' must be \"float\" or \"base64\"";
      return false;
    }
    *base64 = f->as_string() == "base64";
  }
  if (const Value* d = doc.find("dimensions"); d && !d->is_null()) {
    *error = "unsupported parameters: dimensions";
    return false;
  }
  const Value* in = doc.find("input");
  texts->clear();
  if (in && in->is_string()) texts->push_back(in->as_string());
  else if (in && in->is_array() && in->size() > 0)
    for (const Value& x : in->items()) {
      if (!x.is_string()) {
        *error = "'input' must be a string or an array of strings (token arrays are not supported)";
        return false;
      }
      texts->push_back(x.as_string());
    }
  if (texts->empty()) {
    *error = "'input' must be a string or a non-empty array of strings";
    return false;
  }
  for (const auto& s : *texts)
    if (s.empty()) {
      *error = "'input' holds an empty string";
      return false;
    }
  return true;
}

std::string base64_floats(const std::vector<float>& v) {
  static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::vector<uint8_t> b(v.size() * 4);
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t u;
    std::memcpy(&u, &v[i], 4);
    for (int k = 0; k < 4; ++k) b[i * 4 + k] = static_cast<uint8_t>(u >> (8 * k));  // little-endian
  }
  std::string out;
  out.reserve((b.size() + 2) / 3 * 4);
  for (size_t i = 0; i < b.size(); i += 3) {
    uint32_t n = static_cast<uint32_t>(b[i]) << 16;
    if (i + 1 < b.size()) n |= static_cast<uint32_t>(b[i + 1]) << 8;
    if (i + 2 < b.size()) n |= b[i + 2];
    out += digits[(n >> 18) & 63];
    out += digits[(n >> 12) & 63];
    out += i + 1 < b.size() ? digits[(n >> 6) & 63] : '=';
    out += i + 2 < b.size() ? digits[n & 63] : '=';
  }
  return out;
}

const char* finish_reason(const std::string& stop_reason) {
  return stop_reason == "eos" || stop_reason == "stop_string" || stop_reason == "cancelled" ? "stop" : "length";
}

namespace {

Value usage_value(const Usage& u) {
  Value v = Value::object();
  v.set("prompt_tokens", u.prompt_tokens);
  v.set("completion_tokens", u.completion_tokens);
  v.set("total_tokens", u.prompt_tokens + u.completion_tokens);
  Value d = Value::object();
  d.set("cached_tokens", u.cached_tokens);
  v.set("prompt_tokens_details", std::move(d));
  return v;
}

Value head(bool chat, bool chunk, const std::string& id, int64_t created, const std::string& model) {
  Value v = Value::object();
  v.set("id", id);
  v.set("object", chat ? (chunk ? "chat.completion.chunk" : "chat.completion") : "text_completion");
  v.set("created", created);
  v.set("model", model);
  return v;
}

}  // namespace

std::string completion_body(bool chat, const std::string& id, int64_t created, const std::string& model,
                            const std::string& text, const char* finish, const Usage& usage) {
  Value v = head(chat, false, id, created, model);
  Value choice = Value::object();
  choice.set("index", 0);
  if (chat) {
    Value msg = Value::object();
    msg.set("role", "assistant");
    msg.set("content", text);
    choice.set("message", std::move(msg));
  } else {
    choice.set("text", text);
  }
  choice.set("logprobs", nullptr);
  choice.set("finish_reason", finish);
  v.set("choices", Value::array()).push(std::move(choice));
  v.set("usage", usage_value(usage));
  return json::write(v);
}

std::string stream_chunk(bool chat, const std::string& id, int64_t created, const std::string& model,
                         const std::string& text, bool first, const char* finish) {
  Value v = head(chat, true, id, created, model);
  Value choice = Value::object();
  choice.set("index", 0);
  if (chat) {
    Value delta = Value::object();
    if (first) delta.set("role", "assistant");
    if (!finish || !text.empty()) delta.set("content", text);
    choice.set("delta", std::move(delta));
  } else {
    choice.set("text", text);
  }
  choice.set("logprobs", nullptr);
  choice.set("finish_reason", finish ? Value(finish) : Value());
  v.set("choices", Value::array()).push(std::move(choice));
  return "data: " + json::write(v) + "\n\n";
}

std::string stream_usage_chunk(bool chat, const std::string& id, int64_t created, const std::string& model,
                               const Usage& usage) {
  Value v = head(chat, true, id, created, model);
  v.set("choices", Value::array());
  v.set("usage", usage_value(usage));
  return "data: " + json::write(v) + "\n\n";
}

std::string error_body(const std::string& message, const char* type, int code) {
  Value e = Value::object();
  e.set("message", message);
  e.set("type", type);
  e.set("code", code);
  Value v = Value::object();
  v.set("error", std::move(e));
  return json::write(v);
}

}  // namespace pte::server
