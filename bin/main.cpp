// pte-run: run ExecuTorch .pte programs. Dispatches to the subcommands.
#include <cstdio>
#include <cstring>

#include "bin/commands.h"

namespace {

void usage(std::FILE* f) {
  std::fprintf(f,
               "usage:\n"
               "  pte-run MODEL.pte \"prompt\" [options]        generate text (see pte-run generate --help)\n"
               "  pte-run T5.pte \"text\" | WHISPER.pte speech.wav [options]   encoder-decoder models\n"
               "  pte-run chat MODEL.pte [options]               interactive chat (see pte-run chat --help)\n"
               "  pte-run BERT.pte \"Paris is the [MASK] of France.\" [--top-k K] [--json]   fill-mask\n"
               "  pte-run embed MODEL.pte \"text\"... | --input-file F [--pooling P] [--normalize] [--similarity] [--json] [--out F.npy]\n"
               "  pte-run info MODEL.pte [--data F.ptd]... [--json]\n"
               "  pte-run run MODEL.pte [--method NAME] [--data F.ptd]... [--input SPEC]... [--json] [--save-outputs DIR]\n"
               "  pte-run verify FILE.bpte [--atol A] [--rtol R]\n");
}

}  // namespace

int main(int argc, char** argv) {
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
  if (!std::strcmp(cmd, "generate")) {
    if (argc > 2 && pte::cli::is_seq2seq_file(argv[2])) return pte::cli::cmd_seq2seq(argc - 1, argv + 1);
    return pte::cli::cmd_generate(argc - 1, argv + 1);
  }
  if (!std::strcmp(cmd, "chat")) return pte::cli::cmd_chat(argc - 1, argv + 1);
  if (pte::cli::is_seq2seq_file(cmd)) return pte::cli::cmd_seq2seq(argc, argv);  // T5, Bart, Whisper
  if (pte::cli::is_encoder_file(cmd)) return pte::cli::cmd_fill_mask(argc, argv);  // BERT family
  return pte::cli::cmd_generate(argc, argv);
}
