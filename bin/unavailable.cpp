// pte-run: the commands of front ends this build left out (meson_options.txt), each a
// one-line refusal instead of a missing symbol.
#include <cstdio>
#include <string>

#include "bin/commands.h"
#include "pte_config.h"

namespace pte::cli {

#if !PTE_WITH_IMAGE
int cmd_classify(int, char**) {
  std::fprintf(stderr, "pte-run: this build has no image front end (built with -Dimage=disabled, or without libpng/libjpeg)\n");
  return 1;
}
bool is_image_classifier_file(const std::string&) { return false; }
Status image_pixels(const ImageInput&, const std::vector<int64_t>&, std::vector<float>*, std::vector<int64_t>*) {
  return Status::error("this build has no image front end (built with -Dimage=disabled, or without libpng/libjpeg)");
}
Status image_pixels_from_bytes(const ImageInput&, const std::string&, const std::vector<int64_t>&, std::vector<float>*,
                               std::vector<int64_t>*) {
  return Status::error("this build has no image front end (built with -Dimage=disabled, or without libpng/libjpeg)");
}
std::string image_task_text(const ProgramInfo&) { return ""; }
#endif

}  // namespace pte::cli
