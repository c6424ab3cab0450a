// pte-run run (being written).
#include <cstdio>

#include "bin/commands.h"

namespace pte::cli {

int cmd_run(int, char**) {
  std::fprintf(stderr, "pte-run: 'run' is not available in this build yet\n");
  return 1;
}

}  // namespace pte::cli
