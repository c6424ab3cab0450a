// Image+text programs (llm/multimodal.h): optimum's image-text-to-text export of a tiny
// Gemma3 (fixtures/make_multimodal_gemma3.py). The prompt through the chat template with the
// image expanded as Gemma3's processor does, the pixel values as its image processor makes
// them, the vision encoder's rows, and greedy tokens equal to the official runtime's on the
// same files and to transformers' with the causal mask the export computes (transformers'
// own generate lets one image's tokens see each other; for photo.jpg its tokens differ from
// the second on, which the exported text_decoder cannot reproduce: the references record
// both); text-only prompts through the same program; bad input refused with one line.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_spawn.h"
#include "image/decode.h"
#include "image/preprocess.h"
#include "llm/multimodal.h"
#include "llm/runner.h"
#include "runner_helpers.h"
#include "util/npy.h"

namespace fs = std::filesystem;

TEST_CASE("multimodal placeholders: Gemma3's image sequence and the bare media token") {
  std::string out;
  // Gemma3: the template writes the begin-of-image token; it becomes "\n\n" boi image*N eoi "\n\n"
  REQUIRE(pte::EmbeddingFront::expand_placeholders("<u>A<boi>B", {3}, "<img>", "<boi>", "<eoi>", &out));
  CHECK(out == "<u>A\n\n<boi><img><img><img><eoi>\n\nB");
  REQUIRE(pte::EmbeddingFront::expand_placeholders("<boi>x<boi>", {1, 2}, "<img>", "<boi>", "<eoi>", &out));
  CHECK(out == "\n\n<boi><img><eoi>\n\nx\n\n<boi><img><img><eoi>\n\n");
  // no begin-of-image token: the media token the template wrote is repeated
  REQUIRE(pte::EmbeddingFront::expand_placeholders("a<img>b", {4}, "<img>", "", "", &out));
  CHECK(out == "a<img><img><img><img>b");
  // counts that do not match are refused
  pte::Status s = pte::EmbeddingFront::expand_placeholders("a<img>b", {4, 4}, "<img>", "", "", &out);
  CHECK_FALSE(s);
  CHECK(s.message().find("places for media") != std::string::npos);
  CHECK_FALSE(pte::EmbeddingFront::expand_placeholders("no marks", {2}, "<img>", "<boi>", "<eoi>", &out));
}

