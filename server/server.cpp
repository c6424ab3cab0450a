#include "server/server.h"

#include <httplib.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <random>
#include <thread>

#include "encoder/encoder.h"
#include "server/metrics.h"
#include "server/openai.h"
#include "server/slots.h"

namespace pte::server {

namespace {

thread_local std::chrono::steady_clock::time_point t_request_start;

int64_t unix_now() { return static_cast<int64_t>(std::time(nullptr)); }

void send_json(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body, "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& message) {
  const char* type = status == 401 ? "authentication_error"
                     : status == 503 ? "server_busy"
                     : status >= 500 ? "server_error"
                                     : "invalid_request_error";
  send_json(res, status, error_body(message, type, status));
}

// While alive, the generation configured by `cfg` asks before each token whether the client
// behind `sink` is still there (so a reply whose tokens print nothing yet stops too); `gone`
// is then set, as the caller sets it when a write fails.
struct ClientWatch {
  GenerationConfig& cfg;
  bool gone = false;
  ClientWatch(GenerationConfig& c, httplib::DataSink& sink) : cfg(c) {
    cfg.cancelled = [this, &sink] {
      if (!gone && !sink.is_writable()) gone = true;
      return gone;
    };
  }
  ~ClientWatch() { cfg.cancelled = nullptr; }
  ClientWatch(const ClientWatch&) = delete;
  ClientWatch& operator=(const ClientWatch&) = delete;
};

// Bearer KEY, compared without an early exit.
bool key_matches(const std::string& header, const std::string& key) {
  const std::string want = "Bearer " + key;
  if (header.size() != want.size()) return false;
  unsigned diff = 0;
  for (size_t i = 0; i < want.size(); ++i) diff |= static_cast<unsigned char>(header[i] ^ want[i]);
  return diff == 0;
}

}  // namespace

struct Server::Impl {
  ServerOptions opt;
  std::string model_id;
  httplib::Server http;
  int port = 0;
  Metrics metrics;
  // a decoder program: slots; an encoder program: one runner behind a lock
  std::unique_ptr<SlotPool> pool;
  std::unique_ptr<ChatTemplate> chat_template;  // null when the model has none
  std::string chat_template_error;
  std::mutex template_mu;
  std::unique_ptr<EncoderRunner> encoder;
  std::mutex encoder_mu;
  std::atomic<uint64_t> next_id{0};
  int64_t context = 0;  // tokens per request

  Status load();
  void routes();
  std::string new_id(const char* prefix) { return prefix + std::to_string(unix_now()) + "-" + std::to_string(next_id++); }
  // The request's prompt tokens (chat template applied for chat); false after a 400.
  bool prompt_ids(const CompletionRequest& req, std::vector<int32_t>* ids, httplib::Response& res,
                  std::vector<MediaInput>* media);
  void completions(const httplib::Request& req, httplib::Response& res, bool chat);
  void embeddings(const httplib::Request& req, httplib::Response& res);
  void tokenize(const httplib::Request& req, httplib::Response& res);
  void detokenize(const httplib::Request& req, httplib::Response& res);
};

Server::Server() : impl_(new Impl()) {}
Server::~Server() { stop(); }

Status Server::create(const ServerOptions& options, std::unique_ptr<Server>* out) {
  // a client may leave while the server writes to it: a failed write, not a SIGPIPE
  std::signal(SIGPIPE, SIG_IGN);
  std::unique_ptr<Server> s(new Server());
  s->impl_->opt = options;
  PTE_TRY(s->impl_->load());
  s->impl_->routes();
  *out = std::move(s);
  return Status::ok();
}

Status Server::Impl::load() {
  if (opt.parallel < 1 || opt.parallel > 64) return Status::error("--parallel must be in [1, 64]");
  model_id = opt.model_id.empty() ? std::filesystem::path(opt.model_path).stem().string() : opt.model_id;
  std::unique_ptr<Program> probe;
  OpenOptions oo;
  oo.data_files = opt.data_files;
  PTE_TRY(Program::open_file(opt.model_path, oo, &probe));
  EncoderTask task = encoder_task(probe->info());
  probe.reset();
  if (task == EncoderTask::FillMask)
    return Status::error(opt.model_path + ": a fill-mask program: serve runs text-generation decoders and embedding encoders");
  if (task == EncoderTask::Embedding) {
    EncoderOptions eo;
    eo.model_path = opt.model_path;
    eo.tokenizer_path = opt.tokenizer_path;
    eo.data_files = opt.data_files;
    eo.num_threads = opt.num_threads;
    return EncoderRunner::create(eo, &encoder);
  }
  RunnerOptions ro;
  ro.model_path = opt.model_path;
  ro.tokenizer_path = opt.tokenizer_path;
  ro.data_files = opt.data_files;
  ro.num_threads = opt.num_threads;
  if (ro.num_threads == 0 && opt.parallel > 1)  // slots share the cores rather than each taking all
    ro.num_threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / opt.parallel);
  std::unique_ptr<TextRunner> first;
  PTE_TRY(TextRunner::create(ro, &first));
  context = first->metadata().max_context_len;
  if (opt.ctx_per_slot < 0) return Status::error("--ctx-per-slot must be >= 0");
  if (opt.ctx_per_slot > 0) context = std::min(context, opt.ctx_per_slot);
  Status t = ChatTemplate::for_tokenizer(first->tokenizer(), &chat_template);
  if (!t) chat_template_error = t.message();
  pool = std::make_unique<SlotPool>();
  return pool->init(std::move(first), opt.parallel, opt.queue);
}

