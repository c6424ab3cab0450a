// Image classification (image/, bin/classify.cpp) on the fixtures written by
// fixtures/exporters/images.py: decoded pixels equal PIL's Image.open(f).convert("RGB")
// after ImageOps.exif_transpose (transformers' load_image),
// resizes equal PIL's Image.resize (each filter, down and up), pixel values equal
// transformers' slow image processors (ViTImageProcessor, ConvNextImageProcessor with
// crop_pct) within 1e-6, logits within 1e-4 of transformers' and 1e-5 of the official
// runtime's on the same .pte (portable, XNNPACK), top-5 order equal to the pipeline's; bad
// images (not an image, truncated, 30000x30000 headers, CMYK) refused with one line; the
// decoders never crash on truncated or mutated bytes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "cli_spawn.h"
#include "image/classifier.h"
#include "image/decode.h"
#include "image/exif.h"
#include "image/preprocess.h"
#include "image/resize.h"
#include "util/json.h"
#include "util/npy.h"

namespace {

namespace fs = std::filesystem;
const std::string kInputs = "fixtures/data/image_inputs/";
const char* kModels[] = {"vit", "resnet"};
const char* kRecipes[][2] = {{"portable", "model.pte"}, {"xnnpack", "model_xnnpack.pte"}};

std::string file_bytes(const std::string& p) {
  std::string s = pte_test::slurp(p);
  REQUIRE_MESSAGE(!s.empty(), p << " missing (run fixtures/exporters/images.py)");
  return s;
}

pte::util::HostTensor npy(const std::string& p) {
  pte::util::HostTensor t;
  pte::Status s = pte::util::npy_read(p, &t);
  REQUIRE_MESSAGE(s, s.message());
  return t;
}

pte::image::RgbImage rgb_from_npy(const pte::util::HostTensor& t) {
  REQUIRE(t.dtype == pte::DType::UInt8);
  REQUIRE(t.shape.size() == 3);
  REQUIRE(t.shape[2] == 3);
  pte::image::RgbImage img;
  img.height = static_cast<int>(t.shape[0]);
  img.width = static_cast<int>(t.shape[1]);
  img.rgb = t.bytes;
  return img;
}

int max_diff(const pte::image::RgbImage& a, const pte::image::RgbImage& b) {
  REQUIRE(a.width == b.width);
  REQUIRE(a.height == b.height);
  REQUIRE(a.rgb.size() == b.rgb.size());
  int d = 0;
  for (size_t i = 0; i < a.rgb.size(); ++i) d = std::max(d, std::abs(int(a.rgb[i]) - int(b.rgb[i])));
  return d;
}

pte::json::Value json_file(const std::string& p) {
  pte::json::Value v;
  REQUIRE_MESSAGE(pte::json::parse_file(p, &v), p << " missing or unreadable (run fixtures/exporters/images.py)");
  return v;
}

pte::Status decode(const std::string& bytes, pte::image::RgbImage* out, uint64_t max_pixels = pte::image::kDefaultMaxPixels) {
  pte::image::DecodeOptions o;
  o.max_pixels = max_pixels;
  return pte::image::decode_image(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "img", o, out);
}

}  // namespace

TEST_CASE("image: decoded pixels equal PIL's exif_transpose + convert(\"RGB\") (RGB, RGBA, gray, palette+tRNS, 16-bit, JPEG 4:2:0, gray, progressive, EXIF orientations 2-8)") {
  const char* files[] = {"rgb.png", "alpha.png", "gray.png", "palette.png", "rgb16.png", "photo.jpg", "gray.jpg",
                         "progressive.jpg", "orient2.jpg", "orient3.jpg", "orient4.jpg", "orient5.jpg", "orient6.jpg",
                         "orient7.jpg", "orient8.jpg", "orient6.png"};
  for (const std::string f : files) {
    CAPTURE(f);
    std::string name = f;
    std::replace(name.begin(), name.end(), '.', '_');
    pte::image::RgbImage want = rgb_from_npy(npy(kInputs + "decoded_" + name + ".npy")), got;
    pte::Status s = pte::image::decode_image_file(kInputs + f, {}, &got);
    REQUIRE_MESSAGE(s, s.message());
    CHECK(max_diff(got, want) == 0);
  }
}

