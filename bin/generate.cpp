// pte-run generate (being written).
#include <cstdio>

#include "bin/commands.h"

namespace pte::cli {

int cmd_generate(int, char**) {
  std::fprintf(stderr, "pte-run: 'generate' is not available in this build yet\n");
  return 1;
}

}  // namespace pte::cli
