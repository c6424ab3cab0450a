// pte-run verify (being written).
#include <cstdio>

#include "bin/commands.h"

namespace pte::cli {

int cmd_verify(int, char**) {
  std::fprintf(stderr, "pte-run: 'verify' is not available in this build yet\n");
  return 1;
}

}  // namespace pte::cli
