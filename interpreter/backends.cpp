// pte-run: the table of delegate backends compiled into this build.
#include "interpreter/backends.h"

#include <string>

#include "pte_config.h"

namespace pte {

namespace {

struct BackendDef {
  const char* id;
  BackendCreateFn create;
};

// One line per backend. XNNPACK lands with its own issue:
//   #if PTE_HAVE_XNNPACK
//   {"XnnpackBackend", &create_xnnpack_backend},
//   #endif
const BackendDef kBackends[] = {
    {nullptr, nullptr},
};

const BackendDef* find_backend(std::string_view id) {
  for (const BackendDef* b = kBackends; b->id; ++b)
    if (id == b->id) return b;
  return nullptr;
}

}  // namespace

bool backend_supported(std::string_view id) { return find_backend(id) != nullptr; }

Status create_backend(const BackendInit& init, std::unique_ptr<BackendInstance>* out) {
  const BackendDef* b = find_backend(init.id);
  if (!b) return Status::error("unsupported delegate " + std::string(init.id));
  return b->create(init, out);
}

}  // namespace pte
