// pte-run command line (being written).
#include <cstdio>
#include <memory>
#include "pte/program.h"

int main(int argc, char** argv) {
  if (argc < 3) { std::fprintf(stderr, "usage: pte-run info MODEL.pte\n"); return 2; }
  std::unique_ptr<pte::Program> p;
  pte::Status s = pte::Program::open_file(argv[2], {}, &p);
  if (!s) { std::fprintf(stderr, "pte-run: %s\n", s.message().c_str()); return 1; }
  for (const auto& m : p->info().methods) std::printf("%s: %zu inputs %zu outputs %zu ops\n", m.name.c_str(), m.inputs.size(), m.outputs.size(), m.operators.size());
  return 0;
}
