// pte-run serve (server/): the OpenAI request parser alone (valid and invalid bodies, a
// seeded fuzz of mutated bodies), then a server started in-process on 127.0.0.1 (a free
// port) over fixtures/data/chat_smollm (a tiny SmolLM-style decoder with a ChatML
// template, 256 positions) and fixtures/data/encoder_st_bert (embeddings), driven with
// cpp-httplib's client: greedy text equal to pte-run's and to the runner's, streamed chunks
// equal to the whole text, usage, prefix reuse, errors (400, 401, 404, 413, 503), a client
// leaving mid-stream, and concurrent clients over two slots.
#include <doctest/doctest.h>

#ifndef PTE_WITH_SERVER
TEST_CASE("server: skipped") {
  MESSAGE("skipped: this build has no pte-run serve (cpp-httplib was not found: apt-get install libcpp-httplib-dev)");
}
#else

#include <httplib.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <csignal>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>

#include "cli_spawn.h"
#include "runner_helpers.h"
#include "encoder/encoder.h"
#include "llm/runner.h"
#include "server/openai.h"
#include "server/server.h"
#include "util/json.h"

extern char** environ;

namespace {

using pte::json::Value;
namespace srv = pte::server;

const std::string kChat = "fixtures/data/chat_smollm/model.pte";
const std::string kEmbed = "fixtures/data/encoder_st_bert/model.pte";

Value parse(const std::string& body) {
  Value v;
  pte::Status s = pte::json::parse(body, &v);
  INFO(body);
  REQUIRE(s);
  return v;
}

// A server on a free port, serving from a thread until destroyed.
struct Running {
  std::unique_ptr<srv::Server> server;
  std::thread thread;
  int port = 0;

