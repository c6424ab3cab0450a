// pte-run serve MODEL.pte [options]: an OpenAI-compatible HTTP server (server/).
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>

#include "bin/args.h"
#include "bin/commands.h"
#include "pte_config.h"

#ifdef PTE_WITH_SERVER
#include <pthread.h>

#include <thread>

#include "server/server.h"
#endif

namespace pte::cli {

namespace {

void usage(std::FILE* f) {
  std::fprintf(f,
               "usage: pte-run serve MODEL.pte [options]\n"
               "  An OpenAI-compatible HTTP server: POST /v1/chat/completions, /v1/completions (stream: true as\n"
               "  server-sent events), /tokenize, /detokenize for decoder programs; POST /v1/embeddings for\n"
               "  embedding encoders; GET /v1/models, /health, /metrics (Prometheus). One line per request on stderr.\n"
               "  --host H               address to listen on (default 127.0.0.1: this machine only)\n"
               "  --port P               port (default 8080; 0: any free port, printed)\n"
               "  --api-key KEY          ask for Authorization: Bearer KEY (all but /health)\n"
               "  --parallel N           slots: requests generating at once, each with its own KV cache (default 1)\n"
               "  --queue N              requests that may wait for a slot; more get 503 (default 16)\n"
               "  --ctx-per-slot N       tokens a request may use, prompt and reply (default: the program's context)\n"
               "  -n, --max-new-tokens N reply length when a request gives no max_tokens (default: until EOS or full)\n"
               "  --max-body BYTES       larger request bodies get 413 (default 1048576)\n"
               "  --model-id NAME        the name /v1/models gives (default: the file's stem)\n"
               "  --no-log               no access log\n"
               "  --threads N            kernel threads per slot (default: the CPUs divided among the slots)\n"
               "  --tokenizer PATH --data FILE.ptd\n");
}

}  // namespace

int cmd_serve(int argc, char** argv) {
#ifndef PTE_WITH_SERVER
  (void)argc, (void)argv, (void)usage;
  std::fprintf(stderr, "pte-run: this build has no serve command (cpp-httplib was not found when it was built: "
                       "apt-get install libcpp-httplib-dev, then rebuild)\n");
  return 1;
#else
  server::ServerOptions o;
  ArgReader args(argc, argv);
  while (args.next()) {
    const std::string& a = args.arg();
    if (a == "-h" || a == "--help") { usage(stdout); return 0; }
    else if (a == "--host") o.host = args.value();
    else if (a == "--port") o.port = static_cast<int>(args.number());
    else if (a == "--api-key") o.api_key = args.value();
    else if (a == "--parallel" || a == "-np") o.parallel = static_cast<int>(args.number());
    else if (a == "--queue") o.queue = static_cast<int>(args.number());
    else if (a == "--ctx-per-slot") o.ctx_per_slot = static_cast<int64_t>(args.number());
    else if (a == "-n" || a == "--max-new-tokens") o.default_max_tokens = static_cast<int>(args.number());
    else if (a == "--max-body") o.max_body_bytes = static_cast<size_t>(args.number());
    else if (a == "--model-id") o.model_id = args.value();
    else if (a == "--no-log") o.access_log = false;
    else if (a == "--tokenizer") o.tokenizer_path = args.value();
    else if (a == "--data") o.data_files.push_back(args.value());
    else if (a == "--threads") o.num_threads = static_cast<int>(args.number());
    else if (a.size() > 1 && a[0] == '-') { std::fprintf(stderr, "pte-run: unknown option %s\n", a.c_str()); usage(stderr); return 2; }
    else if (o.model_path.empty()) o.model_path = a;
    else { std::fprintf(stderr, "pte-run: serve takes one model ('%s' is extra)\n", a.c_str()); return 2; }
  }
  if (o.model_path.empty()) { usage(stderr); return 2; }
  if (o.port < 0 || o.port > 65535 || o.queue < 0 || o.parallel < 1 || o.max_body_bytes == 0) {
    std::fprintf(stderr, "pte-run: --port must be in [0, 65535], --parallel >= 1, --queue >= 0, --max-body > 0\n");
    return 2;
  }
  // SIGINT / SIGTERM end the server from a watcher thread (stop() is not signal-safe);
  // blocked here so every thread started later inherits the mask
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGUSR1);  // sent by main when the server ends on its own
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  // image_url parts: decoded and preprocessed as pte-run MODEL.pte --image does
  ImageInput image_in;
  image_in.model_path = o.model_path;
  image_in.image_path = "image_url";
  if (PTE_WITH_IMAGE)
    o.image_pixels = [image_in](const std::string& bytes, const std::vector<int64_t>& want, std::vector<float>* px,
                                std::vector<int64_t>* sizes) { return image_pixels_from_bytes(image_in, bytes, want, px, sizes); };
  std::unique_ptr<server::Server> srv;
  Status s = server::Server::create(o, &srv);
  if (s) s = srv->bind();
  if (!s) {
    std::fprintf(stderr, "pte-run: %s\n", s.message().c_str());
    return 1;
  }
  if (o.api_key.empty() && o.host != "127.0.0.1" && o.host != "localhost" && o.host != "::1")
    std::fprintf(stderr, "pte-run serve: listening on %s without --api-key: anyone who reaches it can use it\n",
                 o.host.c_str());
  std::fprintf(stderr, "pte-run serve: %s on http://%s:%d (%d slot%s)\n", srv->model_id().c_str(), o.host.c_str(),
               srv->port(), o.parallel, o.parallel > 1 ? "s" : "");
  std::thread watcher([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    if (sig == SIGUSR1) return;  // the server ended on its own
    std::fprintf(stderr, "pte-run serve: stopping (signal %d)\n", sig);
    srv->stop();
  });
  srv->run();
  pthread_kill(watcher.native_handle(), SIGUSR1);
  watcher.join();
  return 0;
#endif
}

}  // namespace pte::cli