Status Server::bind() {
  Impl& m = *impl_;
  m.port = m.opt.port == 0 ? m.http.bind_to_any_port(m.opt.host) : (m.http.bind_to_port(m.opt.host, m.opt.port) ? m.opt.port : -1);
  if (m.port <= 0)
    return Status::error("cannot listen on " + m.opt.host + ":" + std::to_string(m.opt.port) + " (in use, or not an address of this machine)");
  return Status::ok();
}

int Server::port() const { return impl_->port; }
const std::string& Server::model_id() const { return impl_->model_id; }
void Server::run() { impl_->http.listen_after_bind(); }
void Server::stop() {
  if (impl_ && impl_->http.is_running()) impl_->http.stop();
}

bool Server::Impl::prompt_ids(const CompletionRequest& req, std::vector<int32_t>* ids, httplib::Response& res,
                              std::vector<MediaInput>* media) {
  const Tokenizer& tok = pool->front().tokenizer();
  Status s;
  if (req.chat) {
    if (!chat_template) {
      send_error(res, 400, "this model has no usable chat template (" + chat_template_error + "): use /v1/completions");
      return false;
    }
    std::string text;
    if (!req.images.empty()) {  // decoded and preprocessed here; encoded on the slot that runs it
      const MultimodalInfo* mm = pool->front().multimodal();
      if (!mm || mm->modality != "vision") s = Status::error("this model takes no images (no vision_encoder method)");
      else if (!opt.image_pixels) s = Status::error("this build has no image front end");
      else if (mm->item_tokens <= 0) s = Status::error("the vision encoder's output length is not fixed");
      for (size_t i = 0; s && i < req.images.size(); ++i) {
        MediaInput m;
        s = opt.image_pixels(req.images[i], mm->encoder_input_sizes, &m.data, &m.sizes);
        if (!s) s = s.context("image " + std::to_string(i + 1));
        media->push_back(std::move(m));
      }
      std::string marked, token, boi, eoi;
      if (s) {
        std::lock_guard<std::mutex> lock(template_mu);
        s = chat_template->render_json(req.parts_messages, /*add_generation_prompt=*/true, &marked);
      }
      if (s) s = pool->front().media_marks(&token, &boi, &eoi);
      if (s) s = EmbeddingFront::expand_placeholders(marked, std::vector<int64_t>(req.images.size(), mm->item_tokens), token, boi, eoi, &text);
    } else {
      std::lock_guard<std::mutex> lock(template_mu);
      s = chat_template->render(req.messages, /*add_generation_prompt=*/true, &text);
    }
    // as apply_chat_template(tokenize=True) and pte-run --chat: no post-processor specials
    if (s) s = tok.encode(text, /*add_special_tokens=*/false, ids);
  } else {
    s = tok.encode(req.prompt, /*add_special_tokens=*/true, ids);
  }
  if (s && ids->empty()) s = Status::error("the prompt encodes to no tokens");
  if (s && static_cast<int64_t>(ids->size()) >= context)
    s = Status::error("the prompt has " + std::to_string(ids->size()) + " tokens; a request may use " + std::to_string(context) +
                      " (prompt and reply)");
  if (!s) {
    send_error(res, 400, s.message());
    return false;
  }
  return true;
}