  explicit Running(srv::ServerOptions o) {
    o.port = 0;
    o.access_log = false;
    pte::Status s = srv::Server::create(o, &server);
    INFO(s.message());
    REQUIRE(s);
    s = server->bind();
    REQUIRE(s);
    port = server->port();
    thread = std::thread([this] { server->run(); });
    for (int i = 0; i < 500; ++i) {  // until it answers
      auto r = client().Get("/health");
      if (r && r->status == 200) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    FAIL("the server did not start");
  }
  ~Running() {
    server->stop();
    thread.join();
  }
  httplib::Client client(int timeout_s = 120) const {
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(timeout_s, 0);
    return c;
  }
  httplib::Result post(const std::string& path, const std::string& body, const httplib::Headers& h = {}) const {
    return client().Post(path.c_str(), h, body, "application/json");
  }
  // A raw connection that has sent POST /v1/chat/completions with `body` (the caller reads
  // and closes it).
  int raw_chat_request(const std::string& body) const {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    const std::string msg = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                            "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    REQUIRE(::send(fd, msg.data(), msg.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(msg.size()));
    return fd;
  }
  // A counter of /metrics (-1 when absent).
  long long metric(const std::string& name) const {
    const std::string key = "\n" + name + " ";
    auto m = client().Get("/metrics");
    size_t at = m ? m->body.find(key) : std::string::npos;
    return at == std::string::npos ? -1LL : std::atoll(m->body.c_str() + at + key.size());
  }
};

srv::ServerOptions chat_options(int parallel = 1) {
  srv::ServerOptions o;
  o.model_path = kChat;
  o.parallel = parallel;
  return o;
}

std::string chat_body(const std::string& user, int max_tokens, bool stream = false) {
  return "{\"messages\":[{\"role\":\"user\",\"content\":" + pte::json::quote(user) + "}],\"temperature\":0,\"max_tokens\":" +
         std::to_string(max_tokens) + (stream ? ",\"stream\":true,\"stream_options\":{\"include_usage\":true}" : "") + "}";
}

// The server-sent events of a stream: each "data: X" payload, in order.
std::vector<std::string> sse_events(const std::string& body) {
  std::vector<std::string> out;
  size_t at = 0;
  while ((at = body.find("data: ", at)) != std::string::npos) {
    size_t end = body.find("\n\n", at);
    REQUIRE(end != std::string::npos);
    out.push_back(body.substr(at + 6, end - at - 6));
    at = end + 2;
  }
  return out;
}

// The runner's greedy reply to one user message under the chat template (what pte-run --chat does).
pte::GenerationStats runner_reply(const std::string& prompt, int n, bool chat = true) {
  std::unique_ptr<pte::TextRunner> r = pte_test::open_runner(kChat);
  pte::GenerationConfig gc;
  gc.max_new_tokens = n;
  gc.chat = chat;
  pte::GenerationStats st;
  REQUIRE(r->generate(prompt, gc, [](const std::string&) {}, &st));
  return st;
}

}  // namespace

TEST_CASE("server: OpenAI request bodies are read and checked") {
  srv::CompletionRequest r;
  std::string err;
  CHECK(srv::parse_completion_request(
      R"({"model":"x","messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}],
          "temperature":0.5,"top_p":0.9,"top_k":40,"min_p":0.05,"max_tokens":12,"stop":["\n","END"],"seed":7,"stream":true,
          "stream_options":{"include_usage":true},"n":1,"logprobs":false,"presence_penalty":0})",
      true, &r, &err));
  INFO(err);
  REQUIRE(r.messages.size() == 2);
  CHECK(r.messages[1].role == "user");
  CHECK(r.messages[1].content == "ab");
  CHECK(r.sampling.temperature == doctest::Approx(0.5));
  CHECK(r.sampling.top_p == doctest::Approx(0.9));
  CHECK(r.sampling.top_k == 40);
  CHECK(r.sampling.min_p == doctest::Approx(0.05));
  CHECK(r.sampling.seed == 7);
  CHECK(r.seeded);
  CHECK(r.max_tokens == 12);
  CHECK(r.stream);
  CHECK(r.include_usage);
  CHECK(r.stop == std::vector<std::string>{"\n", "END"});

  CHECK(srv::parse_completion_request(R"({"prompt":"hello","stop":"x"})", false, &r, &err));
  CHECK(r.prompt == "hello");
  CHECK(r.sampling.temperature == doctest::Approx(1.0));  // OpenAI's default
  CHECK(r.max_tokens == -1);
  CHECK(r.stop == std::vector<std::string>{"x"});

  struct Bad {
    const char* body;
    bool chat;
    const char* says;
  } bad[] = {
      {"{", true, "malformed JSON"},
      {"[]", true, "JSON object"},
      {R"({"messages":[]})", true, "'messages'"},
      {R"({"messages":[{"content":"x"}]})", true, "'role'"},
      {R"({"messages":[{"role":"user"}]})", true, "no 'content'"},
      {R"({"messages":[{"role":"user","content":[{"type":"image_url"}]}]})", true, "image_url part needs"},
      {R"({"messages":[{"role":"user","content":[{"type":"input_audio"}]}]})", true, "text and image_url parts"},
      {R"({"messages":[{"role":"user","content":"x"}],"n":2,"logprobs":true,"tools":[{}]})", true, "n > 1, logprobs, tools"},
      {R"({"messages":[{"role":"user","content":"x"}],"temperature":3})", true, "'temperature'"},
      {R"({"messages":[{"role":"user","content":"x"}],"max_tokens":0})", true, "'max_tokens'"},
      {R"({"messages":[{"role":"user","content":"x"}],"max_tokens":1.5})", true, "'max_tokens'"},
      {R"({"messages":[{"role":"user","content":"x"}],"stop":[""]})", true, "'stop'"},
      {R"({"messages":[{"role":"user","content":"x"}],"stream":"yes"})", true, "'stream'"},
      {R"({"prompt":["a","b"]})", false, "one prompt"},
      {R"({"prompt":"a","echo":true,"best_of":3})", false, "best_of, echo"},
  };
  for (const Bad& b : bad) {
    INFO(b.body);
    err.clear();
    CHECK_FALSE(srv::parse_completion_request(b.body, b.chat, &r, &err));
    CHECK(err.find(b.says) != std::string::npos);
  }

  std::vector<int32_t> ids;
  CHECK(srv::parse_detokenize_request(R"({"tokens":[0,5,999]})", 1000, &ids, &err));
  CHECK(ids == std::vector<int32_t>{0, 5, 999});
  CHECK_FALSE(srv::parse_detokenize_request(R"({"tokens":[1000]})", 1000, &ids, &err));
  CHECK_FALSE(srv::parse_detokenize_request(R"({"tokens":[-1]})", 1000, &ids, &err));
  std::vector<std::string> texts;
  bool b64 = true;
  CHECK(srv::parse_embeddings_request(R"({"input":["a","b"],"model":"m"})", &texts, &b64, &err));
  CHECK(texts == std::vector<std::string>{"a", "b"});
  CHECK_FALSE(b64);
  CHECK(srv::parse_embeddings_request(R"({"input":"a","encoding_format":"base64"})", &texts, &b64, &err));
  CHECK(b64);
  CHECK_FALSE(srv::parse_embeddings_request(R"({"input":[[1,2]]})", &texts, &b64, &err));
  CHECK_FALSE(srv::parse_embeddings_request(R"({"input":"a","encoding_format":"hex"})", &texts, &b64, &err));
  // 1.0f = 00 00 80 3f, -2.0f = 00 00 00 c0 (little-endian) -> base64
  CHECK(srv::base64_floats({1.0f, -2.0f}) == "AACAPwAAAMA=");
  CHECK(srv::base64_floats({1.0f}) == "AACAPw==");
}

