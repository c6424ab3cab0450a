// preprocessor_config.json -> pixel values (see preprocess.h).
#include "image/preprocess.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace pte::image {

namespace {

bool shortest_edge_type(const std::string& t) {
  return t.find("ConvNext") != std::string::npos || t.find("CLIP") != std::string::npos ||
         t.find("Bit") != std::string::npos;
}

Status read_size(const json::Value& v, const std::string& what, const std::string& name, int* h, int* w, int* shortest,
                 bool number_is_shortest) {
  auto dim = [&](const json::Value* x, int* out) {
    if (!x || !x->is_int() || x->as_int() < 1 || x->as_int() > 16384) return false;
    *out = static_cast<int>(x->as_int());
    return true;
  };
  if (v.is_int()) {
    if (!dim(&v, h)) return Status::error(name + ": " + what + " is not a usable size");
    if (number_is_shortest && shortest) {
      *shortest = *h;
      *h = 0;
    } else {
      *w = *h;
    }
    return Status::ok();
  }
  if (!v.is_object()) return Status::error(name + ": " + what + " is neither a number nor an object");
  if (v.find("longest_edge") || v.find("max_size"))
    return Status::error(name + ": " + what + " with longest_edge / max_size is not supported");
  if (const json::Value* s = v.find("shortest_edge")) {
    if (!shortest || !dim(s, shortest)) return Status::error(name + ": " + what + ".shortest_edge is not usable here");
    return Status::ok();
  }
  if (!dim(v.find("height"), h) || !dim(v.find("width"), w))
    return Status::error(name + ": " + what + " needs height and width (or shortest_edge)");
  return Status::ok();
}

Status read_triple(const json::Value* v, const std::string& what, const std::string& name, float out[3]) {
  if (!v) return Status::ok();
  if (v->is_number()) {
    out[0] = out[1] = out[2] = static_cast<float>(v->as_double());
    return Status::ok();
  }
  if (!v->is_array() || v->size() != 3) return Status::error(name + ": " + what + " must be 3 numbers");
  for (size_t i = 0; i < 3; ++i) {
    if (!(*v)[i].is_number()) return Status::error(name + ": " + what + " must be 3 numbers");
    out[i] = static_cast<float>((*v)[i].as_double());
  }
  return Status::ok();
}

bool flag(const json::Value& v, const char* key, bool dflt) {
  const json::Value* x = v.find(key);
  return x && x->is_bool() ? x->as_bool() : dflt;
}

}  // namespace

Status parse_preprocess_config(const json::Value& v, const std::string& name, PreprocessConfig* c) {
  *c = PreprocessConfig();
  if (!v.is_object()) return Status::error(name + ": not a JSON object");
  if (const json::Value* t = v.find("image_processor_type", json::Type::String)) c->processor_type = t->as_string();
  const bool convnext = c->processor_type.find("ConvNext") != std::string::npos;
  if (shortest_edge_type(c->processor_type)) c->resample = Filter::Bicubic;  // those classes' default
  if (flag(v, "do_pad", false)) return Status::error(name + ": do_pad is not supported");
  if (flag(v, "rescale_offset", false)) return Status::error(name + ": rescale_offset is not supported");
  // Gemma3's pan-and-scan adds crops of the image as more images: not done
  if (flag(v, "do_pan_and_scan", false)) return Status::error(name + ": do_pan_and_scan is not supported");
  c->do_resize = flag(v, "do_resize", true);
  if (c->do_resize) {
    const json::Value* s = v.find("size");
    if (!s) return Status::error(name + ": do_resize without a size");
    PTE_TRY(read_size(*s, "size", name, &c->size_h, &c->size_w, &c->shortest_edge, shortest_edge_type(c->processor_type)));
    if (const json::Value* r = v.find("resample"); r && !r->is_null()) {
      if (!r->is_int()) return Status::error(name + ": resample is not a PIL filter id");
      if (r->as_int() == 0) return Status::error(name + ": resample 0 (nearest) is not supported");
      if (!filter_from_id(r->as_int(), &c->resample))
        return Status::error(name + ": resample " + std::to_string(r->as_int()) + " is not a PIL filter id (1-5)");
    }
    if (convnext && c->shortest_edge > 0) {
      c->crop_pct = 224.0 / 256.0;
      if (const json::Value* p = v.find("crop_pct"); p && p->is_number()) c->crop_pct = p->as_double();
      if (!(c->crop_pct > 0.01 && c->crop_pct <= 1.0)) return Status::error(name + ": crop_pct out of range");
    }
  }
  c->do_center_crop = flag(v, "do_center_crop", false);
  if (c->do_center_crop) {
    const json::Value* s = v.find("crop_size");
    if (!s) return Status::error(name + ": do_center_crop without a crop_size");
    PTE_TRY(read_size(*s, "crop_size", name, &c->crop_h, &c->crop_w, nullptr, false));
  }
  c->do_rescale = flag(v, "do_rescale", true);
  if (const json::Value* f = v.find("rescale_factor"); f && f->is_number()) c->rescale_factor = f->as_double();
  // processors without a normalise step (MobileViT) write neither the flag nor mean / std
  c->do_normalize = flag(v, "do_normalize", v.find("image_mean") || v.find("image_std"));
  PTE_TRY(read_triple(v.find("image_mean"), "image_mean", name, c->mean));
  PTE_TRY(read_triple(v.find("image_std"), "image_std", name, c->std));
  for (float s : c->std)
    if (c->do_normalize && !(s != 0.f && std::isfinite(s))) return Status::error(name + ": image_std has a zero");
  c->flip_channel_order = flag(v, "do_flip_channel_order", false);
  return Status::ok();
}

