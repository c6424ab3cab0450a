// pte-run tools: bundled programs (see bundle.h).
#include "util/bundle.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "flatbuffers/flatbuffers.h"
#include "schema/bundled_program_generated.h"

namespace pte::util {

namespace {

namespace bp = bundled_program_flatbuffer;

std::string num(uint64_t v) { return std::to_string(v); }

Status read_value(const bp::Value* v, HostValue* out) {
  switch (v->val_type()) {
    case bp::ValueUnion::Int: out->tag = Tag::Int; out->i = v->val_as_Int()->int_val(); return Status::ok();
    case bp::ValueUnion::Bool: out->tag = Tag::Bool; out->b = v->val_as_Bool()->bool_val(); return Status::ok();
    case bp::ValueUnion::Double: out->tag = Tag::Double; out->d = v->val_as_Double()->double_val(); return Status::ok();
    case bp::ValueUnion::Tensor: {
      const bp::Tensor* t = v->val_as_Tensor();
      int st = static_cast<int>(t->scalar_type());
      if (!dtype_valid(st)) return Status::error("tensor has unknown scalar type " + std::to_string(st));
      DType dtype = static_cast<DType>(st);
      size_t dim = t->sizes() ? t->sizes()->size() : 0;
      if (dim > static_cast<size_t>(kMaxDims)) return Status::error("tensor rank " + num(dim) + " exceeds " + num(kMaxDims));
      int64_t sizes[kMaxDims];
      for (size_t k = 0; k < dim; ++k) {
        sizes[k] = t->sizes()->Get(static_cast<flatbuffers::uoffset_t>(k));
        if (sizes[k] < 0) return Status::error("tensor has negative size " + std::to_string(sizes[k]));
      }
      const uint8_t* order = nullptr;
      if (t->dim_order() && t->dim_order()->size() > 0) {
        if (t->dim_order()->size() != dim)
          return Status::error("tensor has " + num(t->dim_order()->size()) + " dim order entries for rank " + num(dim));
        order = t->dim_order()->data();
      }
      const uint8_t* data = t->data() ? t->data()->data() : nullptr;
      size_t nbytes = t->data() ? t->data()->size() : 0;
      out->tag = Tag::Tensor;
      return host_from_physical(dtype, sizes, dim, order, data, nbytes, &out->tensor);
    }
    case bp::ValueUnion::NONE: out->tag = Tag::None; return Status::ok();
  }
  return Status::error("value has unknown type " + num(static_cast<unsigned>(v->val_type())));
}

Status read_values(const flatbuffers::Vector<flatbuffers::Offset<bp::Value>>* vs, const char* what,
                   std::vector<HostValue>* out) {
  if (!vs) return Status::ok();
  for (flatbuffers::uoffset_t k = 0; k < vs->size(); ++k) {
    HostValue h;
    Status s = read_value(vs->Get(k), &h);
    if (!s) return s.context(std::string(what) + " " + num(k));
    out->push_back(std::move(h));
  }
  return Status::ok();
}

}  // namespace

Status bundle_parse(std::vector<uint8_t> bytes, const std::string& name, Bundle* out) {
  auto bad = [&](const std::string& why) { return Status::error(name + ": " + why); };
  const uint8_t* d = bytes.data();
  size_t n = bytes.size();
  if (n < 8) return bad("file too short (" + num(n) + " bytes) for a bundled program");
  if (std::memcmp(d + 4, "BP08", 4) != 0) {
    if (std::memcmp(d + 4, "ET12", 4) == 0) return bad("this is a program (.pte), not a bundled program; use `pte-run run`");
    if (std::memcmp(d + 4, "BP", 2) == 0) return bad(std::string("unsupported bundled program version '") + std::string(reinterpret_cast<const char*>(d + 4), 4) + "' (this build reads BP08)");
    return bad("not a bundled program (no BP08 identifier)");
  }
  uint32_t root;
  std::memcpy(&root, d, 4);
  if (root < 8 || root > n - 4) return bad("root table offset " + num(root) + " lies outside the file (" + num(n) + " bytes)");
  flatbuffers::Verifier v(d, n, 64, 10'000'000);
  if (!v.VerifyBuffer<bp::BundledProgram>("BP08")) return bad("flatbuffer verification failed: the bundle is corrupt or truncated");
  const bp::BundledProgram* b = bp::GetBundledProgram(d);
  if (!b->program() || b->program()->size() == 0) return bad("the bundle holds no program");
  Bundle r;
  r.name = name;
  r.version = b->version();
  r.program_offset = static_cast<size_t>(b->program()->data() - d);
  r.program_size = b->program()->size();
  if (const auto* suites = b->method_test_suites()) {
    for (flatbuffers::uoffset_t si = 0; si < suites->size(); ++si) {
      const auto* s = suites->Get(si);
      BundleSuite suite;
      if (!s->method_name()) return bad("test suite " + num(si) + " has no method name");
      suite.method = s->method_name()->str();
      if (const auto* cases = s->test_cases()) {
        for (flatbuffers::uoffset_t ci = 0; ci < cases->size(); ++ci) {
          BundleTestCase tc;
          Status st = read_values(cases->Get(ci)->inputs(), "input", &tc.inputs);
          if (st) st = read_values(cases->Get(ci)->expected_outputs(), "expected output", &tc.expected);
          if (!st) return st.context(name + ": method " + suite.method + " case " + num(ci));
          suite.cases.push_back(std::move(tc));
        }
      }
      r.suites.push_back(std::move(suite));
    }
  }
  r.storage = std::move(bytes);
  *out = std::move(r);
  return Status::ok();
}

Status bundle_read(const std::string& path, Bundle* out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Status::error(path + ": cannot open: " + std::strerror(errno));
  std::vector<uint8_t> buf;
  uint8_t chunk[65536];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof(chunk), f)) > 0) buf.insert(buf.end(), chunk, chunk + got);
  bool err = std::ferror(f);
  std::fclose(f);
  if (err) return Status::error(path + ": read error");
  return bundle_parse(std::move(buf), path, out);
}