TEST_CASE("server: mutated request bodies never crash the parser") {
  const std::string seeds[] = {
      R"({"messages":[{"role":"user","content":"hi"}],"temperature":0,"max_tokens":4,"stop":["a"],"stream":true})",
      R"({"prompt":"hello","top_k":3,"top_p":0.5,"seed":-1,"stream_options":{"include_usage":true}})",
      R"({"tokens":[1,2,3],"content":"x","input":["a",["b"]]})",
      R"({"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},{"type":"text","text":"hi"}]}]})",
  };
  const char alphabet[] = "{}[]\":,0123456789.-+eE truefalsnul\\u\xff\xc3\xa9=/;";
  std::mt19937 rng(1234);
  int accepted = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string s = seeds[i % 4];
    int edits = 1 + static_cast<int>(rng() % 6);
    for (int e = 0; e < edits && !s.empty(); ++e) {
      size_t at = rng() % s.size();
      switch (rng() % 3) {
        case 0: s[at] = alphabet[rng() % (sizeof alphabet - 1)]; break;
        case 1: s.erase(at, 1 + rng() % 4); break;
        default: s.insert(at, 1, alphabet[rng() % (sizeof alphabet - 1)]);
      }
    }
    srv::CompletionRequest r;
    std::string err, content;
    bool special = false;
    std::vector<int32_t> ids;
    std::vector<std::string> texts;
    bool b64 = false;
    bool ok = srv::parse_completion_request(s, true, &r, &err);
    CHECK((ok || !err.empty()));
    accepted += ok;
    (void)srv::parse_completion_request(s, false, &r, &err);
    (void)srv::parse_tokenize_request(s, &content, &special, &err);
    (void)srv::parse_detokenize_request(s, 100, &ids, &err);
    (void)srv::parse_embeddings_request(s, &texts, &b64, &err);
  }
  CHECK(accepted > 0);  // the mutations left some bodies valid: both paths ran
}

TEST_CASE("server: greedy chat equals pte-run --chat; streamed chunks equal the whole text; usage") {
  const int n = 8;
  Running s(chat_options());
  // pte-run MODEL.pte "hi" --chat -n 8 --json: the CLI's own greedy text
  pte_test::CliRun cli = pte_test::run_pte_run({kChat, "hi", "--chat", "-n", std::to_string(n), "--json"});
  REQUIRE(cli.code == 0);
  Value want = parse(cli.out);
  const std::string text = want.find("text")->as_string();
  REQUIRE(!text.empty());

  auto r = s.post("/v1/chat/completions", chat_body("hi", n));
  REQUIRE(r);
  REQUIRE(r->status == 200);
  Value v = parse(r->body);
  CHECK(v.find("object")->as_string() == "chat.completion");
  const Value& choice = (*v.find("choices"))[0];
  CHECK(choice.find("message")->find("role")->as_string() == "assistant");
  CHECK(choice.find("message")->find("content")->as_string() == text);
  CHECK(choice.find("finish_reason")->as_string() == (want.find("stop_reason")->as_string() == "eos" ? "stop" : "length"));
  const Value* u = v.find("usage");
  CHECK(u->find("prompt_tokens")->as_int() == static_cast<int64_t>(want.find("prompt_ids")->size()));
  CHECK(u->find("completion_tokens")->as_int() == static_cast<int64_t>(want.find("generated_ids")->size()));
  CHECK(u->find("total_tokens")->as_int() == u->find("prompt_tokens")->as_int() + u->find("completion_tokens")->as_int());
  CHECK(u->find("prompt_tokens_details")->find("cached_tokens")->as_int() == 0);  // a fresh slot

  // streamed: role first, the deltas concatenate to the same text, then finish, usage, [DONE]
  auto st = s.post("/v1/chat/completions", chat_body("hi", n, true));
  REQUIRE(st);
  REQUIRE(st->status == 200);
  CHECK(st->get_header_value("Content-Type").find("text/event-stream") == 0);
  std::vector<std::string> ev = sse_events(st->body);
  REQUIRE(ev.size() >= 4);
  CHECK(ev.back() == "[DONE]");
  std::string joined, finish;
  for (size_t i = 0; i + 1 < ev.size(); ++i) {
    Value c = parse(ev[i]);
    CHECK(c.find("object")->as_string() == "chat.completion.chunk");
    const Value* choices = c.find("choices");
    if (choices->size() == 0) {  // the usage chunk
      CHECK(i + 2 == ev.size());
      CHECK(c.find("usage")->find("completion_tokens")->as_int() == u->find("completion_tokens")->as_int());
      // the same prompt again: the slot held every prompt token (the last one is prefilled again)
      CHECK(c.find("usage")->find("prompt_tokens_details")->find("cached_tokens")->as_int() ==
            u->find("prompt_tokens")->as_int() - 1);
      continue;
    }
    const Value* delta = (*choices)[0].find("delta");
    if (i == 0) CHECK(delta->find("role")->as_string() == "assistant");
    if (const Value* c2 = delta->find("content")) joined += c2->as_string();
    if (const Value* f = (*choices)[0].find("finish_reason"); f->is_string()) finish = f->as_string();
  }
  CHECK(joined == text);
  CHECK(finish == choice.find("finish_reason")->as_string());
}

