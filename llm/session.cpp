#include "llm/session.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "llm/runner.h"

namespace pte {

namespace {

constexpr char kMagic[8] = {'P', 'T', 'E', 'S', 'E', 'S', 'S', '1'};
constexpr uint64_t kMaxField = uint64_t{1} << 36;  // 64 GiB: no real session is larger

uint64_t fnv1a(const uint8_t* p, size_t n, uint64_t h = 1469598103934665603ull) {
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

void put_u64(std::vector<uint8_t>* b, uint64_t v) {
  for (int k = 0; k < 8; ++k) b->push_back(static_cast<uint8_t>(v >> (8 * k)));
}

void put_bytes(std::vector<uint8_t>* b, const void* p, size_t n) {
  put_u64(b, n);
  const uint8_t* q = static_cast<const uint8_t*>(p);
  b->insert(b->end(), q, q + n);
}

struct Reader {
  const std::vector<uint8_t>& b;
  size_t at = 0;
  bool u64(uint64_t* v) {
    if (b.size() - at < 8) return false;
    *v = 0;
    for (int k = 0; k < 8; ++k) *v |= static_cast<uint64_t>(b[at + k]) << (8 * k);
    at += 8;
    return true;
  }
  bool bytes(size_t elem, std::vector<uint8_t>* out, uint64_t* count) {
    if (!u64(count) || *count > kMaxField / elem || b.size() - at < *count * elem) return false;
    out->assign(b.begin() + static_cast<long>(at), b.begin() + static_cast<long>(at + *count * elem));
    at += static_cast<size_t>(*count * elem);
    return true;
  }
};

Status read_all(const std::string& path, std::vector<uint8_t>* out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::error(path + ": " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::error(path + ": not a regular file");
  }
  out->clear();
  uint8_t buf[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      return Status::error(path + ": read error: " + std::strerror(e));
    }
    if (n == 0) break;
    out->insert(out->end(), buf, buf + n);
  }
  ::close(fd);
  return Status::ok();
}

}  // namespace

Status file_identity(const std::string& path, std::string* out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::error(path + ": " + std::strerror(errno));
  uint64_t h = 1469598103934665603ull, size = 0;
  static thread_local uint8_t buf[1 << 20];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      return Status::error(path + ": read error: " + std::strerror(e));
    }
    if (n == 0) break;
    h = fnv1a(buf, static_cast<size_t>(n), h);
    size += static_cast<uint64_t>(n);
  }
  ::close(fd);
  char hex[40];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  *out = std::to_string(size) + ":" + hex;
  return Status::ok();
}

Status write_session(const std::string& path, const SessionData& s) {
  std::vector<uint8_t> b(kMagic, kMagic + 8);
  put_bytes(&b, s.program.data(), s.program.size());
  put_u64(&b, s.tokens.size());
  for (int32_t t : s.tokens)
    for (int k = 0; k < 4; ++k) b.push_back(static_cast<uint8_t>(static_cast<uint32_t>(t) >> (8 * k)));
  put_bytes(&b, s.cache.data(), s.cache.size());
  put_bytes(&b, s.extra.data(), s.extra.size());
  put_u64(&b, fnv1a(b.data(), b.size()));

  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::error(path + ": cannot write the session: " + std::strerror(errno));
  size_t at = 0;
  while (at < b.size()) {
    ssize_t n = ::write(fd, b.data() + at, b.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return Status::error(path + ": cannot write the session: " + std::strerror(e));
    }
    at += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return Status::error(path + ": cannot write the session: " + std::strerror(e));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return Status::error(path + ": cannot write the session: " + std::strerror(e));
  }
  return Status::ok();
}

Status read_session(const std::string& path, SessionData* s) {
  std::vector<uint8_t> b;
  PTE_TRY(read_all(path, &b));
  if (b.size() < 8 || std::memcmp(b.data(), kMagic, 8) != 0) return Status::error(path + ": not a pte-run session file");
  if (b.size() < 16) return Status::error(path + ": truncated session file");
  uint64_t sum = 0;
  for (int k = 0; k < 8; ++k) sum |= static_cast<uint64_t>(b[b.size() - 8 + k]) << (8 * k);
  if (fnv1a(b.data(), b.size() - 8) != sum) return Status::error(path + ": truncated or corrupt session file (checksum mismatch)");
  Reader r{b, 8};
  std::vector<uint8_t> program, tokens, extra;
  uint64_t n = 0, ntok = 0;
  bool ok = r.bytes(1, &program, &n) && r.bytes(4, &tokens, &ntok) && r.bytes(1, &s->cache, &n) && r.bytes(1, &extra, &n) &&
            r.at == b.size() - 8;
  if (!ok) return Status::error(path + ": corrupt session file (bad field lengths)");
  s->program.assign(program.begin(), program.end());
  s->extra.assign(extra.begin(), extra.end());
  s->tokens.resize(static_cast<size_t>(ntok));
  for (size_t i = 0; i < s->tokens.size(); ++i) {
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) v |= static_cast<uint32_t>(tokens[4 * i + k]) << (8 * k);
    s->tokens[i] = static_cast<int32_t>(v);
  }
  return Status::ok();
}

Status save_session(TextRunner& runner, const std::string& path, const std::string& extra) {
  SessionData s;
  if (!runner.cache().unsupported().empty()) return Status::error(path + ": cannot save the session: " + runner.cache().unsupported());
  PTE_TRY(runner.identity(&s.program));
  s.tokens = runner.tokens();
  s.cache = runner.cache().save();
  s.extra = extra;
  return write_session(path, s);
}

Status load_session(TextRunner& runner, const std::string& path, std::string* extra) {
  SessionData s;
  PTE_TRY(read_session(path, &s));
  std::string id;
  PTE_TRY(runner.identity(&id));
  if (s.program != id) return Status::error(path + ": the session was saved from another program (" + s.program + ", this one is " + id + ")");
  for (int32_t t : s.tokens)
    if (t < 0 || t >= runner.metadata().vocab_size) return Status::error(path + ": corrupt session file (token id " + std::to_string(t) + " out of range)");
  PTE_TRY(runner.restore(s.tokens, s.cache.data(), s.cache.size()).context(path));
  if (extra) *extra = std::move(s.extra);
  return Status::ok();
}

}  // namespace pte