TEST_CASE("image: resize equals PIL's Image.resize (bilinear, bicubic, lanczos, box, hamming; down, up, same size, vertical pass first)") {
  pte::json::Value cases = json_file(kInputs + "resize_cases.json");
  REQUIRE(cases.size() >= 10);
  for (const auto& c : cases.items()) {
    std::string src = c.find("source")->as_string();
    std::replace(src.begin(), src.end(), '.', '_');
    const int w = static_cast<int>(c.find("width")->as_int()), h = static_cast<int>(c.find("height")->as_int());
    pte::image::Filter f;
    REQUIRE(pte::image::filter_from_id(c.find("resample")->as_int(), &f));
    CAPTURE(src);
    CAPTURE(w);
    CAPTURE(h);
    CAPTURE(pte::image::filter_name(f));
    pte::image::RgbImage in = rgb_from_npy(npy(kInputs + "decoded_" + src + ".npy")), out;
    pte::image::RgbImage want = rgb_from_npy(npy(kInputs + c.find("file")->as_string()));
    pte::Status s = pte::image::resize(in, w, h, f, &out);
    REQUIRE_MESSAGE(s, s.message());
    CHECK(max_diff(out, want) == 0);
  }
}

TEST_CASE("image: pixel values equal transformers' image processor (ViT warp, ConvNext crop_pct) within 1e-6") {
  for (const char* m : kModels) {
    CAPTURE(m);
    const std::string dir = std::string("fixtures/data/image_") + m + "/";
    pte::image::PreprocessConfig cfg;
    pte::Status s = pte::image::load_preprocess_config(dir + "preprocessor_config.json", &cfg);
    REQUIRE_MESSAGE(s, s.message());
    pte::json::Value refs = json_file(dir + "references.json");
    REQUIRE(refs.find("items")->size() >= 5);
    for (const auto& it : refs.find("items")->items()) {
      CAPTURE(it.find("image")->as_string());
      pte::image::RgbImage img;
      s = pte::image::decode_image_file(kInputs + it.find("image")->as_string(), {}, &img);
      REQUIRE_MESSAGE(s, s.message());
      std::vector<float> px;
      int h = 0, w = 0;
      s = pte::image::preprocess(img, cfg, &px, &h, &w);
      REQUIRE_MESSAGE(s, s.message());
      pte::util::HostTensor want = npy(dir + it.find("pixel_values")->as_string());
      REQUIRE(want.dtype == pte::DType::Float);
      REQUIRE(want.shape == std::vector<int64_t>{3, h, w});
      const float* wp = reinterpret_cast<const float*>(want.bytes.data());
      double worst = 0;
      for (size_t i = 0; i < px.size(); ++i) worst = std::max(worst, std::fabs(double(px[i]) - wp[i]));
      CHECK(worst <= 1e-6);
    }
  }
}

TEST_CASE("image: pixel values equal transformers' CLIP, DeiT, Bit (zero-padded crop), MobileViT (channel flip) and ViT lanczos processors") {
  const char* procs[] = {"clip", "deit", "bit_pad", "mobilevit", "vit_lanczos"};
  const char* images[] = {"photo.jpg", "alpha.png", "gray.jpg"};
  for (const std::string p : procs) {
    CAPTURE(p);
    const std::string dir = kInputs + "processors/" + p + "/";
    pte::image::PreprocessConfig cfg;
    pte::Status s = pte::image::load_preprocess_config(dir + "preprocessor_config.json", &cfg);
    REQUIRE_MESSAGE(s, s.message());
    for (const std::string f : images) {
      CAPTURE(f);
      std::string name = f;
      std::replace(name.begin(), name.end(), '.', '_');
      pte::image::RgbImage img;
      s = pte::image::decode_image_file(kInputs + f, {}, &img);
      REQUIRE_MESSAGE(s, s.message());
      std::vector<float> px;
      int h = 0, w = 0;
      s = pte::image::preprocess(img, cfg, &px, &h, &w);
      REQUIRE_MESSAGE(s, s.message());
      pte::util::HostTensor want = npy(dir + "pv_" + name + ".npy");
      REQUIRE(want.shape == std::vector<int64_t>{3, h, w});
      const float* wp = reinterpret_cast<const float*>(want.bytes.data());
      double worst = 0;
      for (size_t i = 0; i < px.size(); ++i) worst = std::max(worst, std::fabs(double(px[i]) - wp[i]));
      CHECK(worst <= 1e-6);
    }
  }
}

