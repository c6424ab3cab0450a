// pte-run MODEL.pte "text" | speech.wav [options]: encoder-decoder generation (T5, Bart,
// Marian: text to text; Whisper: speech to text), entered from main when the program has
// an encoder and a text_decoder method. Text streams to stdout.
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
#include "cache/static_attention.h"
#include "llm/multimodal.h"
#include "llm/seq2seq.h"

namespace pte::cli {

namespace {

void usage(std::FILE* f) {
  std::fprintf(f,
               "usage: pte-run T5.pte \"text\" [options]        text to text (T5, Bart, Marian exports)\n"
               "       pte-run WHISPER.pte speech.wav [options]  speech to text, in 30 s windows\n"
               "  --tokenizer PATH        tokenizer.json or a folder holding it (default: next to the model)\n"
               "  -n, --max-new-tokens N  stop after N new tokens (per 30 s window; default 256; -1: EOS or a full cache)\n"
               "  --temperature T, --top-k K, --top-p P, --min-p P, --seed S   sampling (default greedy)\n"
               "  --repeat-penalty R, --repeat-last-n N   penalise tokens of the last N generated\n"
               "  --ignore-eos            keep generating past end-of-sequence tokens\n"
               "  --language XX           Whisper: the spoken language (default: the generation config's, else detected)\n"
               "  --task transcribe|translate   Whisper: the task (default transcribe)\n"
               "  --timestamps            Whisper: let the model emit <|t.tt|> timestamps\n"
               "  --no-previous-text      Whisper: do not prompt each window with the previous one's text\n"
               "  --preprocessor FILE     Whisper: compute the log-mel features with this program (ExecuTorch's\n"
               "                          preprocessor.pte) instead of pte-run's own front end\n"
               "  --prompt-file FILE      read the text input from FILE\n"
               "  --ids                   print the input, decoder prompt and generated ids to stderr\n"
               "  --stats                 print load, encoder and decoder times, tokens/s, real-time factor and peak RSS\n"
               "  --data FILE.ptd         external weights (repeatable)\n"
               "  --threads N             worker threads (default: physical cores)\n");
}

std::string ids_text(const std::vector<int32_t>& v) {
  std::string s;
  for (int32_t x : v) s += " " + std::to_string(x);
  return s;
}

}  // namespace

bool is_seq2seq_file(const std::string& path) {
  std::unique_ptr<Program> p;
  if (!Program::open_file(path, {}, &p)) return false;
  if (Seq2SeqRunner::is_seq2seq(p->info())) return true;
  for (const auto& m : p->info().methods)  // an encoder without a decoder: the seq2seq runner says so
    if (m.name == "encoder" && !m.is_constant) return true;
  return false;
}

std::string task_of(const ProgramInfo& info) {
  if (Seq2SeqRunner::is_seq2seq(info)) {
    for (const auto& m : info.methods)
      if (m.name == "encoder" && !m.inputs.empty() && m.inputs[0].tag == Tag::Tensor) {
        bool speech = m.inputs[0].tensor.dtype == DType::Float;
        return speech ? "speech to text (encoder-decoder: audio features -> encoder, text_decoder; pte-run MODEL.pte speech.wav)"
                      : "text to text (encoder-decoder: encoder, text_decoder; pte-run MODEL.pte \"text\")";
      }
  }
  for (const auto& m : info.methods)
    if (m.name == "encoder" && !m.is_constant) return "encoder only (no text_decoder method: nothing to generate with)";
  if (EmbeddingFront::present(info)) {
    for (const auto& m : info.methods) {
      if (m.name == "vision_encoder" && !m.is_constant)
        return "image+text generation (token_embedding, vision_encoder, text_decoder; pte-run MODEL.pte \"prompt\" --image FILE)";
      if (m.name == "audio_encoder" && !m.is_constant)
        return "audio+text generation (token_embedding, audio_encoder, text_decoder; pte-run runs its text part only: pte-run MODEL.pte \"prompt\")";
    }
    return "text generation from embeddings (token_embedding, text_decoder; pte-run MODEL.pte \"prompt\")";
  }
  bool max_seq = false, fwd = false;
  for (const auto& m : info.methods) {
    max_seq |= m.name == "get_max_seq_len" && m.is_constant;
    fwd |= m.name == "forward" && !m.is_constant;
  }
  if (max_seq && fwd) return "text generation (decoder with KV cache; pte-run MODEL.pte \"prompt\")";
  if (fwd && StaticAttention::present(info, "forward"))
    return "text generation (ExecuTorch's static-attention export: fixed input length, masks, RoPE tables and KV cache as inputs; "
           "pte-run MODEL.pte \"prompt\")";
  return "";
}

int cmd_seq2seq(int argc, char** argv) {
  Seq2SeqOptions ro;
  Seq2SeqConfig gc;
  std::string input, prompt_file;
  bool have_input = false, stats = false, print_ids = false;
  ArgReader args(argc, argv);
  while (args.next()) {
    const std::string& a = args.arg();
    if (a == "-h" || a == "--help") { usage(stdout); return 0; }
    else if (a == "--tokenizer") ro.tokenizer_path = args.value();
    else if (a == "-n" || a == "--max-new-tokens") gc.max_new_tokens = static_cast<int>(args.number());
    else if (take_sampling_option(args, &gc.sampling)) {}
    else if (a == "--ignore-eos") gc.ignore_eos = true;
    else if (a == "--language") gc.language = args.value();
    else if (a == "--task") gc.task = args.value();
    else if (a == "--timestamps") gc.timestamps = true;
    else if (a == "--no-previous-text") gc.previous_text = false;
    else if (a == "--stats") stats = true;
    else if (a == "--ids") print_ids = true;
    else if (a == "--preprocessor") ro.preprocessor_path = args.value();
    else if (a == "--data") ro.data_files.push_back(args.value());
    else if (a == "--threads") ro.num_threads = static_cast<int>(args.number());
    else if (a == "--prompt-file" || a == "-f") prompt_file = args.value();
    else if (a.size() > 1 && a[0] == '-' && a != "-") { std::fprintf(stderr, "pte-run: unknown option %s\n", a.c_str()); usage(stderr); return 2; }
    else if (ro.model_path.empty()) ro.model_path = a;
    else if (!have_input) { input = a; have_input = true; }
    else { std::fprintf(stderr, "pte-run: unexpected argument '%s'\n", a.c_str()); return 2; }
  }
  if (ro.model_path.empty()) { usage(stderr); return 2; }
  if (!check_sampling(gc.sampling)) return 2;
  if (!gc.task.empty() && gc.task != "transcribe" && gc.task != "translate") {
    std::fprintf(stderr, "pte-run: --task must be transcribe or translate\n");
    return 2;
  }
  std::unique_ptr<Seq2SeqRunner> runner;
  Status s = Seq2SeqRunner::create(ro, &runner);
  if (!s) { std::fprintf(stderr, "pte-run: %s\n", s.message().c_str()); return 1; }
  const bool speech = runner->metadata().task == Seq2SeqTask::SpeechToText;
  if (!prompt_file.empty()) {
    if (have_input) { std::fprintf(stderr, "pte-run: give either an input or --prompt-file, not both\n"); return 2; }
    if (speech) { std::fprintf(stderr, "pte-run: %s takes a WAV file, not --prompt-file\n", ro.model_path.c_str()); return 2; }
    if (!read_prompt_file(prompt_file, &input)) return 1;
    have_input = true;
  }
  if (!have_input) {
    std::fprintf(stderr, "pte-run: %s: give %s\n", ro.model_path.c_str(), speech ? "a WAV file to transcribe" : "the input text");
    return 2;
  }
  Seq2SeqStats st;
  bool wrote = false;
  auto emit = [&](const std::string& t) {
    std::fwrite(t.data(), 1, t.size(), stdout);
    std::fflush(stdout);
    wrote = true;
  };
  s = speech ? runner->transcribe(input, gc, emit, &st) : runner->generate(input, gc, emit, &st);
  if (wrote || s) std::fputc('\n', stdout);
  if (!s) { std::fprintf(stderr, "pte-run: %s\n", s.message().c_str()); return 1; }
  if (print_ids) {
    if (!speech) std::fprintf(stderr, "input ids:%s\n", ids_text(st.input_ids).c_str());
    std::fprintf(stderr, "decoder prompt ids:%s\ngenerated ids:%s\n", ids_text(st.decoder_prompt).c_str(), ids_text(st.tokens).c_str());
  }
  if (st.stop_reason == "cache_full")
    std::fprintf(stderr, "pte-run: stopped: the decoder's cache of %lld positions is full\n",
                 (long long)runner->metadata().max_cache_len);
  if (stats) {
    double dec = st.decode_ms > 0 ? st.generated_tokens / (st.decode_ms / 1000.0) : 0;
    std::string extra;
    if (speech) {
      double total = st.features_ms + st.encode_ms + st.decode_ms;
      char b[160];
      std::snprintf(b, sizeof b, " | audio %.2f s in %d window%s | features %.1f ms | real-time factor %.3f", st.audio_seconds,
                    st.windows, st.windows == 1 ? "" : "s", st.features_ms, st.audio_seconds > 0 ? total / 1000.0 / st.audio_seconds : 0);
      extra = b;
    } else {
      extra = " | input " + std::to_string(st.input_tokens) + " tokens";
    }
    std::fprintf(stderr,
                 "load %.1f ms%s | encoder %.1f ms | first token %.1f ms | decode %.2f tok/s (%d tokens) | peak RSS %.1f MB | stop: %s\n",
                 st.load_ms, extra.c_str(), st.encode_ms, st.ttft_ms, dec, st.generated_tokens, st.peak_rss_kb / 1024.0,
                 st.stop_reason.c_str());
  }
  return 0;
}

}  // namespace pte::cli
