// Tests of util/json: strict parsing, DOM access, writing and round trips.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <string>

#include "util/json.h"

using pte::json::parse;
using pte::json::Type;
using pte::json::Value;
using pte::json::write;

namespace {

Value ok(std::string_view text, const pte::json::ParseOptions& o = {}) {
  Value v;
  pte::Status s = parse(text, &v, o);
  INFO("input: " << std::string(text));
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  return v;
}

std::string err(std::string_view text, const pte::json::ParseOptions& o = {}) {
  Value v = Value("sentinel");
  pte::Status s = parse(text, &v, o);
  INFO("input: " << std::string(text));
  REQUIRE(!s.is_ok());
  CHECK(v.is_null());  // out is reset on error
  CHECK(s.message().find('\n') == std::string::npos);
  return s.message();
}

}  // namespace

TEST_CASE("json: scalars") {
  CHECK(ok("null").is_null());
  CHECK(ok("true").as_bool() == true);
  CHECK(ok(" false ").is_bool());
  CHECK(ok("0").is_int());
  CHECK(ok("0").as_int() == 0);
  CHECK(ok("-7").as_int() == -7);
  CHECK(ok("128").as_int() == 128);
  CHECK(ok("\"abc\"").as_string() == "abc");
  Value d = ok("2.5");
  CHECK(d.is_double());
  CHECK(d.as_double() == 2.5);
  CHECK(ok("1e2").is_double());  // an exponent makes it a double even when integral
  CHECK(ok("1e2").as_double() == 100.0);
  CHECK(ok("-0.125E+1").as_double() == -1.25);
  CHECK(ok("1.0").is_double());
  CHECK(ok("\t\r\n 3 \n").as_int() == 3);
}

TEST_CASE("json: int64 limits and overflow to double") {
  CHECK(ok("9223372036854775807").as_int() == std::numeric_limits<int64_t>::max());
  CHECK(ok("-9223372036854775808").is_int());
  CHECK(ok("-9223372036854775808").as_int() == std::numeric_limits<int64_t>::min());
  Value big = ok("9223372036854775808");  // 2^63: one past the int64 range
  CHECK(big.is_double());
  CHECK(big.as_double() == 9223372036854775808.0);
  CHECK(ok("-9223372036854775809").is_double());
  CHECK(ok("123456789012345678901234567890").as_double() == doctest::Approx(1.2345678901234568e29));
  // Underflow becomes 0, overflow is an error.
  CHECK(ok("1e-400").as_double() == 0.0);
  CHECK(ok("0.00000000000000000001e-390").as_double() == 0.0);
  CHECK(err("1e400").find("out of range") != std::string::npos);
  CHECK(err("-1e400").find("out of range") != std::string::npos);
  CHECK(ok("1.7976931348623157e308").as_double() == std::numeric_limits<double>::max());
  CHECK(ok("4.9e-324").as_double() == std::numeric_limits<double>::denorm_min());
}

TEST_CASE("json: arrays and objects keep order") {
  Value v = ok(R"({"b": 1, "a": [1, 2.5, "x", null, true, {}], "c": {"z": {}, "y": []}})");
  REQUIRE(v.is_object());
  REQUIRE(v.size() == 3);
  CHECK(v.members()[0].first == "b");
  CHECK(v.members()[1].first == "a");
  CHECK(v.members()[2].first == "c");
  const Value* a = v.find("a");
  REQUIRE(a);
  REQUIRE(a->size() == 6);
  CHECK((*a)[0].as_int() == 1);
  CHECK((*a)[1].as_double() == 2.5);
  CHECK((*a)[2].as_string() == "x");
  CHECK((*a)[3].is_null());
  CHECK((*a)[4].as_bool());
  CHECK((*a)[5].is_object());
  CHECK((*a)[99].is_null());  // out of range: null
  CHECK(v.find("missing") == nullptr);
  CHECK(v.find("b", Type::Int) != nullptr);
  CHECK(v.find("b", Type::String) == nullptr);
  CHECK(v.find("c")->members()[0].first == "z");
  CHECK(ok("[]").size() == 0);
  CHECK(ok("{}").is_object());
  CHECK(ok("[[[]]]")[0][0].is_array());
}