TEST_CASE("image: classifier logits equal transformers' and the official runtime's, top-5 as the pipeline (ViT, ResNet; portable, XNNPACK)") {
  for (const char* m : kModels) {
    const std::string dir = std::string("fixtures/data/image_") + m + "/";
    pte::json::Value refs = json_file(dir + "references.json");
    const auto& items = refs.find("items")->items();
    for (auto [recipe, file] : kRecipes) {
      CAPTURE(m);
      CAPTURE(recipe);
      pte::image::ClassifierOptions o;
      o.model_path = dir + file;
      std::unique_ptr<pte::image::ImageClassifier> c;
      pte::Status s = pte::image::ImageClassifier::create(o, &c);
      REQUIRE_MESSAGE(s, s.message());
      const auto& et = refs.find("et")->find(recipe)->items();
      REQUIRE(et.size() == items.size());
      for (size_t i = 0; i < items.size(); ++i) {
        const auto& it = items[i];
        CAPTURE(it.find("image")->as_string());
        std::vector<pte::image::Prediction> preds;
        s = c->classify_file(kInputs + it.find("image")->as_string(), 5, &preds);
        REQUIRE_MESSAGE(s, s.message());
        const auto& want = it.find("logits")->items();
        REQUIRE(c->logits().size() == want.size());
        double d_hf = 0, d_et = 0;
        for (size_t k = 0; k < want.size(); ++k) {
          d_hf = std::max(d_hf, std::fabs(c->logits()[k] - want[k].as_double()));
          d_et = std::max(d_et, std::fabs(c->logits()[k] - et[i][k].as_double()));
        }
        CHECK(d_hf < 1e-4);
        CHECK(d_et < 1e-5);
        const auto& labels = it.find("labels")->items();
        const auto& scores = it.find("scores")->items();
        REQUIRE(preds.size() == labels.size());
        for (size_t k = 0; k < preds.size(); ++k) {
          CHECK(preds[k].label == labels[k].as_string());
          CHECK(std::fabs(preds[k].score - scores[k].as_double()) < 1e-5);
        }
      }
    }
  }
}

TEST_CASE("image: preprocess config parsing, center crop padding, refusals") {
  using pte::json::Value;
  pte::image::PreprocessConfig c;
  Value v;
  REQUIRE(pte::json::parse(R"({"image_processor_type": "CLIPImageProcessor", "size": {"shortest_edge": 8},
      "do_center_crop": true, "crop_size": 6, "image_mean": [0.1, 0.2, 0.3], "image_std": 0.5})", &v));
  pte::Status s = pte::image::parse_preprocess_config(v, "cfg", &c);
  REQUIRE_MESSAGE(s, s.message());
  CHECK(c.resample == pte::image::Filter::Bicubic);  // CLIP's default when the key is absent
  CHECK(c.shortest_edge == 8);
  CHECK(c.crop_h == 6);
  CHECK(c.crop_w == 6);
  int oh = 0, ow = 0;
  pte::image::output_size(c, 20, 40, &oh, &ow);
  CHECK(oh == 6);
  CHECK(ow == 6);
  // transformers' center_crop: a 3x2 image into 5x4: padded by ceil(2/2)=1 row and 1 column before
  pte::image::RgbImage small, cropped;
  small.width = 2;
  small.height = 3;
  for (int i = 0; i < 18; ++i) small.rgb.push_back(static_cast<uint8_t>(i + 1));
  pte::image::center_crop(small, 5, 4, &cropped);
  REQUIRE(cropped.rgb.size() == 60u);
  CHECK(cropped.rgb[0] == 0);
  CHECK(cropped.rgb[(1 * 4 + 1) * 3] == 1);    // first source pixel at row 1, column 1
  CHECK(cropped.rgb[(3 * 4 + 2) * 3 + 2] == 18);  // last source pixel at row 3, column 2
  CHECK(cropped.rgb[(4 * 4 + 3) * 3] == 0);
  const char* bad[] = {R"({"size": {"height": 8, "width": 8}, "resample": 0})", R"({"size": {"longest_edge": 8}})",
                       R"({"do_pad": true, "size": 8})", R"({"size": {"height": 8}})", R"({"size": 8, "image_std": [1, 0, 1]})"};
  for (const char* b : bad) {
    CAPTURE(b);
    REQUIRE(pte::json::parse(b, &v));
    CHECK_FALSE(pte::image::parse_preprocess_config(v, "cfg", &c));
  }
}