namespace {

const std::string kDir = "fixtures/data/multimodal_gemma3/";
const char* kPrograms[] = {"model.pte", "model_xnnpack.pte"};
const char* kImages[] = {"photo.png", "photo.jpg"};

pte::json::Value references() { return pte_test::read_fixture_json(kDir + "references.json", "fixtures/make_multimodal_gemma3.py"); }

pte::util::HostTensor npy(const std::string& p) {
  pte::util::HostTensor t;
  pte::Status s = pte::util::npy_read(p, &t);
  REQUIRE_MESSAGE(s, s.message());
  REQUIRE(t.dtype == pte::DType::Float);
  return t;
}

const float* floats(const pte::util::HostTensor& t) { return reinterpret_cast<const float*>(t.bytes.data()); }

// The image as the CLI prepares it: decoded, preprocessed by preprocessor_config.json.
std::vector<float> pixels(const std::string& image) {
  pte::image::PreprocessConfig cfg;
  pte::Status s = pte::image::load_preprocess_config(kDir + "preprocessor_config.json", &cfg);
  REQUIRE_MESSAGE(s, s.message());
  pte::image::RgbImage img;
  s = pte::image::decode_image_file(kDir + image, {}, &img);
  REQUIRE_MESSAGE(s, s.message());
  std::vector<float> chw;
  int h = 0, w = 0;
  s = pte::image::preprocess(img, cfg, &chw, &h, &w);
  REQUIRE_MESSAGE(s, s.message());
  CHECK(h == 56);
  CHECK(w == 56);
  return chw;
}

float max_abs_diff(const float* a, const float* b, size_t n) {
  float m = 0;
  for (size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

}  // namespace

TEST_CASE("multimodal gemma3: prompt ids, pixel values, encoder rows and greedy tokens equal the references") {
  pte::json::Value ref = references();
  const int n_new = static_cast<int>(ref.find("max_new_tokens")->as_int());
  const std::string prompt = ref.find("prompt")->as_string();
  for (const char* program_c : kPrograms) {
    const std::string program = program_c;
    CAPTURE(program);
    auto r = pte_test::open_runner(kDir + program);
    const pte::MultimodalInfo* mm = r->multimodal();
    REQUIRE(mm);
    CHECK(mm->modality == "vision");
    CHECK(mm->encoder_method == "vision_encoder");
    CHECK(mm->media_token_id == ref.find("token_ids")->find("image")->as_int());
    CHECK(mm->encoder_input_sizes == std::vector<int64_t>{1, 3, 56, 56});
    CHECK(r->metadata().embeddings_input);
    const bool xnn = program == "model_xnnpack.pte";
    for (const char* image_c : kImages) {
      const std::string image = image_c;
      CAPTURE(image);
      const pte::json::Value* im = ref.find("images")->find(image);
      REQUIRE(im);
      // pixel values as Gemma3ImageProcessor makes them
      std::vector<float> px = pixels(image);
      pte::util::HostTensor want_px = npy(kDir + im->find("pixel_values")->as_string());
      REQUIRE(want_px.bytes.size() == px.size() * sizeof(float));
      CHECK(max_abs_diff(px.data(), floats(want_px), px.size()) <= 1e-6f);
      // the vision encoder's rows against transformers' get_image_features
      pte::MediaEmbedding m;
      pte::Status s = r->encode_media(px.data(), {1, 3, 56, 56}, &m);
      REQUIRE_MESSAGE(s, s.message());
      CHECK(m.tokens == 4);
      pte::util::HostTensor want_f = npy(kDir + im->find("image_features")->as_string());
      REQUIRE(want_f.bytes.size() == m.rows.size() * sizeof(float));
      // (the official runtime's own XNNPACK encoder is 1e-3 from eager: its references say so)
      const float enc_diff = max_abs_diff(m.rows.data(), floats(want_f), m.rows.size());
      CHECK(enc_diff <= (xnn ? 3e-3f : 1e-4f));
      // the prompt: chat template, image expanded as the processor does, tokenized
      pte::GenerationConfig gc = pte_test::greedy(n_new);
      gc.chat = true;
      gc.media.push_back(m);
      std::string rendered;
      REQUIRE(r->render_prompt(prompt, true, "", gc.media, &rendered));
      CHECK(rendered == im->find("rendered")->as_string());
      std::vector<int32_t> ids;
      s = r->encode_prompt(prompt, gc, &ids);
      REQUIRE_MESSAGE(s, s.message());
      CHECK(ids == pte_test::json_ints(im->find("input_ids")));
      // greedy tokens: the official runtime's on the same file, and transformers' with the
      // causal mask the export computes (and its own bidirectional-image mask where they agree)
      r->reset();
      pte::GenerationStats st;
      s = r->generate_ids(ids, gc, [](const std::string&) {}, &st);
      REQUIRE_MESSAGE(s, s.message());
      CHECK(st.tokens == pte_test::json_ints(im->find("et")->find(program)->find("et_tokens")));
      CHECK(st.tokens == pte_test::json_ints(im->find("transformers_causal_tokens")));
      if (im->find("bidirectional_equals_causal")->as_bool()) CHECK(st.tokens == pte_test::json_ints(im->find("transformers_tokens")));
      else MESSAGE("transformers' bidirectional-image tokens differ from the exported (causal) decoder's for " << image);
      r->reset();
    }
    // text only, through the same program
    const pte::json::Value* text = ref.find("text");
    REQUIRE(text);
    pte::GenerationConfig gc = pte_test::greedy(n_new);
    gc.chat = true;
    std::vector<int32_t> ids;
    REQUIRE(r->encode_prompt(text->find("prompt")->as_string(), gc, &ids));
    CHECK(ids == pte_test::json_ints(text->find("text_input_ids")));
    CHECK(pte_test::generate_ids(*r, ids, n_new) == pte_test::json_ints(text->find("text_transformers_tokens")));
  }
}

TEST_CASE("multimodal gemma3: two images, bad shapes, too many images and text-only programs are refused with one line") {
  auto r = pte_test::open_runner(kDir + "model.pte");
  std::vector<float> px = pixels("photo.png");
  pte::MediaEmbedding m;
  REQUIRE(r->encode_media(px.data(), {1, 3, 56, 56}, &m));
  // a wrong input shape
  pte::MediaEmbedding bad;
  pte::Status s = r->encode_media(px.data(), {1, 3, 28, 112}, &bad);
  CHECK_FALSE(s);
  CHECK(s.message().find("vision_encoder") != std::string::npos);
  s = r->encode_media(px.data(), {3, 56, 56}, &bad);
  CHECK_FALSE(s);
  // two images fit the 64 positions; each takes its own rows
  pte::GenerationConfig gc = pte_test::greedy(3);
  gc.chat = true;
  gc.media = {m, m};
  pte::GenerationStats st;
  s = r->generate("Compare these.", gc, [](const std::string&) {}, &st);
  REQUIRE_MESSAGE(s, s.message());
  CHECK(st.generated_tokens == 3);
  int images = 0;
  for (int32_t id : st.prompt_ids) images += id == r->multimodal()->media_token_id;
  CHECK(images == 8);
  // more images than the context holds: refused, the cache back where it was
  r->reset();
  gc.media.assign(12, m);
  s = r->generate("Too many.", gc, [](const std::string&) {}, &st);
  CHECK_FALSE(s);
  CHECK(s.message().find("context") != std::string::npos);
  CHECK(r->position() == 0);
  // a raw prompt whose placeholders do not match the images given
  gc.media = {m};
  gc.chat = false;
  s = r->generate("<start_of_image> and <start_of_image>", gc, [](const std::string&) {}, &st);
  CHECK_FALSE(s);
  CHECK(r->position() == 0);
  // rows the prompt does not place (media given, but the prompt encoded without them)
  std::vector<int32_t> ids;
  pte::GenerationConfig plain = pte_test::greedy(2);
  REQUIRE(r->encode_prompt("Hello", plain, &ids));
  gc.chat = true;
  s = r->generate_ids(ids, gc, [](const std::string&) {}, &st);
  CHECK_FALSE(s);
  CHECK(s.message().find("rows") != std::string::npos);
  CHECK(r->position() == 0);
  // a text-only program takes no images
  auto t = pte_test::open_runner("fixtures/data/decoder_llama/model.pte");
  CHECK(t->multimodal() == nullptr);
  s = t->encode_media(px.data(), {1, 3, 56, 56}, &bad);
  CHECK_FALSE(s);
  pte::GenerationConfig tg = pte_test::greedy(2);
  tg.media = {m};
  s = t->generate("Hi", tg, [](const std::string&) {}, &st);
  CHECK_FALSE(s);
  CHECK(s.message().find("takes no images") != std::string::npos);
}

TEST_CASE("multimodal gemma3: the CLI with --image") {
  const std::string exe = pte_test::pte_run_exe();
  if (exe.empty()) {
    MESSAGE("skipped: no pte-run binary");
    return;
  }
  pte::json::Value ref = references();
  const pte::json::Value* im = ref.find("images")->find("photo.jpg");
  auto run = pte_test::run_pte_run({kDir + "model_xnnpack.pte", "Describe this image.", "--image", kDir + "photo.jpg", "-n", "10",
                                    "--ignore-eos", "--json"});
  REQUIRE_MESSAGE(run.code == 0, run.err);
  pte::json::Value doc;
  REQUIRE(pte::json::parse(run.out, &doc));
  CHECK(pte_test::json_ints(doc.find("prompt_ids")) == pte_test::json_ints(im->find("input_ids")));
  CHECK(pte_test::json_ints(doc.find("generated_ids")) == pte_test::json_ints(im->find("et")->find("model_xnnpack.pte")->find("et_tokens")));
  // not an image; a missing file; an image for a text-only program: one line, exit 1
  for (const auto& args : std::vector<std::vector<std::string>>{
           {kDir + "model.pte", "Describe.", "--image", kDir + "references.json"},
           {kDir + "model.pte", "Describe.", "--image", kDir + "no_such.png"},
           {"fixtures/data/decoder_llama/model.pte", "Describe.", "--image", kDir + "photo.png"}}) {
    auto bad = pte_test::run_pte_run(args);
    CAPTURE(args[3]);
    CHECK(bad.code == 1);
    CHECK(pte_test::count_lines(bad.err) == 1);
    CHECK(bad.out.empty());
  }
  // info names the task
  auto info = pte_test::run_pte_run({"info", kDir + "model.pte"});
  CHECK(info.code == 0);
  CHECK(info.out.find("image+text generation") != std::string::npos);
}