TEST_CASE("json: string escapes, UTF-8 and surrogate pairs") {
  CHECK(ok(R"("a\"b\\c\/d\b\f\n\r\t")").as_string() == "a\"b\\c/d\b\f\n\r\t");
  CHECK(ok(R"("\u0041\u00e9\u20AC")").as_string() == "A\xC3\xA9\xE2\x82\xAC");  // A é €
  CHECK(ok(R"("\u0000")").as_string() == std::string("\0", 1));
  // U+1F600 (😀) = D83D DE00 -> F0 9F 98 80
  CHECK(ok(R"("\ud83d\ude00")").as_string() == "\xF0\x9F\x98\x80");
  // U+10FFFF = DBFF DFFF -> F4 8F BF BF
  CHECK(ok(R"("\uDBFF\uDFFF")").as_string() == "\xF4\x8F\xBF\xBF");
  // Raw UTF-8 passes through.
  CHECK(ok("\"\xE4\xBD\xA0\xE5\xA5\xBD \xF0\x9F\x98\x80\"").as_string() == "\xE4\xBD\xA0\xE5\xA5\xBD \xF0\x9F\x98\x80");
  // Ġ (U+0120), as found in GPT-2 style vocabularies.
  CHECK(ok(R"({"\u0120the": 262})").members()[0].first == "\xC4\xA0the");

  CHECK(err(R"("\ud83d")").find("surrogate") != std::string::npos);
  CHECK(err(R"("\ude00")").find("surrogate") != std::string::npos);
  CHECK(err(R"("\ud83d\u0041")").find("surrogate") != std::string::npos);
  pte::json::ParseOptions lenient;
  lenient.replace_lone_surrogates = true;
  CHECK(ok(R"("\ud83dx")", lenient).as_string() == "\xEF\xBF\xBDx");
  CHECK(ok(R"("\ud83d\u0041")", lenient).as_string() == "\xEF\xBF\xBD" "A");

  CHECK(err(R"("\x")").find("escape") != std::string::npos);
  CHECK(err(R"("\u12")").find("escape") != std::string::npos);
  CHECK(err(R"("\u12g4")").find("hex") != std::string::npos);
  CHECK(err("\"a\nb\"").find("control character") != std::string::npos);
  CHECK(err("\"abc").find("unterminated") != std::string::npos);
  CHECK(err("\"\xC3\"").find("UTF-8") != std::string::npos);          // truncated sequence
  CHECK(err("\"\xC0\xAF\"").find("UTF-8") != std::string::npos);      // overlong '/'
  CHECK(err("\"\xED\xA0\x80\"").find("UTF-8") != std::string::npos);  // encoded surrogate
  CHECK(err("\"\xF4\x90\x80\x80\"").find("UTF-8") != std::string::npos);  // > U+10FFFF
  CHECK(err("\"\xFF\"").find("UTF-8") != std::string::npos);
}

TEST_CASE("json: errors name the byte offset, line and column") {
  CHECK(err("") == "JSON: byte 0 (line 1, column 1): unexpected end of input, expected a value");
  CHECK(err("[1,]") == "JSON: byte 3 (line 1, column 4): unexpected character, expected a value");
  CHECK(err("{\n  \"a\" 1}") == "JSON: byte 8 (line 2, column 7): expected ':' after an object key");
  CHECK(err("[1 2]") == "JSON: byte 3 (line 1, column 4): expected ',' or ']' after an array item");
  CHECK(err("{\"a\":1 \"b\":2}").find("byte 7") != std::string::npos);
  CHECK(err("1 2") == "JSON: byte 2 (line 1, column 3): unexpected data after the JSON document");
  CHECK(err("01").find("leading zero") != std::string::npos);
  CHECK(err("-").find("expected a digit") != std::string::npos);
  CHECK(err("1.").find("after '.'") != std::string::npos);
  CHECK(err("1e").find("exponent") != std::string::npos);
  CHECK(err("+1").find("unexpected character") != std::string::npos);
  CHECK(err(".5").find("unexpected character") != std::string::npos);
  CHECK(err("NaN").find("unexpected character") != std::string::npos);
  CHECK(err("tru").find("literal") != std::string::npos);
  CHECK(err("nulll").find("unexpected data") != std::string::npos);
  CHECK(err("[1").find("missing ']'") != std::string::npos);
  CHECK(err("{\"a\":1").find("missing '}'") != std::string::npos);
  CHECK(err("{1:2}").find("string key") != std::string::npos);
  CHECK(err("// c\n1").find("byte 0") != std::string::npos);  // no comments
  CHECK(err("[1,2,]").find("byte 5") != std::string::npos);  // no trailing commas
  // Column counts characters, not bytes: "é" is two bytes.
  CHECK(err("\"\xC3\xA9\" x").find("byte 5 (line 1, column 5)") != std::string::npos);
}