Status bundle_run(const Bundle& bundle, const CompareOptions& compare, const Program::MethodOptions& method_options,
                  BundleReport* report, const OpenOptions& open) {
  std::unique_ptr<Program> program;
  // open_buffer copies the bytes when they are not 16-aligned; otherwise they are
  // used in place (the bundle outlives `program`).
  Status s = Program::open_buffer(bundle.program_data(), bundle.program_size, bundle.name + " (embedded program)", open, &program);
  if (!s) return s;
  for (const BundleSuite& suite : bundle.suites) {
    std::unique_ptr<Method> method;
    Status load = program->load_method(suite.method, method_options, &method);
    for (size_t ci = 0; ci < suite.cases.size(); ++ci) {
      const BundleTestCase& tc = suite.cases[ci];
      BundleCaseResult r;
      r.method = suite.method;
      r.index = ci;
      auto fail = [&](const std::string& why) {
        r.pass = false;
        r.message = why;
      };
      std::vector<BoundInput> bound;
      Status st = load;
      if (st) st = set_inputs(*method, tc.inputs, &bound);
      if (st) st = method->execute();
      if (!st) {
        fail(st.message());
      } else if (method->num_outputs() != tc.expected.size()) {
        fail("the method has " + num(method->num_outputs()) + " outputs, the case expects " + num(tc.expected.size()));
      } else {
        r.pass = true;
        for (size_t k = 0; k < tc.expected.size(); ++k) {
          HostValue got;
          Status hs = host_from_evalue(method->output(k), &got);
          if (!hs) {
            fail("output " + num(k) + ": " + hs.message());
            break;
          }
          CompareResult c = compare_values(got, tc.expected[k], compare);
          if (c.max_abs_err > r.max_abs_err || c.max_abs_err != c.max_abs_err) r.max_abs_err = c.max_abs_err;
          if (!c.ok && r.pass) fail("output " + num(k) + ": " + c.message);
        }
      }
      (r.pass ? report->passed : report->failed) += 1;
      report->cases.push_back(std::move(r));
    }
  }
  return Status::ok();
}

}  // namespace pte::util
