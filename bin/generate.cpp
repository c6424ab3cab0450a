// pte-run MODEL.pte "prompt" [options]: text generation, tokens streamed to stdout.
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "bin/args.h"
#include "bin/commands.h"
#include "ops/isa.h"
#include "llm/runner.h"
#include "llm/session.h"
#include "util/json.h"
#include "util/proc_stats.h"

namespace pte::cli {

namespace {

void usage(std::FILE* f) {
  std::fprintf(f,
               "usage: pte-run MODEL.pte \"prompt\" [options]\n"
               "       pte-run MODEL.pte --prompt-file FILE [options]\n"
               "  --tokenizer PATH        tokenizer.json, a folder holding it, tokenizer.bin or a tiktoken file\n"
               "                          (default: next to MODEL.pte)\n"
               "  -n, --max-new-tokens N  stop after N new tokens (default 256; -1: until EOS or a full context)\n"
               "  --temperature T         0 = greedy (default); > 0 samples\n"
               "  --top-k K               sample among the K most likely tokens\n"
               "  --top-p P               sample among the smallest set holding probability P\n"
               "  --seed S                seed of the sampler (default 0: runs are repeatable)\n"
               "  --chat                  wrap the prompt in the model's chat template (its Jinja template,\n"
               "                          rendered as transformers' apply_chat_template)\n"
               "  --system TEXT           with --chat: a system message before the prompt\n"
               "  --ignore-eos            keep generating past end-of-sequence tokens\n"
               "  --stop STR              end the text before the first STR (repeatable)\n"
               "  --min-p P               sample only among tokens at least P times as likely as the top one\n"
               "  --repeat-penalty R      penalize tokens of the last --repeat-last-n N (default 64; -1: all)\n"
               "  --json                  print one JSON object (text, token ids, statistics) instead of the text\n"
               "  --save-session FILE     afterwards, save the conversation and its KV cache\n"
               "  --load-session FILE     continue a saved session: only the new prompt is prefilled\n"
               "  -i, --interactive       chat (same as pte-run chat MODEL.pte)\n"
               "  --ids                   print the prompt and generated token ids to stderr\n"
               "  --stats                 print load time, prompt tokens, time to first token, tokens/s\n"
               "                          and peak RSS to stderr\n"
               "  --data FILE.ptd         external weights (repeatable)\n"
               "  --threads N             worker threads (default: physical cores)\n"
               "  --method NAME           method to call (default forward)\n"
               "  --image FILE            an image for an image+text program (repeatable; PNG or JPEG): it goes\n"
               "                          through the vision encoder and its tokens into the prompt; the prompt\n"
               "                          is then wrapped in the chat template (when the tokenizer has one)\n"
               "  --preprocessor-config F the image preprocessing (default: preprocessor_config.json beside MODEL.pte)\n"
               "  --max-pixels N          refuse images whose header claims more pixels (default 64 Mi)\n");
}

bool valid_utf8(const std::string& s) {
  size_t i = 0, n = s.size();
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (!len || i + len > n) return false;
    for (int k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += len;
  }
  return true;
}

}  // namespace

int cmd_generate(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "-i") || !std::strcmp(argv[i], "--interactive")) return cmd_chat(argc, argv);
  RunnerOptions ro;
  GenerationConfig gc;
  std::string prompt, prompt_file;
  bool have_prompt = false, stats = false, print_ids = false, json_out = false;
  std::string save_path, load_path;
  std::vector<std::string> images;
  ImageInput image_in;
  ArgReader args(argc, argv);
  while (args.next()) {
    const std::string& a = args.arg();
    if (a == "-h" || a == "--help") { usage(stdout); return 0; }
    else if (a == "--tokenizer") ro.tokenizer_path = args.value();
    else if (a == "-n" || a == "--max-new-tokens") gc.max_new_tokens = static_cast<int>(args.number());
    else if (take_sampling_option(args, &gc.sampling)) {}
    else if (a == "--chat") gc.chat = true;
    else if (a == "--system") gc.system_prompt = args.value();
    else if (a == "--stats") stats = true;
    else if (a == "--ignore-eos") gc.ignore_eos = true;
    else if (a == "--stop") gc.stop.push_back(args.value());
    else if (a == "--json") json_out = true;
    else if (a == "--save-session") save_path = args.value();
    else if (a == "--load-session") load_path = args.value();
    else if (a == "--ids") print_ids = true;
    else if (a == "--data") ro.data_files.push_back(args.value());
    else if (a == "--threads") ro.num_threads = static_cast<int>(args.number());
    else if (a == "--method") ro.method = args.value();
    else if (a == "--prompt-file" || a == "-f") prompt_file = args.value();
    else if (a == "--image") images.push_back(args.value());
    else if (a == "--preprocessor-config") image_in.preprocessor_path = args.value();
    else if (a == "--max-pixels") {
      long long n = args.number();
      if (n < 1) { std::fprintf(stderr, "pte-run: --max-pixels needs a positive count\n"); return 2; }
      image_in.max_pixels = static_cast<uint64_t>(n);
    }
    else if (a == "--audio") { std::fprintf(stderr, "pte-run: --audio: audio+text programs are not supported yet (images are: --image)\n"); return 2; }
    else if (a.size() > 1 && a[0] == '-' && a != "-") { std::fprintf(stderr, "pte-run: unknown option %s\n", a.c_str()); usage(stderr); return 2; }
    else if (ro.model_path.empty()) ro.model_path = a;
    else if (!have_prompt) { prompt = a; have_prompt = true; }
    else { std::fprintf(stderr, "pte-run: unexpected argument '%s'\n", a.c_str()); return 2; }
  }
  if (ro.model_path.empty()) { usage(stderr); return 2; }
  if (!prompt_file.empty()) {
    if (have_prompt) { std::fprintf(stderr, "pte-run: give either a prompt or --prompt-file, not both\n"); return 2; }
    if (!read_prompt_file(prompt_file, &prompt)) return 1;
    have_prompt = true;
  }
  if (!have_prompt) { std::fprintf(stderr, "pte-run: no prompt given\n"); usage(stderr); return 2; }
  if (!valid_utf8(prompt)) {
    std::fprintf(stderr, "pte-run: %s: the prompt is not valid UTF-8\n", prompt_file.empty() ? "prompt" : prompt_file.c_str());
    return 1;
  }
  if (!check_sampling(gc.sampling)) return 2;
  for (const auto& st : gc.stop)
    if (st.empty() || !valid_utf8(st)) { std::fprintf(stderr, "pte-run: --stop needs a non-empty UTF-8 string\n"); return 2; }

  std::unique_ptr<TextRunner> runner;
  Status s = TextRunner::create(ro, &runner);
  if (!s) { std::fprintf(stderr, "pte-run: %s\n", s.message().c_str()); return 1; }
  if (!load_path.empty()) {
    s = load_session(*runner, load_path);
    if (!s) { std::fprintf(stderr, "pte-run: %s\n", s.message().c_str()); return 1; }
  }
  double media_ms = 0;
  if (!images.empty()) {  // each image through the vision encoder, before the prompt is built
    const MultimodalInfo* mm = runner->multimodal();
    if (!mm || mm->modality != "vision") {
      std::fprintf(stderr, "pte-run: %s: --image: this program has no vision encoder (no vision_encoder method)\n", ro.model_path.c_str());
      return 1;
    }
    const double t0 = util::now_ms();
    image_in.model_path = ro.model_path;
    for (const auto& path : images) {
      image_in.image_path = path;
      std::vector<float> pixels;
      std::vector<int64_t> sizes;
      s = image_pixels(image_in, mm->encoder_input_sizes, &pixels, &sizes);
      MediaEmbedding m;
      if (s) s = runner->encode_media(pixels.data(), sizes, &m);
      if (!s) { std::fprintf(stderr, "pte-run: %s: %s\n", path.c_str(), s.message().c_str()); return 1; }
      gc.media.push_back(std::move(m));
    }
    media_ms = util::now_ms() - t0;
    if (!runner->tokenizer().chat_template().empty()) gc.chat = true;  // as the processor's apply_chat_template
  }
  GenerationStats st;
  bool wrote = false;
  s = runner->generate(prompt, gc, [&](const std::string& t) {
    if (json_out) return;
    std::fwrite(t.data(), 1, t.size(), stdout);
    std::fflush(stdout);
    wrote = true;
  }, &st);
  // the line break goes out before anything on stderr (stdout is flushed: with both
  // streams on one terminal or file, --stats must start on a line of its own)
  if (!json_out && (wrote || s)) {
    std::fputc('\n', stdout);
    std::fflush(stdout);
  }
  if (!s) { std::fprintf(stderr, "pte-run: %s\n", s.message().c_str()); return 1; }
  if (!save_path.empty()) {
    // the last sampled token was printed but not fed: feed it, so the session holds all
    bool eos = st.stop_reason == "eos";
    if (!eos && !st.tokens.empty() && runner->position() + 1 < runner->metadata().max_context_len) {
      const float* logits = nullptr;
      s = runner->prefill({st.tokens.back()}, &logits);
      if (!s) { std::fprintf(stderr, "pte-run: %s\n", s.message().c_str()); return 1; }
    }
    s = save_session(*runner, save_path);
    if (!s) { std::fprintf(stderr, "pte-run: %s\n", s.message().c_str()); return 1; }
  }
  double dec = st.generated_tokens > 1 && st.decode_ms > 0 ? (st.generated_tokens - 1) / (st.decode_ms / 1000.0) : 0;
  double pre = st.prefill_ms > 0 ? st.prompt_tokens / (st.prefill_ms / 1000.0) : 0;
  if (json_out) {
    json::Value v = json::Value::object();
    auto& m = v.members_mut();
    auto ids = [](const std::vector<int32_t>& x) {
      json::Value a = json::Value::array();
      for (int32_t t : x) a.items_mut().push_back(json::Value(t));
      return a;
    };
    m.emplace_back("text", json::Value(st.text));
    m.emplace_back("prompt_ids", ids(st.prompt_ids));
    m.emplace_back("generated_ids", ids(st.tokens));
    m.emplace_back("stop_reason", json::Value(st.stop_reason));
    json::Value sv = json::Value::object();
    auto& sm = sv.members_mut();
    sm.emplace_back("load_ms", json::Value(st.load_ms));
    sm.emplace_back("prompt_tokens", json::Value(st.prompt_tokens));
    sm.emplace_back("generated_tokens", json::Value(st.generated_tokens));
    sm.emplace_back("first_token_ms", json::Value(st.ttft_ms));
    sm.emplace_back("prefill_tokens_per_s", json::Value(pre));
    sm.emplace_back("decode_tokens_per_s", json::Value(dec));
    sm.emplace_back("peak_rss_mb", json::Value(st.peak_rss_kb / 1024.0));
    sm.emplace_back("context_used", json::Value(static_cast<long long>(runner->position())));
    sm.emplace_back("context_length", json::Value(static_cast<long long>(runner->metadata().max_context_len)));
    m.emplace_back("stats", std::move(sv));
    std::string out = json::write(v, 1);
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
  }
  if (print_ids) {
    std::string line = "prompt ids:";
    for (int32_t id : st.prompt_ids) line += " " + std::to_string(id);
    line += "\ngenerated ids:";
    for (int32_t id : st.tokens) line += " " + std::to_string(id);
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  if (st.stop_reason == "context_full")
    std::fprintf(stderr, "pte-run: stopped: the context of %lld tokens is full\n", (long long)runner->metadata().max_context_len);
  if (stats) {
    std::fprintf(stderr,
                 "load %.1f ms | prompt %d tokens | first token %.1f ms | prefill %.2f tok/s | decode %.2f tok/s "
                 "(%d tokens) | peak RSS %.1f MB | stop: %s\n",
                 st.load_ms, st.prompt_tokens, st.ttft_ms, pre, dec,
                 st.generated_tokens, st.peak_rss_kb / 1024.0, st.stop_reason.c_str());
    if (!images.empty())
      std::fprintf(stderr, "images: %zu through the vision encoder in %.1f ms (decode, preprocess, encode)\n", images.size(), media_ms);
    std::fprintf(stderr, "cpu %s\n", isa::describe());  // what the kernels dispatched on (PTE_ISA_OFF)
    if (st.threads.shared + st.threads.alone > 0)  // the thread policy (interpreter/thread_policy.h)
      std::fprintf(stderr, "threads: %lld calls shared work, %lld ran alone (%lld trials)\n",
                   (long long)st.threads.shared, (long long)st.threads.alone, (long long)st.threads.trials);
  }
  return 0;
}

}  // namespace pte::cli
