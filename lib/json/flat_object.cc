#include "lib/json/flat_object.h"

#include "absl/strings/str_cat.h"
#include "lib/encoding/absl_view.h"
#include "lib/json/json_string.h"

namespace crawler::json {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  absl::StatusOr<FlatObject> Object() {
    FlatObject object;
    SkipSpace();
    if (!Consume('{')) return Error("'{'");
    SkipSpace();
    if (Consume('}')) return Finish(std::move(object));
    while (true) {
      SkipSpace();
      std::string name;
      if (!String(name)) return Error("a member name (a string)");
      SkipSpace();
      if (!Consume(':')) return Error("':'");
      SkipSpace();
      absl::StatusOr<FlatValue> value = Value();
      if (!value.ok()) return value.status();
      object.members.emplace_back(std::move(name), *std::move(value));
      SkipSpace();
      if (Consume('}')) return Finish(std::move(object));
      if (!Consume(',')) return Error("',' or '}'");
    }
  }

 private:
  absl::StatusOr<FlatObject> Finish(FlatObject object) {
    SkipSpace();
    if (pos_ != text_.size()) return Error("the end of the input");
    return object;
  }

  absl::StatusOr<FlatValue> Value() {
    FlatValue value;
    if (pos_ < text_.size() && text_[pos_] == '"') {
      value.kind = FlatValue::Kind::kString;
      if (!String(value.text)) return Error("a valid string");
      return value;
    }
    for (const auto& [literal, kind] :
         {std::pair{std::string_view("true"), FlatValue::Kind::kBool},
          std::pair{std::string_view("false"), FlatValue::Kind::kBool},
          std::pair{std::string_view("null"), FlatValue::Kind::kNull}}) {
      if (text_.substr(pos_, literal.size()) == literal) {
        pos_ += literal.size();
        value.kind = kind;
        value.text = std::string(literal);
        return value;
      }
    }
    // RFC 8259 §6: -? int frac? exp?, checked loosely (digits, sign, '.', 'e').
    const size_t begin = pos_;
    while (pos_ < text_.size() &&
           (std::string_view("0123456789+-.eE").find(text_[pos_]) != std::string_view::npos)) {
      ++pos_;
    }
    if (pos_ == begin) return Error("a scalar value (nested objects and arrays are not read)");
    value.kind = FlatValue::Kind::kNumber;
    value.text = std::string(text_.substr(begin, pos_ - begin));
    return value;
  }

  // Reads a string literal at pos_ into `out`; false if malformed.
  bool String(std::string& out) { return ReadJsonString(text_, pos_, out); }

  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool Consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  absl::Status Error(std::string_view expected) const {
    return absl::InvalidArgumentError(
        absl::StrCat("JSON: expected ", encoding::AsAbsl(expected), " at offset ", pos_));
  }

  const std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

const FlatValue* FlatObject::Find(std::string_view name) const {
  for (const auto& [key, value] : members) {
    if (key == name) return &value;
  }
  return nullptr;
}

absl::StatusOr<FlatObject> ParseFlatObject(std::string_view text) { return Parser(text).Object(); }

}  // namespace crawler::json