void Server::Impl::completions(const httplib::Request& http_req, httplib::Response& res, bool chat) {
  if (!pool) return send_error(res, 400, "this model is an encoder program: it serves /v1/embeddings only");
  CompletionRequest req;
  std::string error;
  if (!parse_completion_request(http_req.body, chat, &req, &error)) return send_error(res, 400, error);
  auto ids = std::make_shared<std::vector<int32_t>>();
  auto media = std::make_shared<std::vector<MediaInput>>();
  if (!prompt_ids(req, ids.get(), res, media.get())) return;
  auto ticket = pool->admit();
  if (!ticket) {
    metrics.rejected++;
    res.set_header("Retry-After", "1");
    return send_error(res, 503, "all slots are busy and the queue is full: retry later");
  }
  auto cfg = std::make_shared<GenerationConfig>();
  int room = static_cast<int>(context - static_cast<int64_t>(ids->size()));
  int want = req.max_tokens > 0 ? req.max_tokens : opt.default_max_tokens;
  cfg->max_new_tokens = want > 0 ? std::min(want, room) : room;
  cfg->sampling = req.sampling;
  if (!req.seeded && cfg->sampling.temperature > 0) cfg->sampling.seed = std::random_device{}();
  cfg->stop = req.stop;
  const std::string id = new_id(chat ? "chatcmpl-" : "cmpl-");
  const int64_t created = unix_now();

  auto finish = [this, ids](const SlotResult& r, Usage* u) {
    u->prompt_tokens = static_cast<int64_t>(ids->size());
    u->completion_tokens = r.gen.generated_tokens;
    u->cached_tokens = r.reused;
    metrics.record_generation(r.gen.prompt_tokens, r.reused, r.gen.generated_tokens, r.gen.ttft_ms,
                              r.gen.prefill_ms + r.gen.decode_ms);
    if (r.gen.stop_reason == "cancelled") metrics.cancelled++;
  };

  if (!req.stream) {
    // Generated inside a content provider, as a stream is, so that the connection can be
    // asked before each token: a client that leaves stops its generation. The body is the
    // one JSON object, sent (chunked) when the reply is done.
    res.set_chunked_content_provider(
        "application/json", [this, ids, media, cfg, ticket, id, created, chat, finish](size_t, httplib::DataSink& sink) {
          ClientWatch client(*cfg, sink);
          SlotResult r;  // r.gen.text: the whole text (cut before a stop string)
          Status s = pool->run(*ids, *cfg, [](const std::string&) {}, &r, media.get());
          std::string body;
          if (!s) {
            body = error_body("generation failed: " + s.message(), "server_error", 500);
          } else {
            Usage u;
            finish(r, &u);
            body = completion_body(chat, id, created, model_id, r.gen.text, finish_reason(r.gen.stop_reason), u);
          }
          if (client.gone || !sink.write(body.data(), body.size())) return false;  // the client went away: close
          sink.done();
          return true;
        });
    return;
  }

  const bool include_usage = req.include_usage;
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      "text/event-stream",
      [this, ids, media, cfg, ticket, id, created, chat, include_usage, finish](size_t, httplib::DataSink& sink) {
        ClientWatch client(*cfg, sink);  // the client went away: stop generating, close
        auto send = [&](const std::string& event) {
          if (client.gone) return;
          if (!sink.write(event.data(), event.size())) client.gone = true;
        };
        if (chat) send(stream_chunk(true, id, created, model_id, "", /*first=*/true, nullptr));
        SlotResult r;
        Status s = pool->run(*ids, *cfg, [&](const std::string& piece) {
          send(stream_chunk(chat, id, created, model_id, piece, false, nullptr));
        }, &r, media.get());
        if (!s) {
          send("data: " + error_body("generation failed: " + s.message(), "server_error", 500) + "\n\n");
        } else {
          Usage u;
          finish(r, &u);
          send(stream_chunk(chat, id, created, model_id, "", false, finish_reason(r.gen.stop_reason)));
          if (include_usage) send(stream_usage_chunk(chat, id, created, model_id, u));
        }
        send("data: [DONE]\n\n");
        if (client.gone) return false;  // the client went away: close the connection
        sink.done();
        return true;
      });
}

void Server::Impl::tokenize(const httplib::Request& req, httplib::Response& res) {
  const Tokenizer& tok = pool ? pool->front().tokenizer() : encoder->tokenizer();
  std::string content, error;
  bool add_special = false;
  if (!parse_tokenize_request(req.body, &content, &add_special, &error)) return send_error(res, 400, error);
  std::vector<int32_t> ids;
  Status s = tok.encode(content, add_special, &ids);
  if (!s) return send_error(res, 400, s.message());
  json::Value v = json::Value::object();
  json::Value& arr = v.set("tokens", json::Value::array());
  for (int32_t i : ids) arr.push(i);
  send_json(res, 200, json::write(v));
}

void Server::Impl::detokenize(const httplib::Request& req, httplib::Response& res) {
  const Tokenizer& tok = pool ? pool->front().tokenizer() : encoder->tokenizer();
  std::vector<int32_t> ids;
  std::string error;
  if (!parse_detokenize_request(req.body, tok.vocab_size(), &ids, &error)) return send_error(res, 400, error);
  json::Value v = json::Value::object();
  v.set("content", tok.decode(ids));
  send_json(res, 200, json::write(v));
}

