// pte-run info --ops-list A.pte [B.pte ...]: the operators and delegate nodes the programs
// use, one per line, sorted: the list a selective build keeps (meson setup -Dselect_ops=FILE).
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "bin/commands.h"
#include "pte/program.h"

namespace pte::cli {

int cmd_ops_list(const std::vector<std::string>& models, const OpenOptions& options) {
  std::set<std::string> ops, nodes;
  for (const std::string& model : models) {
    std::unique_ptr<Program> program;
    Status s = Program::open_file(model, options, &program);
    if (!s) {
      std::fprintf(stderr, "pte-run info: %s\n", s.message().c_str());
      return 1;
    }
    for (const MethodInfo& m : program->info().methods) {
      for (const OperatorInfo& op : m.operators) ops.insert(op.name);
      for (const DelegateInfo& d : m.delegates) {
        ops.insert(d.backend);
        // a delegate whose blob could not be read lists no nodes: a selection made from
        // it would leave the delegate's executors out, so say so rather than write it
        if (d.nodes.empty() && !d.detail.empty()) {
          std::fprintf(stderr, "pte-run info: %s: method %s: delegate %s lists no nodes (%s)\n", model.c_str(),
                       m.name.c_str(), d.backend.c_str(), d.detail.c_str());
          return 1;
        }
        for (const DelegateNodeInfo& n : d.nodes) nodes.insert(d.backend + "/" + n.name);
      }
    }
  }
  std::printf("# operators and delegate nodes of");
  for (const std::string& m : models) std::printf(" %s", m.c_str());
  std::printf("\n# (pte-run info --ops-list; a selective build: meson setup -Dselect_ops=THIS_FILE)\n");
  for (const std::string& o : ops) std::printf("%s\n", o.c_str());
  for (const std::string& n : nodes) std::printf("%s\n", n.c_str());
  return 0;
}

}  // namespace pte::cli