Status load_preprocess_config(const std::string& path, PreprocessConfig* out) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) || std::filesystem::file_size(path, ec) > (1u << 20))
    return Status::error(path + ": no readable preprocessor config");
  json::Value v;
  if (!json::parse_file(path, &v)) return Status::error(path + ": not a readable JSON file");
  return parse_preprocess_config(v, path, out);
}

namespace {

// transformers' get_resize_output_image_size(default_to_square=False): (height, width)
void keep_aspect(int h, int w, int shortest, int* oh, int* ow) {
  const int s = std::min(h, w), l = std::max(h, w);
  const int nl = static_cast<int>(static_cast<double>(static_cast<int64_t>(shortest) * l) / s);
  if (w <= h) { *ow = shortest; *oh = nl; } else { *oh = shortest; *ow = nl; }
}

}  // namespace

void center_crop(const RgbImage& img, int ch, int cw, RgbImage* out) {
  // per axis, as transformers' center_crop: a start of (size - crop) // 2 inside a larger
  // image; a smaller one zero-padded with ceil((crop - size) / 2) before it
  auto offset = [](int size, int crop) { return size >= crop ? (size - crop) / 2 : -((crop - size + 1) / 2); };
  const int top = offset(img.height, ch), left = offset(img.width, cw);
  out->width = cw;
  out->height = ch;
  out->rgb.assign(static_cast<size_t>(cw) * ch * 3, 0);
  for (int y = 0; y < ch; ++y) {
    const int sy = top + y;
    if (sy < 0 || sy >= img.height) continue;
    for (int x = 0; x < cw; ++x) {
      const int sx = left + x;
      if (sx < 0 || sx >= img.width) continue;
      for (int k = 0; k < 3; ++k)
        out->rgb[(static_cast<size_t>(y) * cw + x) * 3 + k] = img.rgb[(static_cast<size_t>(sy) * img.width + sx) * 3 + k];
    }
  }
}

void output_size(const PreprocessConfig& c, int h, int w, int* oh, int* ow) {
  *oh = h;
  *ow = w;
  if (c.do_resize) {
    if (c.crop_pct > 0) {
      *oh = *ow = c.shortest_edge;  // cropped (< 384) or warped to it
    } else if (c.shortest_edge > 0) {
      keep_aspect(h, w, c.shortest_edge, oh, ow);
    } else {
      *oh = c.size_h;
      *ow = c.size_w;
    }
  }
  if (c.do_center_crop) { *oh = c.crop_h; *ow = c.crop_w; }
}

Status resize_and_crop(const RgbImage& img, const PreprocessConfig& c, RgbImage* out) {
  RgbImage cur = img, next;
  if (c.do_resize) {
    int h = c.size_h, w = c.size_w;
    if (c.crop_pct > 0 && c.shortest_edge < 384) {
      keep_aspect(img.height, img.width, static_cast<int>(c.shortest_edge / c.crop_pct), &h, &w);
    } else if (c.crop_pct > 0) {
      h = w = c.shortest_edge;
    } else if (c.shortest_edge > 0) {
      keep_aspect(img.height, img.width, c.shortest_edge, &h, &w);
    }
    if (static_cast<uint64_t>(h) * w > (uint64_t{1} << 28)) return Status::error("the resized image would be too large");
    PTE_TRY(resize(cur, w, h, c.resample, &next));
    cur = std::move(next);
    if (c.crop_pct > 0 && c.shortest_edge < 384) {
      center_crop(cur, c.shortest_edge, c.shortest_edge, &next);
      cur = std::move(next);
    }
  }
  if (c.do_center_crop) {
    center_crop(cur, c.crop_h, c.crop_w, &next);
    cur = std::move(next);
  }
  *out = std::move(cur);
  return Status::ok();
}

Status preprocess(const RgbImage& img, const PreprocessConfig& c, std::vector<float>* chw, int* oh, int* ow) {
  RgbImage r;
  PTE_TRY(resize_and_crop(img, c, &r));
  const size_t plane = static_cast<size_t>(r.width) * r.height;
  chw->resize(plane * 3);
  for (int k = 0; k < 3; ++k) {
    const int src = c.flip_channel_order ? 2 - k : k;
    float* dst = chw->data() + plane * k;
    for (size_t i = 0; i < plane; ++i) {
      const uint8_t u = r.rgb[i * 3 + src];
      float v = c.do_rescale ? static_cast<float>(static_cast<double>(u) * c.rescale_factor) : static_cast<float>(u);
      if (c.do_normalize) v = (v - c.mean[src]) / c.std[src];
      dst[i] = v;
    }
  }
  *oh = r.height;
  *ow = r.width;
  return Status::ok();
}

}  // namespace pte::image
