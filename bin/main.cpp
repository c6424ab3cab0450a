// pte-run: run ExecuTorch .pte programs. Dispatches to the subcommands.
#include <cstdio>
#include <cstring>

#include "bin/commands.h"
#include "pte/program.h"

namespace {

void usage(std::FILE* f) {
  std::fprintf(f,
               "usage:\n"
               "  pte-run MODEL.pte \"prompt\" [options]        generate text (see pte-run generate --help)\n"
               "  pte-run T5.pte \"text\" | WHISPER.pte speech.wav [options]   encoder-decoder models\n"
               "  pte-run chat MODEL.pte [options]               interactive chat (see pte-run chat --help)\n"
               "  pte-run BERT.pte \"Paris is the [MASK] of France.\" [--top-k K] [--json]   fill-mask\n"
               "  pte-run VIT.pte cat.jpg [IMAGE...] [--top-k K] [--json]   image classification\n"
               "  pte-run embed MODEL.pte \"text\"... | --input-file F [--pooling P] [--normalize] [--similarity] [--json] [--out F.npy]\n"
               "  pte-run serve MODEL.pte [--host H] [--port P] [--api-key K] [--parallel N]   OpenAI-compatible HTTP server\n"
               "  pte-run info MODEL.pte [--data F.ptd]... [--json]\n"
               "  pte-run run MODEL.pte [--method NAME] [--data F.ptd]... [--input SPEC]... [--json] [--save-outputs DIR]\n"
               "  pte-run verify FILE.bpte [--atol A] [--rtol R]\n"
               "every command also takes --xnnpack on|off|auto: where fp32 linear layers with constant\n"
               "weights and XNNPACK-delegate convolutions run (the XNNPACK library or pte-run's kernels;\n"
               "auto: per CPU, the default; `pte-run info` lists each one's path)\n");
}

// Takes `--xnnpack X` / `--xnnpack=X` out of argv (any command) and sets the process-wide
// policy. -1: bad value (reported); else the new argc.
int take_xnnpack_option(int argc, char** argv) {
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = nullptr;
    if (!std::strcmp(a, "--xnnpack")) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "pte-run: --xnnpack needs on, off or auto\n");
        return -1;
      }
      v = argv[++i];
    } else if (!std::strncmp(a, "--xnnpack=", 10)) {
      v = a + 10;
    } else {
      argv[out++] = argv[i];
      continue;
    }
    pte::XnnpackPolicy p;
    if (!pte::parse_xnnpack_policy(v, &p)) {
      std::fprintf(stderr, "pte-run: --xnnpack wants on, off or auto, got '%.80s'\n", v);
      return -1;
    }
    pte::set_default_xnnpack_policy(p);
  }
  argv[out] = nullptr;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  argc = take_xnnpack_option(argc, argv);
  if (argc < 0) return 2;
  if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char* cmd = argv[1];
  if (!std::strcmp(cmd, "info")) return pte::cli::cmd_info(argc - 1, argv + 1);
  if (!std::strcmp(cmd, "run")) return pte::cli::cmd_run(argc - 1, argv + 1);
  if (!std::strcmp(cmd, "verify")) return pte::cli::cmd_verify(argc - 1, argv + 1);
  if (!std::strcmp(cmd, "embed")) return pte::cli::cmd_embed(argc - 1, argv + 1);
  if (!std::strcmp(cmd, "fill-mask")) return pte::cli::cmd_fill_mask(argc - 1, argv + 1);
  if (!std::strcmp(cmd, "classify")) return pte::cli::cmd_classify(argc - 1, argv + 1);
  if (!std::strcmp(cmd, "generate")) {
    if (argc > 2 && pte::cli::is_seq2seq_file(argv[2])) return pte::cli::cmd_seq2seq(argc - 1, argv + 1);
    return pte::cli::cmd_generate(argc - 1, argv + 1);
  }
  if (!std::strcmp(cmd, "chat")) return pte::cli::cmd_chat(argc - 1, argv + 1);
  if (!std::strcmp(cmd, "serve")) return pte::cli::cmd_serve(argc - 1, argv + 1);
  if (pte::cli::is_seq2seq_file(cmd)) return pte::cli::cmd_seq2seq(argc, argv);  // T5, Bart, Whisper
  if (pte::cli::is_encoder_file(cmd)) return pte::cli::cmd_fill_mask(argc, argv);  // BERT family
  if (pte::cli::is_image_classifier_file(cmd)) return pte::cli::cmd_classify(argc, argv);  // ViT, ResNet, ...
  return pte::cli::cmd_generate(argc, argv);
}
