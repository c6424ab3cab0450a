// pte-run XNNPACK delegate: entry points used by the backend table (interpreter/backends.cpp)
// and by the info listing (interpreter/describe.cpp).
#pragma once
#include <memory>
#include <vector>

#include "interpreter/backends.h"
#include "pte/program.h"

namespace pte::xnn {

// Parses, validates and plans the delegate (see exec.h); one clear error otherwise.
Status create_xnnpack_backend(const BackendInit& init, std::unique_ptr<BackendInstance>* out);

// Lists the node types of a blob with their support status (no planning).
Status describe_xnnpack_blob(Bytes blob, const LoadedProgram* program, std::vector<DelegateNodeInfo>* nodes);

}  // namespace pte::xnn