TEST_CASE("json: duplicate keys") {
  CHECK(err(R"({"a":1,"b":2,"a":3})") == "JSON: byte 13 (line 1, column 14): duplicate key in an object");
  // Large objects take the sorted path; the earliest repeated key is reported.
  std::string big = "{";
  for (int k = 0; k < 100; ++k) big += "\"k" + std::to_string(k) + "\":" + std::to_string(k) + ",";
  std::string before_dup = big;
  big += "\"k7\":0}";
  std::string msg = err(big);
  CHECK(msg.find("byte " + std::to_string(before_dup.size())) != std::string::npos);
  pte::json::ParseOptions o;
  o.allow_duplicate_keys = true;
  Value v = ok(R"({"a":1,"a":2})", o);
  CHECK(v.size() == 2);
  CHECK(v.find("a")->as_int() == 1);  // first match
  // Keys differing only after an escape are distinct.
  CHECK(ok(R"({"a\u0000":1,"a":2})").size() == 2);
}

TEST_CASE("json: depth limit") {
  std::string deep(300, '[');
  deep += std::string(300, ']');
  CHECK(err(deep).find("nesting is deeper") != std::string::npos);
  pte::json::ParseOptions o;
  o.max_depth = 300;
  CHECK(ok(deep, o).is_array());
  o.max_depth = 3;
  CHECK(ok("[[[1]]]", o)[0][0][0].as_int() == 1);
  CHECK(err("[[[[1]]]]", o) == "JSON: byte 3 (line 1, column 4): nesting is deeper than the limit");
  CHECK(err("{\"a\":{\"b\":{\"c\":{}}}}", o).find("nesting") != std::string::npos);
  // A very deep document fails cleanly (no stack exhaustion) at the default limit.
  std::string huge(1000000, '[');
  CHECK(err(huge).find("byte 256") != std::string::npos);
}

