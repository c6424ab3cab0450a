// pte-run command line: one function per subcommand, each in its own file.
#pragma once

namespace pte::cli {

// Each returns the process exit code: 0 success, 1 failure (one clear line on
// stderr), 2 usage error.
int cmd_info(int argc, char** argv);      // pte-run info MODEL.pte [--data F.ptd]... [--json]
int cmd_run(int argc, char** argv);       // pte-run run MODEL.pte [--method M] [--input SPEC]... [--json] [--save-outputs DIR]
int cmd_verify(int argc, char** argv);    // pte-run verify FILE.bpte [--atol A --rtol R]
int cmd_generate(int argc, char** argv);  // pte-run MODEL.pte "prompt" [options]
int cmd_chat(int argc, char** argv);      // pte-run chat MODEL.pte [options] (pte-run MODEL.pte -i)

}  // namespace pte::cli
