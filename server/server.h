// pte-run serve: an OpenAI-compatible HTTP server over one .pte program (cpp-httplib).
//
//   decoder programs: POST /v1/chat/completions, /v1/completions (stream: true as
//   server-sent events ending with "data: [DONE]"), /tokenize, /detokenize; image+text
//   programs also take image_url parts (data: URLs) in chat messages;
//   encoder programs: POST /v1/embeddings;  both: GET /v1/models, /health, /metrics.
//
//   std::unique_ptr<pte::server::Server> s;
//   pte::Status st = pte::server::Server::create(options, &s);   // loads the model
//   st = s->bind();       // s->port() is known from here (port 0: a free one)
//   s->run();             // until s->stop() from another thread
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pte/status.h"

namespace pte::server {

struct ServerOptions {
  std::string model_path;
  std::string tokenizer_path;        // empty: beside the model
  std::vector<std::string> data_files;
  int num_threads = 0;               // kernel threads per slot (0: the library's default, or with
                                     // several slots the CPUs divided among them)
  std::string host = "127.0.0.1";
  int port = 8080;                   // 0: any free port
  std::string api_key;               // empty: no key asked
  int parallel = 1;                  // slots (each a KV cache)
  int queue = 16;                    // requests that may wait for a slot; more get 503
  int64_t ctx_per_slot = 0;          // tokens per request (prompt + reply); 0: the program's context
  int default_max_tokens = -1;       // when a request gives none (-1: until EOS or a full context)
  size_t max_body_bytes = 1 << 20;   // larger bodies get 413
  bool access_log = true;            // one line per request on stderr
  std::string model_id;              // the name /v1/models lists; empty: the file's stem
  // Image bytes (an image_url data: URL's) to the pixel values the vision encoder takes
  // (`want`: its input sizes); unset: requests with images get 400 (a build without images).
  std::function<Status(const std::string& bytes, const std::vector<int64_t>& want, std::vector<float>* pixels,
                       std::vector<int64_t>* sizes)>
      image_pixels;
};

class Server {
 public:
  static Status create(const ServerOptions& options, std::unique_ptr<Server>* out);
  ~Server();
  Status bind();
  int port() const;
  const std::string& model_id() const;
  void run();   // serves until stop()
  void stop();  // from any thread (a signal handler must not call it: use a watcher thread)

 private:
  Server();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pte::server
