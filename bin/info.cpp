// pte-run info (being written).
#include <cstdio>

#include "bin/commands.h"

namespace pte::cli {

int cmd_info(int, char**) {
  std::fprintf(stderr, "pte-run: 'info' is not available in this build yet\n");
  return 1;
}

}  // namespace pte::cli