TEST_CASE("json: writer escaping") {
  using pte::json::quote;
  CHECK(quote("plain") == "\"plain\"");
  CHECK(quote("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(quote("\b\f\n\r\t") == "\"\\b\\f\\n\\r\\t\"");
  CHECK(quote(std::string("\0\x01\x1f", 3)) == "\"\\u0000\\u0001\\u001f\"");
  CHECK(quote("/") == "\"/\"");
  CHECK(quote("\xC3\xA9") == "\"\xC3\xA9\"");
  CHECK(quote("\xC3\xA9", true) == "\"\\u00e9\"");
  CHECK(quote("\xF0\x9F\x98\x80", true) == "\"\\ud83d\\ude00\"");
  CHECK(quote("a\xFF" "b") == "\"a\xEF\xBF\xBD" "b\"");  // invalid byte -> U+FFFD
  CHECK(quote("\xC3", true) == "\"\\ufffd\"");
  CHECK(pte::json::valid_utf8("\xE2\x82\xAC"));
  CHECK(!pte::json::valid_utf8("\xE2\x82"));
  CHECK(!pte::json::valid_utf8("\xE0\x80\x80"));  // overlong
}

TEST_CASE("json: writer numbers and layout") {
  Value v = Value::object();
  v.set("i", 128);
  v.set("neg", -9223372036854775807LL - 1);
  v.set("d", 2.5);
  v.set("whole", 128.0);
  v.set("tiny", 1e-300);
  v.set("nan", std::nan(""));
  v.set("inf", std::numeric_limits<double>::infinity());
  v.set("u", static_cast<uint64_t>(18446744073709551615ULL));
  v.set("s", "x");
  v.set("list", Value::array());
  v.set("empty", Value::object());
  CHECK(write(v) ==
        R"({"i":128,"neg":-9223372036854775808,"d":2.5,"whole":128.0,"tiny":1e-300,"nan":null,"inf":null,)"
        R"("u":18446744073709551616.0,"s":"x","list":[],"empty":{}})");
  // set() replaces in place.
  v.set("i", 7);
  CHECK(v.members()[0].second.as_int() == 7);
  CHECK(v.size() == 11);

  Value doc = Value::object();
  Value& arr = doc.set("a", Value::array());
  arr.push(1);
  arr.push("two");
  doc.set("b", Value::object()).set("c", true);
  CHECK(write(doc, 2) == "{\n  \"a\": [\n    1,\n    \"two\"\n  ],\n  \"b\": {\n    \"c\": true\n  }\n}");
  CHECK(write(doc, 0) == "{\n\"a\": [\n1,\n\"two\"\n],\n\"b\": {\n\"c\": true\n}\n}");
  Value n;
  n.push(nullptr);
  CHECK(write(n) == "[null]");
}

TEST_CASE("json: round trip preserves values and types") {
  const char* text =
      R"({"vocab":{"\u0120the":262,"<0x0A>":13,"\ud83d\ude00":5},"merges":["a b","\u00e9 x"],)"
      R"("f":[0.1,-2.5e-8,1e+300,3.0,0.0],"big":9223372036854775807,"t":true,"n":null,"e":"\u0000\u001f\"\\"})";
  Value a = ok(text);
  for (bool ascii : {false, true})
    for (int indent : {-1, 0, 2}) {
      pte::json::WriteOptions o;
      o.indent = indent;
      o.ascii_only = ascii;
      std::string s = pte::json::write(a, o);
      if (ascii)
        for (char c : s) CHECK(static_cast<unsigned char>(c) < 0x80);
      Value b = ok(s);
      CHECK(a == b);
      CHECK(pte::json::write(b, o) == s);
    }
  CHECK(a.find("f")->items()[3].is_double());
  CHECK(a.find("f")->items()[0].as_double() == 0.1);
  CHECK(write(ok("[0.1,1e+300,3.0]")) == "[0.1,1e+300,3.0]");
}

TEST_CASE("json: accessor mismatches are neutral") {
  Value s = Value("x");
  CHECK(s.as_int() == 0);
  CHECK(s.as_double() == 0.0);
  CHECK(!s.as_bool());
  CHECK(s.size() == 0);
  CHECK(s.items().empty());
  CHECK(s.find("a") == nullptr);
  CHECK(Value(7).as_string().empty());
  CHECK(Value(2.9).as_int() == 2);
  CHECK(Value(-2.9).as_int() == -2);
  CHECK(Value(1e30).as_int() == std::numeric_limits<int64_t>::max());
  CHECK(Value(5).as_double() == 5.0);
  CHECK(pte::json::type_name(Value(1.5).type()) == std::string("double"));
}

TEST_CASE("json: parse_file") {
  Value v;
  pte::Status s = pte::json::parse_file("/nonexistent/x.json", &v);
  CHECK(!s.is_ok());
  CHECK(s.message().find("/nonexistent/x.json: cannot open") == 0);
  if (FILE* f = std::fopen("fixtures/data/manifest.json", "rb")) {
    std::fclose(f);
    s = pte::json::parse_file("fixtures/data/manifest.json", &v);
    REQUIRE_MESSAGE(s.is_ok(), s.message());
    CHECK(v.find("cases", Type::Array) != nullptr);
  }
}