void Server::Impl::embeddings(const httplib::Request& req, httplib::Response& res) {
  if (!encoder) return send_error(res, 400, "this model is a decoder program: /v1/embeddings needs an embedding encoder");
  std::vector<std::string> texts;
  std::string error;
  bool base64 = false;
  if (!parse_embeddings_request(req.body, &texts, &base64, &error)) return send_error(res, 400, error);
  if (texts.size() > 256) return send_error(res, 400, "'input' holds more than 256 texts");
  std::vector<std::vector<float>> vecs;
  int64_t tokens = 0;
  {
    std::lock_guard<std::mutex> lock(encoder_mu);
    Status s = encoder->embed(texts, Pooling::Default, encoder->default_normalize(), &vecs);
    if (!s) return send_error(res, 400, s.message());
    for (const auto& t : texts) {
      std::vector<int32_t> ids;
      if (encoder->tokenizer().encode(t, true, &ids)) tokens += std::min<int64_t>(static_cast<int64_t>(ids.size()), encoder->max_tokens());
    }
  }
  json::Value v = json::Value::object();
  v.set("object", "list");
  json::Value& data = v.set("data", json::Value::array());
  for (size_t i = 0; i < vecs.size(); ++i) {
    json::Value e = json::Value::object();
    e.set("object", "embedding");
    e.set("index", static_cast<int64_t>(i));
    if (base64) {
      e.set("embedding", base64_floats(vecs[i]));
    } else {
      json::Value& arr = e.set("embedding", json::Value::array());
      for (float f : vecs[i]) arr.push(f);
    }
    data.push(std::move(e));
  }
  v.set("model", model_id);
  json::Value u = json::Value::object();
  u.set("prompt_tokens", tokens);
  u.set("total_tokens", tokens);
  v.set("usage", std::move(u));
  send_json(res, 200, json::write(v));
}

void Server::Impl::routes() {
  // a pool as large as the requests that may be in at once, and a few more for /health,
  // /metrics and connections held open between requests
  const size_t threads = static_cast<size_t>(opt.parallel + opt.queue + 8);
  http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http.set_payload_max_length(opt.max_body_bytes);
  http.set_read_timeout(30, 0);
  http.set_write_timeout(30, 0);

  http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    t_request_start = std::chrono::steady_clock::now();
    if (!opt.api_key.empty() && req.path != "/health" && !key_matches(req.get_header_value("Authorization"), opt.api_key)) {
      send_error(res, 401, "a missing or wrong API key (send Authorization: Bearer KEY)");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 404) send_error(res, 404, "no route " + req.method + " " + req.path);
    else if (res.status == 413) send_error(res, 413, "the request body is larger than the server's limit");
    else send_error(res, res.status, "request refused (HTTP " + std::to_string(res.status) + ")");
  });
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "internal error";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what += std::string(": ") + e.what();
    } catch (...) {
    }
    send_error(res, 500, what);
  });
  http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    metrics.record_request(req.path, res.status);
    if (!opt.access_log) return;
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_request_start).count();
    std::time_t now = std::time(nullptr);
    char ts[32];
    std::tm tm{};
    gmtime_r(&now, &tm);
    std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    std::fprintf(stderr, "%s %s \"%s %s\" %d %zu %.1f ms\n", ts, req.remote_addr.c_str(), req.method.c_str(),
                 req.path.c_str(), res.status, res.body.size(), ms);
  });

  http.Post("/v1/chat/completions", [this](const httplib::Request& q, httplib::Response& r) { completions(q, r, true); });
  http.Post("/v1/completions", [this](const httplib::Request& q, httplib::Response& r) { completions(q, r, false); });
  http.Post("/v1/embeddings", [this](const httplib::Request& q, httplib::Response& r) { embeddings(q, r); });
  http.Post("/tokenize", [this](const httplib::Request& q, httplib::Response& r) { tokenize(q, r); });
  http.Post("/detokenize", [this](const httplib::Request& q, httplib::Response& r) { detokenize(q, r); });
  http.Get("/v1/models", [this](const httplib::Request&, httplib::Response& r) {
    json::Value m = json::Value::object();
    m.set("id", model_id);
    m.set("object", "model");
    m.set("created", unix_now());
    m.set("owned_by", "pte-run");
    json::Value v = json::Value::object();
    v.set("object", "list");
    v.set("data", json::Value::array()).push(std::move(m));
    send_json(r, 200, json::write(v));
  });
  http.Get("/health", [this](const httplib::Request&, httplib::Response& r) {
    json::Value v = json::Value::object();
    v.set("status", "ok");
    v.set("slots", pool ? pool->size() : 1);
    v.set("slots_busy", pool ? pool->busy() : 0);
    v.set("queue", pool ? pool->waiting() : 0);
    send_json(r, 200, json::write(v));
  });
  http.Get("/metrics", [this](const httplib::Request&, httplib::Response& r) {
    r.set_content(metrics.prometheus(pool ? pool->size() : 1, pool ? pool->busy() : 0, pool ? pool->waiting() : 0),
                  "text/plain; version=0.0.4");
  });
}

}  // namespace pte::server
