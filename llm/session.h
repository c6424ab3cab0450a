// Saved sessions: a conversation's tokens, its KV cache contents and the identity of
// the program that made them, in one file, so a later run continues without
// re-prefilling. Written atomically (a temporary file, then rename); a file from
// another program, or a truncated or corrupt one, is refused with one line.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pte/status.h"

namespace pte {

class TextRunner;

struct SessionData {
  std::string program;          // program identity (program_identity())
  std::vector<int32_t> tokens;  // ids the cache holds
  std::vector<uint8_t> cache;   // KvCache::save() of those positions
  std::string extra;            // the caller's own state (the chat keeps its messages here)
};

// "<bytes>:<FNV-1a 64 of the file, hex>"; reads the whole file.
Status file_identity(const std::string& path, std::string* out);

Status write_session(const std::string& path, const SessionData& s);
Status read_session(const std::string& path, SessionData* s);

// The runner's conversation into a file / back from one (the program must be the same).
Status save_session(TextRunner& runner, const std::string& path, const std::string& extra = "");
Status load_session(TextRunner& runner, const std::string& path, std::string* extra = nullptr);

}  // namespace pte
