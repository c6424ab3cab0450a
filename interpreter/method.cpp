// pte-run: method loading and execution (being written; see issue 3).
#include "interpreter/loader.h"

namespace pte {

Status LoadedProgram::load_method(const std::string& name, const MethodOptions&, std::unique_ptr<Method>*) {
  if (find_plan(name) < 0) return Status::error(info_.path + ": no method named '" + name + "'");
  return Status::error(info_.path + ": method " + name + ": execution is not implemented in this build yet");
}

}  // namespace pte
