// pte-run: the table of delegate backends compiled into this build.
#include "interpreter/backends.h"

#include <new>
#include <string>

#include "interpreter/xnnpack/backend.h"
#include "pte_config.h"

namespace pte {

namespace {

struct BackendDef {
  const char* id;
  BackendCreateFn create;
};

// One line per backend. The XNNPACK delegate runs on our own kernels, so it is
// present with and without the system XNNPACK (interpreter/xnnpack/).
const BackendDef kBackends[] = {
    {"XnnpackBackend", &xnn::create_xnnpack_backend},
    {nullptr, nullptr},
};

const BackendDef* find_backend(std::string_view id) {
  for (const BackendDef* b = kBackends; b->id; ++b)
    if (id == b->id) return b;
  return nullptr;
}

}  // namespace

Status BackendWorkspace::reserve(size_t bytes) {
  if (bytes <= size_) return Status::ok();
  std::unique_ptr<uint8_t[]> s(new (std::nothrow) uint8_t[bytes + 64]);
  if (!s) return Status::error(ErrorCode::AllocationFailed, "cannot allocate " + std::to_string(bytes) + " bytes of delegate workspace");
  storage_ = std::move(s);
  base_ = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(storage_.get()) + 63) & ~uintptr_t(63));
  size_ = bytes;
  return Status::ok();
}

bool backend_supported(std::string_view id) { return find_backend(id) != nullptr; }

Status create_backend(const BackendInit& init, std::unique_ptr<BackendInstance>* out) {
  const BackendDef* b = find_backend(init.id);
  if (!b) return Status::error(ErrorCode::UnsupportedDelegate, "unsupported delegate " + std::string(init.id));
  Status s = b->create(init, out);
  return s.with_default_code(ErrorCode::DelegateBlobMalformed);
}

Status describe_backend_blob(std::string_view id, Bytes blob, const LoadedProgram* program,
                             std::vector<DelegateNodeInfo>* nodes) {
  if (id == "XnnpackBackend") return xnn::describe_xnnpack_blob(blob, program, nodes);
  return Status::ok();
}

}  // namespace pte