TEST_CASE("server: /v1/completions, /tokenize, /detokenize, /v1/models, /metrics") {
  Running s(chat_options());
  pte::GenerationStats want = runner_reply("Once upon a time", 6, /*chat=*/false);
  auto r = s.post("/v1/completions", R"({"prompt":"Once upon a time","temperature":0,"max_tokens":6})");
  REQUIRE(r);
  REQUIRE(r->status == 200);
  Value v = parse(r->body);
  CHECK(v.find("object")->as_string() == "text_completion");
  CHECK((*v.find("choices"))[0].find("text")->as_string() == want.text);
  CHECK(v.find("usage")->find("prompt_tokens")->as_int() == want.prompt_tokens);
  CHECK(v.find("usage")->find("completion_tokens")->as_int() == want.generated_tokens);

  r = s.post("/tokenize", R"({"content":"Once upon a time"})");
  REQUIRE(r);
  REQUIRE(r->status == 200);
  Value t = parse(r->body);
  std::vector<int32_t> ids;
  for (const Value& x : t.find("tokens")->items()) ids.push_back(static_cast<int32_t>(x.as_int()));
  std::vector<int32_t> prompt_no_special;
  std::unique_ptr<pte::Tokenizer> tok;
  REQUIRE(pte::Tokenizer::load_for_program(kChat, "", &tok));
  REQUIRE(tok->encode("Once upon a time", false, &prompt_no_special));
  CHECK(ids == prompt_no_special);
  std::string body = "{\"tokens\":" + pte::json::write(*t.find("tokens")) + "}";
  r = s.post("/detokenize", body);
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(parse(r->body).find("content")->as_string() == "Once upon a time");

  r = s.client().Get("/v1/models");
  REQUIRE(r);
  CHECK((*parse(r->body).find("data"))[0].find("id")->as_string() == "model");
  // requests are counted as their access-log line is written, just after the response
  const std::string counted = "pte_requests_total{path=\"/v1/completions\",status=\"200\"} 1\n";
  for (int i = 0; i < 200; ++i) {
    r = s.client().Get("/metrics");
    REQUIRE(r);
    if (r->body.find(counted) != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(r->body.find(counted) != std::string::npos);
  CHECK(r->body.find("pte_tokens_generated_total " + std::to_string(want.generated_tokens) + "\n") != std::string::npos);
  CHECK(r->body.find("pte_queue_depth 0\n") != std::string::npos);
}

TEST_CASE("server: stop strings end the text before them; --ctx-per-slot bounds prompt and reply") {
  srv::ServerOptions o = chat_options();
  o.ctx_per_slot = 20;
  Running s(o);
  pte::GenerationStats full = runner_reply("hi", 3);  // 16 prompt tokens, then 3
  const std::string& t = full.text;
  size_t p = 1;
  while (p < t.size() && !std::isalpha(static_cast<unsigned char>(t[p]))) ++p;
  REQUIRE_MESSAGE(p < t.size(), "the fixture's greedy reply has no ASCII letter after its first byte: " << t);
  const std::string stop = t.substr(p, 1);
  auto r = s.post("/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"temperature\":0,"
                                          "\"max_tokens\":3,\"stop\":" + pte::json::quote(stop) + "}");
  REQUIRE(r);
  REQUIRE(r->status == 200);
  Value v = parse(r->body);
  CHECK((*v.find("choices"))[0].find("message")->find("content")->as_string() == t.substr(0, t.find(stop)));
  CHECK((*v.find("choices"))[0].find("finish_reason")->as_string() == "stop");

  // 16 prompt tokens in a 20-token slot: 4 tokens of reply at most, whatever max_tokens says
  REQUIRE(full.prompt_tokens == 16);
  r = s.post("/v1/chat/completions", chat_body("hi", 100));
  REQUIRE(r);
  REQUIRE(r->status == 200);
  v = parse(r->body);
  CHECK(v.find("usage")->find("completion_tokens")->as_int() <= 4);
  CHECK((*v.find("choices"))[0].find("finish_reason")->as_string() == "length");
}

TEST_CASE("server: a conversation that extends the last one reuses the slot's cache") {
  Running s(chat_options());
  auto r1 = s.post("/v1/chat/completions", chat_body("hi", 4));
  REQUIRE(r1);
  REQUIRE(r1->status == 200);
  Value v1 = parse(r1->body);
  const int64_t p1 = v1.find("usage")->find("prompt_tokens")->as_int();
  const std::string reply = (*v1.find("choices"))[0].find("message")->find("content")->as_string();
  std::string body = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":" +
                     pte::json::quote(reply) + "},{\"role\":\"user\",\"content\":\"and then?\"}],\"temperature\":0,\"max_tokens\":4}";
  auto r2 = s.post("/v1/chat/completions", body);
  REQUIRE(r2);
  REQUIRE(r2->status == 200);
  Value v2 = parse(r2->body);
  const int64_t p2 = v2.find("usage")->find("prompt_tokens")->as_int();
  const int64_t cached = v2.find("usage")->find("prompt_tokens_details")->find("cached_tokens")->as_int();
  CHECK(p2 > p1);
  CHECK(cached >= p1);  // the first prompt at least was not prefilled again
  CHECK(cached < p2);
}

TEST_CASE("server: errors are answered, never a crash: 400, 401, 404, 413") {
  srv::ServerOptions o = chat_options();
  o.api_key = "sekrit";
  o.max_body_bytes = 4096;
  Running s(o);
  const httplib::Headers key{{"Authorization", "Bearer sekrit"}};
  auto r = s.post("/v1/chat/completions", chat_body("hi", 2));
  REQUIRE(r);
  CHECK(r->status == 401);
  r = s.post("/v1/chat/completions", chat_body("hi", 2), {{"Authorization", "Bearer wrong!"}});
  REQUIRE(r);
  CHECK(r->status == 401);
  CHECK(parse(r->body).find("error")->find("type")->as_string() == "authentication_error");
  r = s.client().Get("/health");  // no key needed
  REQUIRE(r);
  CHECK(r->status == 200);
  r = s.post("/v1/chat/completions", chat_body("hi", 2), key);
  REQUIRE(r);
  CHECK(r->status == 200);

  r = s.post("/v1/chat/completions", "{\"messages\": [", key);
  REQUIRE(r);
  CHECK(r->status == 400);
  CHECK(parse(r->body).find("error")->find("message")->as_string().find("malformed JSON") == 0);
  r = s.post("/v1/chat/completions", R"({"messages":[{"role":"user","content":"x"}],"n":3,"tools":[]})", key);
  REQUIRE(r);
  CHECK(r->status == 400);
  CHECK(parse(r->body).find("error")->find("message")->as_string() == "unsupported parameters: n > 1, tools");
  r = s.post("/v1/embeddings", R"({"input":"x"})", key);  // a decoder program
  REQUIRE(r);
  CHECK(r->status == 400);
  // a prompt longer than the context (256 positions)
  std::string lng(3000, 'x');
  for (size_t i = 1; i < lng.size(); i += 2) lng[i] = ' ';
  r = s.post("/v1/completions", "{\"prompt\":\"" + lng + "\"}", key);
  REQUIRE(r);
  CHECK(r->status == 400);
  CHECK(parse(r->body).find("error")->find("message")->as_string().find("tokens; a request may use 256") != std::string::npos);

  r = s.client().Get("/v1/nothing", key);
  REQUIRE(r);
  CHECK(r->status == 404);
  CHECK(parse(r->body).find("error")->find("code")->as_int() == 404);

  r = s.post("/v1/chat/completions", "{\"messages\":\"" + std::string(5000, 'a') + "\"}", key);
  REQUIRE(r);
  CHECK(r->status == 413);
  // still serving
  r = s.post("/v1/chat/completions", chat_body("hi", 2), key);
  REQUIRE(r);
  CHECK(r->status == 200);
}

TEST_CASE("server: a client leaving mid-stream frees its slot; a full queue answers 503") {
  srv::ServerOptions o = chat_options(1);
  o.queue = 0;
  Running s(o);
  // A raw connection sends a long streaming request and reads its first two events; while
  // the only slot streams (and nobody may wait), a second client gets 503; then the first
  // closes mid-stream. The stream may end on its own before the second request or the close
  // arrive (a busy machine can pause this thread for its whole length): such an attempt
  // proves nothing and is made again.
  int saw_503 = 0, attempts = 0;
  std::string retry_after;
  auto cancelled = [&] { return s.metric("pte_requests_cancelled_total"); };
  for (; attempts < 5 && (saw_503 == 0 || cancelled() < 1); ++attempts) {
    const int fd = s.raw_chat_request(chat_body("tell me a long story", 230, true));
    std::string got;
    char buf[4096];
    while (std::count(got.begin(), got.end(), '\n') < 12) {  // headers and two events
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      REQUIRE(n > 0);
      got.append(buf, static_cast<size_t>(n));
    }
    CHECK(got.find("HTTP/1.1 200") == 0);
    CHECK(got.find("text/event-stream") != std::string::npos);
    auto busy = s.post("/v1/chat/completions", chat_body("hi", 2));
    REQUIRE(busy);
    if (busy->status == 503) {
      ++saw_503;
      retry_after = busy->get_header_value("Retry-After");
    } else {
      CHECK(busy->status == 200);  // the stream had ended: served
    }
    ::close(fd);
    // the slot comes back: a new request is served (503 while the cancelled one stops)
    bool served = false;
    for (int i = 0; i < 200 && !served; ++i) {
      auto r = s.post("/v1/chat/completions", chat_body("hi", 2));
      REQUIRE(r);
      served = r->status == 200;
      if (!served) {
        CHECK(r->status == 503);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    CHECK(served);
  }
  MESSAGE("attempts: " << attempts);
  CHECK(saw_503 > 0);
  CHECK(retry_after == "1");
  // a stream counts as cancelled only when its generation stopped before its end
  CHECK(cancelled() >= 1);
  auto h = s.client().Get("/health");
  REQUIRE(h);
  CHECK(parse(h->body).find("slots_busy")->as_int() == 0);
}

TEST_CASE("server: a non-streaming client that leaves stops its generation too") {
  Running s(chat_options(1));
  auto cancelled = [&] { return s.metric("pte_requests_cancelled_total"); };
  const long long before = cancelled();
  REQUIRE(before >= 0);
  // A raw connection sends a long non-streaming request and closes at once; the generation
  // notices at its next token. (If it ever ran to its end first, the attempt proves nothing
  // and is made again.)
  int attempts = 0;
  for (; attempts < 5 && cancelled() == before; ++attempts) {
    ::close(s.raw_chat_request(chat_body("tell me a long story", 230, false)));
    // the slot comes back and serves the next request
    bool served = false;
    for (int i = 0; i < 200 && !served; ++i) {
      auto r = s.post("/v1/chat/completions", chat_body("hi", 2));
      REQUIRE(r);
      served = r->status == 200;
      if (!served) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    CHECK(served);
  }
  MESSAGE("attempts: " << attempts);
  CHECK(cancelled() > before);
  // and a non-streaming reply still arrives whole (chunked), equal in shape to before
  auto r = s.post("/v1/chat/completions", chat_body("hi", 4));
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(r->get_header_value("Content-Type").find("application/json") == 0);
  const Value v = parse(r->body);
  REQUIRE(v.find("choices") != nullptr);
  CHECK(v.find("usage")->find("completion_tokens")->as_int() == 4);
}

TEST_CASE("server: 4 clients x 3 requests over 2 slots: all served, each text the greedy one") {
  const std::vector<std::string> prompts{"hi", "hello there", "what is 2+2?", "name a colour"};
  std::vector<std::string> want;
  for (const auto& p : prompts) want.push_back(runner_reply(p, 5).text);
  srv::ServerOptions o = chat_options(2);
  Running s(o);
  std::atomic<int> ok{0}, wrong{0}, failed{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 4; ++c)
    clients.emplace_back([&, c] {
      for (int k = 0; k < 3; ++k) {
        size_t p = static_cast<size_t>(c + k) % prompts.size();
        bool stream = (c + k) % 2 == 1;
        auto r = s.client().Post("/v1/chat/completions", chat_body(prompts[p], 5, stream), "application/json");
        if (!r || r->status != 200) {
          ++failed;
          continue;
        }
        std::string text;
        if (stream) {
          for (const auto& e : sse_events(r->body)) {
            Value v;
            if (e == "[DONE]" || !pte::json::parse(e, &v)) continue;
            if (v.find("choices")->size() == 0) continue;
            if (const Value* t = (*v.find("choices"))[0].find("delta")->find("content")) text += t->as_string();
          }
        } else {
          Value v;
          if (pte::json::parse(r->body, &v)) text = (*v.find("choices"))[0].find("message")->find("content")->as_string();
        }
        (text == want[p] ? ok : wrong)++;
      }
    });
  for (auto& t : clients) t.join();
  CHECK(failed == 0);
  CHECK(wrong == 0);
  CHECK(ok == 12);
}

TEST_CASE("server: mutated bodies over HTTP get 200 or 400, and the server keeps serving") {
  // PTE_SERVER_FUZZ_N=20000 runs longer (by hand, e.g. in the ASan build)
  int iterations = 150;
  if (const char* n = std::getenv("PTE_SERVER_FUZZ_N")) iterations = std::atoi(n);
  Running s(chat_options(2));
  const std::string seeds[] = {
      R"({"messages":[{"role":"user","content":"hi"}],"temperature":0,"max_tokens":3,"stop":["a"],"stream":true})",
      R"({"messages":[{"role":"system","content":"x"},{"role":"user","content":[{"type":"text","text":"y"}]}],"max_tokens":2})",
      R"({"prompt":"hello","top_k":3,"top_p":0.5,"seed":-1,"max_tokens":2,"stream_options":{"include_usage":true}})",
      R"({"content":"some text","add_special":true})",
      R"({"tokens":[1,2,3,4]})",
  };
  const char* paths[] = {"/v1/chat/completions", "/v1/chat/completions", "/v1/completions", "/tokenize", "/detokenize"};
  const char alphabet[] = "{}[]\":,0123456789.-+eE truefalsnul\\u\xff\xc3\xa9\x00";
  std::mt19937 rng(99);
  auto c = s.client();
  int ok = 0, refused = 0, other = 0;
  for (int i = 0; i < iterations; ++i) {
    const size_t k = static_cast<size_t>(i) % 5;
    std::string b = seeds[k];
    int edits = static_cast<int>(rng() % 5);
    for (int e = 0; e < edits && !b.empty(); ++e) {
      size_t at = rng() % b.size();
      switch (rng() % 3) {
        case 0: b[at] = alphabet[rng() % (sizeof alphabet - 1)]; break;
        case 1: b.erase(at, 1 + rng() % 4); break;
        default: b.insert(at, 1, alphabet[rng() % (sizeof alphabet - 1)]);
      }
    }
    auto r = c.Post(paths[rng() % 5], b, "application/json");  // any body to any route
    REQUIRE(r);
    if (r->status == 200) ++ok;
    else if (r->status == 400) ++refused;
    else ++other;
  }
  CHECK(other == 0);
  CHECK(ok > 0);
  CHECK(refused > 0);
  auto h = c.Get("/health");
  REQUIRE(h);
  CHECK(parse(h->body).find("slots_busy")->as_int() == 0);
  CHECK(s.post("/v1/chat/completions", chat_body("hi", 2))->status == 200);
}

TEST_CASE("server: pte-run serve as a process: starts, answers, stops on SIGTERM; bad arguments exit non-zero") {
  pte_test::CliRun r = pte_test::run_pte_run({"serve"});
  CHECK(r.code == 2);
  r = pte_test::run_pte_run({"serve", kChat, "--port", "70000"});
  CHECK(r.code == 2);
  r = pte_test::run_pte_run({"serve", "no/such/model.pte", "--port", "0"});
  CHECK(r.code == 1);
  CHECK(pte_test::count_lines(r.err) == 1);
  CHECK(r.err.find("no/such/model.pte") != std::string::npos);

  // the server's stderr through a pipe: its first line names the port
  std::string exe = pte_test::pte_run_exe();
  REQUIRE(!exe.empty());
  int err_pipe[2];
  REQUIRE(::pipe(err_pipe) == 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  posix_spawn_file_actions_addclose(&fa, err_pipe[0]);
  std::vector<std::string> args{exe, "serve", kChat, "--port", "0", "--parallel", "2"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&fa);
  ::close(err_pipe[1]);
  std::string err;
  char buf[512];
  while (err.find('\n') == std::string::npos) {
    ssize_t n = ::read(err_pipe[0], buf, sizeof buf);
    if (n <= 0) break;
    err.append(buf, static_cast<size_t>(n));
  }
  size_t at = err.find("http://127.0.0.1:");
  int port = at == std::string::npos ? 0 : std::atoi(err.c_str() + at + 17);
  CHECK(port > 0);
  if (port > 0) {
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(120, 0);
    auto h = c.Get("/health");
    REQUIRE(h);
    CHECK(h->status == 200);
    CHECK(parse(h->body).find("slots")->as_int() == 2);
    auto g = c.Post("/v1/chat/completions", chat_body("hi", 2), "application/json");
    REQUIRE(g);
    CHECK(g->status == 200);
  }
  ::kill(pid, SIGTERM);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  // the rest of stderr: the access log line of the completion, then the stop
  while (true) {
    ssize_t n = ::read(err_pipe[0], buf, sizeof buf);
    if (n <= 0) break;
    err.append(buf, static_cast<size_t>(n));
  }
  ::close(err_pipe[0]);
  CHECK(err.find("\"POST /v1/chat/completions\" 200") != std::string::npos);
  CHECK(err.find("stopping (signal 15)") != std::string::npos);
}

TEST_CASE("server: image_url parts: data: URLs decoded, parts kept in order, other URLs refused") {
  std::string bytes, error;
  REQUIRE(srv::decode_data_url("data:image/png;base64,aGVsbG8=", &bytes, &error));
  CHECK(bytes == "hello");
  REQUIRE(srv::decode_data_url("data:image/png;base64,aGVsbG8", &bytes, &error));  // unpadded
  CHECK(bytes == "hello");
  CHECK_FALSE(srv::decode_data_url("https://example.com/cat.png", &bytes, &error));
  CHECK(error.find("fetches nothing") != std::string::npos);
  CHECK_FALSE(srv::decode_data_url("data:image/png,plain", &bytes, &error));
  CHECK_FALSE(srv::decode_data_url("data:image/png;base64,a!b", &bytes, &error));
  CHECK_FALSE(srv::decode_data_url("data:image/png;base64,", &bytes, &error));
  CHECK_FALSE(srv::decode_data_url("data:image/png;base64,aGV=sbG8", &bytes, &error));

  srv::CompletionRequest req;
  const std::string body = R"({"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":[)"
                           R"({"type":"text","text":"A "},{"type":"image_url","image_url":{"url":"data:image/png;base64,aGk="}},)"
                           R"({"type":"text","text":"and "},{"type":"image_url","image_url":"data:image/png;base64,eW8="}]}]})";
  REQUIRE(srv::parse_completion_request(body, true, &req, &error));
  REQUIRE(req.images.size() == 2);
  CHECK(req.images[0] == "hi");
  CHECK(req.images[1] == "yo");
  CHECK(req.messages[1].content == "A and ");
  const Value& parts = *req.parts_messages[1].find("content");
  REQUIRE(parts.size() == 4);
  CHECK(parts[0].find("type")->as_string() == "text");
  CHECK(parts[1].find("type")->as_string() == "image");
  CHECK(parts[3].find("type")->as_string() == "image");
  CHECK(req.parts_messages[0].find("content")->as_string() == "Be brief.");
  CHECK_FALSE(srv::parse_completion_request(
      R"({"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"http://x/y.png"}}]}]})", true, &req, &error));
  CHECK_FALSE(srv::parse_completion_request(
      R"({"messages":[{"role":"user","content":[{"type":"input_audio","input_audio":{}}]}]})", true, &req, &error));

  // a text model answers 400 to an image
  Running s(chat_options());
  auto r = s.post("/v1/chat/completions", R"({"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,aGk="}}]}]})");
  REQUIRE(r);
  CHECK(r->status == 400);
  CHECK(r->body.find("takes no images") != std::string::npos);
}

TEST_CASE("server: pte-run serve over an image+text program: images in chat messages give pte-run --image's text") {
  const std::string dir = "fixtures/data/multimodal_gemma3/";
  const std::string exe = pte_test::pte_run_exe();
  REQUIRE(!exe.empty());
  auto cli_text = [&](const std::string& image) {
    pte_test::CliRun c = pte_test::run_pte_run({dir + "model.pte", "Describe this image.", "--image", dir + image, "-n", "10",
                                                "--ignore-eos", "--json"});
    REQUIRE_MESSAGE(c.code == 0, c.err);
    return parse(c.out).find("text")->as_string();
  };
  auto image_body = [&](const std::string& image, const char* mime) {
    const std::string raw = pte_test::slurp(dir + image);
    REQUIRE(!raw.empty());
    static const char* b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string enc;
    for (size_t i = 0; i < raw.size(); i += 3) {
      uint32_t v = static_cast<uint8_t>(raw[i]) << 16;
      if (i + 1 < raw.size()) v |= static_cast<uint8_t>(raw[i + 1]) << 8;
      if (i + 2 < raw.size()) v |= static_cast<uint8_t>(raw[i + 2]);
      enc += b64[(v >> 18) & 63];
      enc += b64[(v >> 12) & 63];
      enc += i + 1 < raw.size() ? b64[(v >> 6) & 63] : '=';
      enc += i + 2 < raw.size() ? b64[v & 63] : '=';
    }
    return std::string(R"({"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:)") + mime +
           ";base64," + enc + R"("}},{"type":"text","text":"Describe this image."}]}],"temperature":0,"max_tokens":10})";
  };
  int err_pipe[2];
  REQUIRE(::pipe(err_pipe) == 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  posix_spawn_file_actions_addclose(&fa, err_pipe[0]);
  std::vector<std::string> args{exe, "serve", dir + "model.pte", "--port", "0", "--no-log"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&fa);
  ::close(err_pipe[1]);
  std::string err;
  char buf[512];
  while (err.find('\n') == std::string::npos) {
    ssize_t n = ::read(err_pipe[0], buf, sizeof buf);
    if (n <= 0) break;
    err.append(buf, static_cast<size_t>(n));
  }
  size_t at = err.find("http://127.0.0.1:");
  int port = at == std::string::npos ? 0 : std::atoi(err.c_str() + at + 17);
  CHECK(port > 0);
  if (port > 0) {
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(120, 0);
    // two images one after the other on the one slot: the second may not reuse the first's
    // image rows (their token ids are equal)
    for (const auto& im : {std::pair<std::string, const char*>{"photo.jpg", "image/jpeg"}, {"photo.png", "image/png"}}) {
      CAPTURE(im.first);
      auto g = c.Post("/v1/chat/completions", image_body(im.first, im.second), "application/json");
      REQUIRE(g);
      REQUIRE_MESSAGE(g->status == 200, g->body);
      Value v = parse(g->body);
      REQUIRE_MESSAGE(v.find("choices"), g->body);
      CHECK((*v.find("choices"))[0].find("message")->find("content")->as_string() == cli_text(im.first));
      CHECK(v.find("usage")->find("prompt_tokens")->as_int() == 35);
      CHECK(v.find("usage")->find("prompt_tokens_details")->find("cached_tokens")->as_int() <= 7);
    }
    // not an image; a text message still works on the same program
    auto bad = c.Post("/v1/chat/completions",
                      R"({"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,aGVsbG8="}}]}]})",
                      "application/json");
    REQUIRE(bad);
    CHECK(bad->status == 400);
    auto t = c.Post("/v1/chat/completions", chat_body("Hello there", 3), "application/json");
    REQUIRE(t);
    CHECK(t->status == 200);
  }
  ::kill(pid, SIGTERM);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  ::close(err_pipe[0]);
}

