// pte-run command line: one function per subcommand, each in its own file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pte/program.h"

namespace pte::cli {

// Each returns the process exit code: 0 success, 1 failure (one clear line on
// stderr), 2 usage error.
int cmd_info(int argc, char** argv);      // pte-run info MODEL.pte [--data F.ptd]... [--json]
int cmd_run(int argc, char** argv);       // pte-run run MODEL.pte [--method M] [--input SPEC]... [--json] [--save-outputs DIR]
int cmd_verify(int argc, char** argv);
// ops_list.cpp: pte-run info --ops-list A.pte [B.pte...] (the list -Dselect_ops= takes)
int cmd_ops_list(const std::vector<std::string>& models, const OpenOptions& options);    // pte-run verify FILE.bpte [--atol A --rtol R]
int cmd_generate(int argc, char** argv);  // pte-run MODEL.pte "prompt" [options]
int cmd_seq2seq(int argc, char** argv);   // pte-run T5.pte "text" | WHISPER.pte speech.wav [options]
// seq2seq.cpp: whether MODEL.pte is an encoder-decoder program; the task a program serves ("" if none).
bool is_seq2seq_file(const std::string& path);
std::string task_of(const ProgramInfo& info);
int cmd_chat(int argc, char** argv);
int cmd_serve(int argc, char** argv);     // pte-run serve MODEL.pte [options] (serve.cpp; needs cpp-httplib)      // pte-run chat MODEL.pte [options] (pte-run MODEL.pte -i)
// encode.cpp: fill-mask (pte-run BERT.pte "text with [MASK]") and sentence embeddings (pte-run embed).
int cmd_fill_mask(int argc, char** argv);
int cmd_embed(int argc, char** argv);
bool is_encoder_file(const std::string& path);
std::string encoder_task_text(const ProgramInfo& info);  // "" when not an encoder program
// classify.cpp: image classification (pte-run VIT.pte cat.jpg).
int cmd_classify(int argc, char** argv);
bool is_image_classifier_file(const std::string& path);
std::string image_task_text(const ProgramInfo& info);  // "" when not an image classifier
// media_image.cpp: an image file as the [1,3,H,W] pixel values a vision encoder takes
// (`want`: its input sizes), preprocessed as the model's preprocessor_config.json says.
struct ImageInput {
  std::string model_path, image_path;
  std::string preprocessor_path;  // empty: preprocessor_config.json beside the model
  uint64_t max_pixels = uint64_t{1} << 26;
};
Status image_pixels(const ImageInput& in, const std::vector<int64_t>& want, std::vector<float>* chw, std::vector<int64_t>* sizes);
// The same from an image file's bytes (in.image_path only names it in messages).
Status image_pixels_from_bytes(const ImageInput& in, const std::string& bytes, const std::vector<int64_t>& want,
                               std::vector<float>* chw, std::vector<int64_t>* sizes);
// The task pte-run info shows: the encoder's or image classifier's, else the seq2seq / generation one ("" if none).
inline std::string program_task(const ProgramInfo& info) {
  std::string t = encoder_task_text(info);
  if (t.empty()) t = image_task_text(info);
  return t.empty() ? task_of(info) : t;
}

}  // namespace pte::cli
