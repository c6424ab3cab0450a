// pte-run chat MODEL.pte [options] (or pte-run MODEL.pte -i): an interactive chat.
// Turns come from the terminal or a pipe, one turn a line; replies stream to stdout,
// one reply a line. Lines starting with '/' are commands.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "bin/args.h"
#include "bin/commands.h"
#include "llm/chat.h"
#include "util/json.h"

namespace pte::cli {

namespace {

void usage(std::FILE* f) {
  std::fprintf(f,
               "usage: pte-run chat MODEL.pte [options]      (or: pte-run MODEL.pte -i [options])\n"
               "  Reads turns from the terminal or a pipe, one turn a line; each turn prefills only its own\n"
               "  tokens (the KV cache holds the history). Commands:\n"
               "    /reset  forget the conversation      /undo  step back before the last turn\n"
               "    /save FILE, /load FILE  the conversation and its cache   /stats   /help   /exit\n"
               "  --system TEXT           a system message first\n"
               "  --context-shift         when the context is full, drop the oldest turns (the system\n"
               "                          message stays) and re-prefill the rest, instead of refusing\n"
               "  --load-session FILE     start from a saved chat (/save)\n"
               "  -n, --max-new-tokens N  reply length limit (default 256; -1: until EOS or a full context)\n"
               "  --temperature T --top-k K --top-p P --min-p P --seed S\n"
               "  --repeat-penalty R --repeat-last-n N\n"
               "  --stats                 after each reply: tokens prefilled, context used, speed (stderr)\n"
               "  --tokenizer PATH --data FILE.ptd --threads N --method NAME\n");
}

void print_stats(int turn, const ChatTurnStats& ts, int64_t position, int64_t cap) {
  const GenerationStats& st = ts.gen;
  double dec = st.generated_tokens > 1 && st.decode_ms > 0 ? (st.generated_tokens - 1) / (st.decode_ms / 1000.0) : 0;
  std::fprintf(stderr,
               "turn %d: prefill %d tokens (reused %lld)%s | context %lld/%lld | first token %.1f ms | decode %.2f tok/s "
               "(%d tokens) | stop: %s\n",
               turn, st.prompt_tokens, (long long)ts.reused,
               ts.dropped_turns ? (" | dropped " + std::to_string(ts.dropped_turns) + " turns").c_str() : "",
               (long long)position, (long long)cap, st.ttft_ms, dec, st.generated_tokens, st.stop_reason.c_str());
}

}  // namespace

int cmd_chat(int argc, char** argv) {
  RunnerOptions ro;
  GenerationConfig gc;
  std::string system, load_path;
  bool stats = false, context_shift = false;
  ArgReader args(argc, argv);
  while (args.next()) {
    const std::string& a = args.arg();
    if (a == "-h" || a == "--help") { usage(stdout); return 0; }
    else if (a == "-i" || a == "--interactive" || a == "--chat") {}
    else if (a == "--tokenizer") ro.tokenizer_path = args.value();
    else if (a == "-n" || a == "--max-new-tokens") gc.max_new_tokens = static_cast<int>(args.number());
    else if (take_sampling_option(args, &gc.sampling)) {}
    else if (a == "--system") system = args.value();
    else if (a == "--context-shift") context_shift = true;
    else if (a == "--load-session") load_path = args.value();
    else if (a == "--stats") stats = true;
    else if (a == "--data") ro.data_files.push_back(args.value());
    else if (a == "--threads") ro.num_threads = static_cast<int>(args.number());
    else if (a == "--method") ro.method = args.value();
    else if (a.size() > 1 && a[0] == '-') { std::fprintf(stderr, "pte-run: unknown option %s\n", a.c_str()); usage(stderr); return 2; }
    else if (ro.model_path.empty()) ro.model_path = a;
    else { std::fprintf(stderr, "pte-run: chat takes no prompt argument ('%s'): type the turns\n", a.c_str()); return 2; }
  }
  if (ro.model_path.empty()) { usage(stderr); return 2; }
  if (!check_sampling(gc.sampling)) return 2;

  std::unique_ptr<TextRunner> runner;
  Status s = TextRunner::create(ro, &runner);
  if (!s) { std::fprintf(stderr, "pte-run: %s\n", s.message().c_str()); return 1; }
  ChatSession chat(*runner, gc, system, context_shift);
  s = chat.init();
  if (!s) { std::fprintf(stderr, "pte-run: %s\n", s.message().c_str()); return 1; }
  if (!load_path.empty()) {
    s = chat.load(load_path);
    if (!s) { std::fprintf(stderr, "pte-run: %s\n", s.message().c_str()); return 1; }
  }
  const int64_t cap = runner->metadata().max_context_len;
  bool tty = ::isatty(0);
  bool failed = false;
  int turn = 0;
  ChatTurnStats last;
  bool have_last = false;
  auto fail = [&](const Status& st) {
    std::fprintf(stderr, "pte-run: %s\n", st.message().c_str());
    failed = true;
  };
  std::string line;
  while (true) {
    if (tty) {
      std::fputs("> ", stdout);
      std::fflush(stdout);
    }
    if (!std::getline(std::cin, line)) break;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (line[0] == '/') {
      size_t sp = line.find(' ');
      std::string cmd = line.substr(0, sp), arg = sp == std::string::npos ? "" : line.substr(sp + 1);
      while (!arg.empty() && arg.back() == ' ') arg.pop_back();
      if (cmd == "/exit" || cmd == "/quit") break;
      if (cmd == "/help") { usage(stderr); continue; }
      if (cmd == "/reset") { chat.reset(); continue; }
      if (cmd == "/undo") {
        s = chat.undo();
        if (!s) fail(s);
        continue;
      }
      if (cmd == "/save" || cmd == "/load") {
        if (arg.empty()) { fail(Status::error(cmd + " needs a file name")); continue; }
        s = cmd == "/save" ? chat.save(arg) : chat.load(arg);
        if (!s) fail(s);
        continue;
      }
      if (cmd == "/stats") {
        if (have_last) print_stats(turn, last, runner->position(), cap);
        else std::fprintf(stderr, "context %lld/%lld, no turn yet\n", (long long)runner->position(), (long long)cap);
        continue;
      }
      fail(Status::error("unknown command " + cmd + " (/reset /undo /save FILE /load FILE /stats /help /exit)"));
      continue;
    }
    if (!json::valid_utf8(line)) { fail(Status::error("the line is not valid UTF-8")); continue; }
    ChatTurnStats ts;
    bool wrote = false;
    s = chat.turn(line, [&](const std::string& t) {
      std::fwrite(t.data(), 1, t.size(), stdout);
      std::fflush(stdout);
      wrote = true;
    }, &ts);
    if (wrote || s) {
      std::fputc('\n', stdout);
      std::fflush(stdout);
    }
    if (!s) { fail(s); continue; }
    ++turn;
    last = ts;
    have_last = true;
    if (ts.gen.stop_reason == "context_full")
      std::fprintf(stderr, "pte-run: the reply stopped: the context of %lld tokens is full (/reset, /undo or --context-shift)\n", (long long)cap);
    if (stats) print_stats(turn, ts, runner->position(), cap);
  }
  return failed && !tty ? 1 : 0;
}

}  // namespace pte::cli
