// pte-run: delegate backends this build can execute.
#pragma once
#include <string_view>

namespace pte {

// True when a delegate with this backend id can be loaded and run.
bool backend_supported(std::string_view id);

}  // namespace pte
