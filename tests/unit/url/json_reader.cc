#include "tests/unit/url/json_reader.h"

#include <cstdint>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "lib/json/json_string.h"

namespace crawler::url::testing {
namespace {

constexpr int kMaxDepth = 64;

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  absl::StatusOr<JsonValue> Document() {
    JsonValue v;
    if (absl::Status s = Value(v, 0); !s.ok()) return s;
    SkipSpace();
    if (pos_ != text_.size()) return Error("trailing characters");
    return v;
  }

 private:
  absl::Status Error(std::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("JSON: ", std::string(what), " at offset ", pos_));
  }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Consume(std::string_view literal) {
    if (text_.substr(pos_, literal.size()) != literal) return false;
    pos_ += literal.size();
    return true;
  }

  absl::Status Value(JsonValue& v, int depth) {
    if (depth > kMaxDepth) return Error("nesting too deep");
    SkipSpace();
    if (pos_ >= text_.size()) return Error("unexpected end");
    const char c = text_[pos_];
    if (c == '"') {
      v.type = JsonValue::Type::kString;
      return String(v.string);
    }
    if (c == '[') {
      ++pos_;
      v.type = JsonValue::Type::kArray;
      SkipSpace();
      if (Consume("]")) return absl::OkStatus();
      while (true) {
        v.array.emplace_back();
        if (absl::Status s = Value(v.array.back(), depth + 1); !s.ok()) return s;
        SkipSpace();
        if (Consume("]")) return absl::OkStatus();
        if (!Consume(",")) return Error("expected ',' or ']'");
      }
    }
    if (c == '{') {
      ++pos_;
      v.type = JsonValue::Type::kObject;
      SkipSpace();
      if (Consume("}")) return absl::OkStatus();
      while (true) {
        SkipSpace();
        std::string key;
        if (absl::Status s = String(key); !s.ok()) return s;
        SkipSpace();
        if (!Consume(":")) return Error("expected ':'");
        v.member_names.push_back(std::move(key));
        v.member_values.emplace_back();
        if (absl::Status s = Value(v.member_values.back(), depth + 1); !s.ok()) return s;
        SkipSpace();
        if (Consume("}")) return absl::OkStatus();
        if (!Consume(",")) return Error("expected ',' or '}'");
      }
    }
    if (Consume("null")) return absl::OkStatus();
    if (Consume("true")) {
      v.type = JsonValue::Type::kBool;
      v.boolean = true;
      return absl::OkStatus();
    }
    if (Consume("false")) {
      v.type = JsonValue::Type::kBool;
      return absl::OkStatus();
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      const std::string number(text_.substr(pos_, text_.find_first_of(",]} \t\r\n", pos_) - pos_));
      char* end = nullptr;
      v.type = JsonValue::Type::kNumber;
      v.number = std::strtod(number.c_str(), &end);
      if (end != number.c_str() + number.size()) return Error("bad number");
      pos_ += number.size();
      return absl::OkStatus();
    }
    return Error("unexpected character");
  }

  absl::Status String(std::string& out) {
    if (!json::ReadJsonString(text_, pos_, out)) return Error("bad string");
    return absl::OkStatus();
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

const JsonValue* JsonValue::Find(std::string_view key) const {
  for (size_t i = 0; i < member_names.size(); ++i) {
    if (member_names[i] == key) return &member_values[i];
  }
  return nullptr;
}

absl::StatusOr<JsonValue> ParseJson(std::string_view text) { return Reader(text).Document(); }

}  // namespace crawler::url::testing