TEST_CASE("server: /v1/embeddings equals pte-run embed's vectors") {
  srv::ServerOptions o;
  o.model_path = kEmbed;
  Running s(o);
  pte::EncoderOptions eo;
  eo.model_path = kEmbed;
  std::unique_ptr<pte::EncoderRunner> enc;
  REQUIRE(pte::EncoderRunner::create(eo, &enc));
  std::vector<std::vector<float>> want;
  REQUIRE(enc->embed({"a cat sat", "the dog ran far"}, pte::Pooling::Default, enc->default_normalize(), &want));
  auto r = s.post("/v1/embeddings", R"({"input":["a cat sat","the dog ran far"],"model":"x"})");
  REQUIRE(r);
  REQUIRE(r->status == 200);
  Value v = parse(r->body);
  const Value* data = v.find("data");
  REQUIRE(data->size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    const Value* e = (*data)[i].find("embedding");
    CHECK((*data)[i].find("index")->as_int() == static_cast<int64_t>(i));
    REQUIRE(e->size() == want[i].size());
    for (size_t j = 0; j < want[i].size(); ++j) CHECK(static_cast<float>((*e)[j].as_double()) == want[i][j]);
  }
  CHECK(v.find("usage")->find("prompt_tokens")->as_int() > 4);
  r = s.post("/v1/chat/completions", chat_body("hi", 2));
  REQUIRE(r);
  CHECK(r->status == 400);
}

#endif  // PTE_WITH_SERVER