TEST_CASE("image: bad image files refused by the decoder with a reason (pixel limit before decoding)") {
  pte::image::RgbImage img;
  const std::string png = file_bytes(kInputs + "rgb.png"), jpg = file_bytes(kInputs + "photo.jpg");
  struct Case {
    std::string name, bytes, want;
  } cases[] = {
      {"text", "hello, this is not an image\n", "not a PNG or JPEG"},
      {"empty", "", "not a PNG or JPEG"},
      {"gif", "GIF89a\x01\x00\x01\x00\x00\x00\x00;", "GIF"},
      {"truncated png", png.substr(0, png.size() / 2), "truncated"},
      {"truncated png header", png.substr(0, 20), "damaged PNG"},
      {"truncated jpeg", jpg.substr(0, jpg.size() / 2), "truncated"},
      {"truncated jpeg header", jpg.substr(0, 40), "damaged JPEG"},
      {"huge png", file_bytes(kInputs + "huge.png"), "30000x30000 pixels, above the limit"},
      {"huge jpeg", file_bytes(kInputs + "huge.jpg"), "30000x30000 pixels, above the limit"},
      {"cmyk jpeg", file_bytes(kInputs + "cmyk.jpg"), "CMYK"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    pte::Status s = decode(c.bytes, &img);
    REQUIRE_FALSE(s);
    CHECK(s.message().find(c.want) != std::string::npos);
    CHECK(s.message().find('\n') == std::string::npos);
  }
  CHECK_FALSE(decode(png, &img, 37 * 29 - 1));  // the limit is inclusive
  CHECK(decode(png, &img, 37 * 29));
}

TEST_CASE("image: decoders survive every truncation and seeded byte mutations (no crash; results well-formed)") {
  const std::string sources[] = {file_bytes(kInputs + "rgb.png"), file_bytes(kInputs + "photo.jpg"),
                                 file_bytes(kInputs + "progressive.jpg"), file_bytes(kInputs + "palette.png")};
  std::mt19937 rng(15);
  int decoded = 0, refused = 0;
  for (const auto& src : sources) {
    for (size_t n = 0; n < src.size(); n += 5) {
      pte::image::RgbImage img;
      if (decode(src.substr(0, n), &img)) ++decoded; else ++refused;
    }
    for (int k = 0; k < 150; ++k) {
      std::string b = src;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int j = 0; j < flips; ++j) b[rng() % b.size()] = static_cast<char>(rng());
      pte::image::RgbImage img;
      if (decode(b, &img)) {
        ++decoded;
        CHECK(img.rgb.size() == static_cast<size_t>(img.width) * img.height * 3);
      } else {
        ++refused;
      }
    }
  }
  // EXIF blocks of random bytes behind a valid TIFF header: an orientation 0-8, no out-of-bounds read
  for (int k = 0; k < 2000; ++k) {
    std::vector<uint8_t> b(8 + rng() % 64);
    for (auto& x : b) x = static_cast<uint8_t>(rng() % 4 ? rng() % 24 : rng());
    std::memcpy(b.data(), k % 2 ? "II*\0" : "MM\0*", 4);
    const int o = pte::image::exif_orientation(b.data(), b.size());
    CHECK((o >= 0 && o <= 8));
  }
  MESSAGE("decoded " << decoded << ", refused " << refused);
  CHECK(refused > 0);
  CHECK(decoded > 0);
}

TEST_CASE("image: pte-run MODEL.pte IMAGE prints the top-k labels; bad images get one line and exit 1") {
  const std::string model = "fixtures/data/image_vit/model.pte";
  pte::json::Value refs = json_file("fixtures/data/image_vit/references.json");
  const auto& it = refs.find("items")->items()[0];
  auto r = pte_test::run_pte_run({model, kInputs + it.find("image")->as_string(), "--top-k", "3"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(pte_test::count_lines(r.out) == 3);
  CHECK(r.out.find(it.find("labels")->items()[0].as_string()) != std::string::npos);
  r = pte_test::run_pte_run({"classify", model, kInputs + "photo.jpg", kInputs + "gray.png", "--json"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  pte::json::Value doc;
  REQUIRE(pte::json::parse(r.out, &doc));
  REQUIRE(doc.size() == 2);
  CHECK(doc[0].find("predictions")->size() == 5);
  CHECK(doc[0].find("predictions")->items()[0].find("label")->as_string() ==
        refs.find("items")->items()[3].find("labels")->items()[0].as_string());
  // no config.json beside the model: ids
  const fs::path dir = pte_test::scratch_dir("image");
  fs::copy_file(model, dir / "model.pte", fs::copy_options::overwrite_existing);
  fs::copy_file("fixtures/data/image_vit/preprocessor_config.json", dir / "preprocessor_config.json",
                fs::copy_options::overwrite_existing);
  r = pte_test::run_pte_run({(dir / "model.pte").string(), kInputs + "rgb.png", "--top-k", "1"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  pte::json::Value cfg = json_file("fixtures/data/image_vit/config.json");
  std::string top_id;
  for (const auto& [id, label] : cfg.find("id2label")->members())
    if (label.as_string() == it.find("labels")->items()[0].as_string()) top_id = id;
  REQUIRE(!top_id.empty());
  CHECK(r.out.substr(r.out.find("  ")) == "  " + top_id + "\n");  // the id, no label
  // bad inputs: one line on stderr, exit 1
  const std::string png = file_bytes(kInputs + "rgb.png"), jpg = file_bytes(kInputs + "photo.jpg");
  auto write = [&](const char* name, const std::string& bytes) {
    std::ofstream(dir / name, std::ios::binary) << bytes;
    return (dir / name).string();
  };
  struct Bad {
    std::string path, want;
  } bad[] = {
      {write("notes.jpg", "not an image at all\n"), "not a PNG or JPEG"},
      {write("cut.png", png.substr(0, png.size() - 300)), "truncated"},
      {write("cut.jpg", jpg.substr(0, jpg.size() - 300)), "truncated"},
      {kInputs + "huge.png", "above the limit"},
      {kInputs + "huge.jpg", "above the limit"},
      {kInputs + "cmyk.jpg", "CMYK"},
      {(dir / "missing.png").string(), "cannot open"},
      {dir.string(), "not a regular file"},
  };
  for (const auto& b : bad) {
    CAPTURE(b.path);
    r = pte_test::run_pte_run({model, b.path});
    CHECK(r.code == 1);
    CHECK(pte_test::count_lines(r.err) == 1);
    CHECK(r.err.find(b.want) != std::string::npos);
    CHECK(r.out.empty());
  }
  r = pte_test::run_pte_run({"info", model});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.find("image classification") != std::string::npos);
  r = pte_test::run_pte_run({model, kInputs + "rgb.png", "--top-k", "0"});
  CHECK(r.code == 2);
  CHECK(pte_test::count_lines(r.err) == 1);
  r = pte_test::run_pte_run({model, kInputs + "rgb.png", "--max-pixels", "100"});
  CHECK(r.code == 1);
  CHECK(pte_test::count_lines(r.err) == 1);
  // no preprocessor config: one line naming the file
  fs::remove(dir / "preprocessor_config.json");
  r = pte_test::run_pte_run({(dir / "model.pte").string(), kInputs + "rgb.png"});
  CHECK(r.code == 1);
  CHECK(pte_test::count_lines(r.err) == 1);
  CHECK(r.err.find("preprocessor_config.json") != std::string::npos);
}
