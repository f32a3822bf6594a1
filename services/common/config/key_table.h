// KeyTable<T>: the one description of a component's configuration keys. Each key names a field
// of the options struct T (by pointer to member or by an accessor), its value kind (bool,
// integer, double, duration like "50ms"/"2s", string, string list, visit rate like "5/s"), its
// command-line flag and a one-line doc string. Its default is whatever a default-constructed T
// holds, so defaults are written once, in the struct.
//
// The same table loads a YAML mapping onto a T (Load, LoadFile), drives the command-line flags
// (FlagBinding in flag_binding.h) and is checked against docs/configuration.md by a test.
// Composite configurations include the tables of their components (Include), each under the
// member that holds that component's struct.
//
// Loading rejects, with kInvalidArgument naming the key: unknown keys (listing the known ones),
// keys given twice (yaml-cpp keeps both silently; the message names both lines), wrong types and bad values. Keys absent from
// the document keep the values `out` already holds. Validation of ranges and of combinations is
// the options struct's own business (e.g. a Validate() or Finalize()), after all sources are in.
//
// Thread-safety: a KeyTable is immutable once built; build it once (e.g. a function-local
// static) and share it.
#ifndef CRAWLER_SERVICES_COMMON_CONFIG_KEY_TABLE_H_
#define CRAWLER_SERVICES_COMMON_CONFIG_KEY_TABLE_H_

#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"

namespace crawler::config {

// How a key's value is written, in YAML and as a flag argument.
enum class ValueKind {
  kBool,        // true / false (YAML 1.1 spellings: yes, no, on, off too)
  kInteger,     // the field's integer type; unsigned fields reject negative numbers
  kDouble,      // a decimal number
  kDuration,    // a non-negative duration with its unit: 50ms, 2s, 1m, 1h30m ("0" is zero)
  kString,      // any text
  kStringList,  // a YAML sequence of strings; a flag appends one item per use
  kVisitRate,   // visits per day, written N/s, N/min, N/h, N/d or a plain number per day (> 0)
  kDays,        // a double field in days, written as a duration like kDuration (2s, 30m, 720h)
};

// What a key's command-line flag does. kAuto: kAppend for lists, kSetTrue for bools (kSetFalse
// when the flag starts with "--no-"), kValue otherwise.
enum class FlagStyle { kAuto, kValue, kAppend, kSetTrue, kSetFalse };

// A key as written in a table definition.
struct KeySpec {
  std::string name;  // the YAML key, e.g. "max_pages"
  std::string flag;  // e.g. "--max-pages"; empty: the key has no flag
  std::string doc;   // one line, for --help
  // Shown as the default instead of the struct's value, when that value reads badly (e.g.
  // "unlimited" for UINT64_MAX, "DATA_DIR/warc" for a path derived later).
  std::string default_text = {};
  FlagStyle flag_style = FlagStyle::kAuto;
};

// A visit rate: "N/s", "N/min", "N/h" or "N/d" (per day), or a plain number (per day). Returns
// visits per day; kInvalidArgument unless N is a positive finite number.
absl::StatusOr<double> ParseVisitRate(std::string_view text);

// A duration with its unit ("50ms", "2s", "1h30m", or "0"); kInvalidArgument if negative or
// malformed.
absl::StatusOr<absl::Duration> ParseNonNegativeDuration(std::string_view text);

// The one YAML document of `text` (a null node for an empty text). kInvalidArgument, naming
// `source`, for text that does not parse and for more than one document: a second document
// ("---" and more keys) would otherwise be dropped without a word.
absl::StatusOr<YAML::Node> ParseYamlDocument(std::string_view text, std::string_view source);

namespace internal {

std::string KindName(ValueKind kind);  // "an integer", "a duration", ...
// The error for a node of the wrong shape or text: `not an integer: "x"`.
absl::Status BadValue(const YAML::Node& node, ValueKind kind);
[[noreturn]] void DuplicateKeyInTable(const std::string& name);
// The text of a scalar `node`; BadValue for a list, mapping or null.
absl::Status DecodeScalar(const YAML::Node& node, ValueKind kind, std::string& text);
std::string FormatDouble(double value, ValueKind kind);
// Checks the mapping's keys against `known`: plain names, no duplicates, all known.
absl::Status CheckMapKeys(const YAML::Node& map, const std::vector<std::string>& known);
absl::StatusOr<YAML::Node> LoadYamlFile(const std::string& path);

template <typename F>
constexpr ValueKind KindOf() {
  if constexpr (std::is_same_v<F, bool>) {
    return ValueKind::kBool;
  } else if constexpr (std::is_integral_v<F>) {
    return ValueKind::kInteger;
  } else if constexpr (std::is_same_v<F, double>) {
    return ValueKind::kDouble;
  } else if constexpr (std::is_same_v<F, absl::Duration>) {
    return ValueKind::kDuration;
  } else if constexpr (std::is_same_v<F, std::string>) {
    return ValueKind::kString;
  } else if constexpr (std::is_same_v<F, std::vector<std::string>>) {
    return ValueKind::kStringList;
  } else {
    static_assert(std::is_integral_v<typename F::value_type>, "unsupported field type");
    return ValueKind::kInteger;  // std::optional<integer>: absent means "no limit"
  }
}

// Reads one value of field type F from `node`.
template <typename F>
absl::Status Decode(const YAML::Node& node, ValueKind kind, F& out) {
  if constexpr (std::is_same_v<F, std::vector<std::string>>) {
    if (!node.IsSequence()) return BadValue(node, kind);
    std::vector<std::string> items;
    for (const YAML::Node& item : node) {
      if (!item.IsScalar()) return BadValue(node, kind);
      items.push_back(item.Scalar());
    }
    out = std::move(items);
    return absl::OkStatus();
  } else if constexpr (std::is_same_v<F, absl::Duration>) {
    std::string text;
    if (absl::Status s = DecodeScalar(node, kind, text); !s.ok()) return s;
    absl::StatusOr<absl::Duration> d = ParseNonNegativeDuration(text);
    if (!d.ok()) return d.status();
    out = *d;
    return absl::OkStatus();
  } else if constexpr (std::is_same_v<F, std::string>) {
    return DecodeScalar(node, kind, out);
  } else if constexpr (std::is_same_v<F, double>) {
    if (kind == ValueKind::kDays) {
      std::string text;
      if (absl::Status s = DecodeScalar(node, kind, text); !s.ok()) return s;
      absl::StatusOr<absl::Duration> d = ParseNonNegativeDuration(text);
      if (!d.ok()) return d.status();
      out = absl::ToDoubleSeconds(*d) / 86400.0;
      return absl::OkStatus();
    }
    if (kind == ValueKind::kVisitRate) {
      std::string text;
      if (absl::Status s = DecodeScalar(node, kind, text); !s.ok()) return s;
      absl::StatusOr<double> rate = ParseVisitRate(text);
      if (!rate.ok()) return rate.status();
      out = *rate;
      return absl::OkStatus();
    }
    if (!node.IsScalar()) return BadValue(node, kind);
    try {
      out = node.as<double>();
    } catch (const YAML::Exception&) {
      return BadValue(node, kind);
    }
    return absl::OkStatus();
  } else if constexpr (std::is_same_v<F, bool> || std::is_integral_v<F>) {
    if (!node.IsScalar()) return BadValue(node, kind);
    try {
      out = node.as<F>();
    } catch (const YAML::Exception&) {
      return BadValue(node, kind);
    }
    return absl::OkStatus();
  } else {
    typename F::value_type value{};
    if (absl::Status s = Decode(node, kind, value); !s.ok()) return s;
    out = value;
    return absl::OkStatus();
  }
}

template <typename F>
std::string Format(const F& value, ValueKind kind) {
  if constexpr (std::is_same_v<F, bool>) {
    return value ? "true" : "false";
  } else if constexpr (std::is_integral_v<F>) {
    return absl::StrCat(value);
  } else if constexpr (std::is_same_v<F, double>) {
    return FormatDouble(value, kind);
  } else if constexpr (std::is_same_v<F, absl::Duration>) {
    return absl::FormatDuration(value);
  } else if constexpr (std::is_same_v<F, std::string>) {
    return value.empty() ? "none" : value;
  } else if constexpr (std::is_same_v<F, std::vector<std::string>>) {
    return value.empty() ? "none" : absl::StrJoin(value, ", ");
  } else {
    return value.has_value() ? absl::StrCat(*value) : "unlimited";
  }
}

}  // namespace internal

// One key of a table over T, with its operations type-erased.
template <typename T>
struct Key {
  std::string name;
  std::string flag;
  std::string doc;
  std::string default_text;  // empty: format(T{})
  ValueKind kind = ValueKind::kString;
  FlagStyle flag_style = FlagStyle::kValue;  // never kAuto here
  // Sets the field from a YAML value; the error does not name the key (the caller does).
  std::function<absl::Status(const YAML::Node&, T&)> set;
  // Lists only: appends one item (a flag given several times).
  std::function<void(std::string, T&)> append;
  std::function<std::string(const T&)> format;

  // The default as shown in --help and checked documentation.
  std::string DefaultText() const { return default_text.empty() ? format(T{}) : default_text; }
};

template <typename T>
class KeyTable {
 public:
  // Adds a key on the field `get(t)` (an accessor returning F&). `kind` defaults to the one of
  // F; pass ValueKind::kVisitRate for a double read as a rate, ValueKind::kDays for a double in
  // days read as a duration.
  template <typename F, typename Get>
  KeyTable& AddField(KeySpec spec, Get get, ValueKind kind = internal::KindOf<F>()) {
    Key<T> key;
    key.name = std::move(spec.name);
    key.flag = std::move(spec.flag);
    key.doc = std::move(spec.doc);
    key.default_text = std::move(spec.default_text);
    key.kind = kind;
    key.flag_style = ResolveStyle(spec.flag_style, kind, key.flag);
    key.set = [get, kind](const YAML::Node& node, T& t) {
      return internal::Decode<F>(node, kind, get(t));
    };
    if constexpr (std::is_same_v<F, std::vector<std::string>>) {
      key.append = [get](std::string item, T& t) { get(t).push_back(std::move(item)); };
    }
    // Accessors take a T&; formatting (for --help and documentation only) reads a copy.
    key.format = [get, kind](const T& t) {
      T copy = t;
      return internal::Format<F>(get(copy), kind);
    };
    return Push(std::move(key));
  }

  // Adds a key on a member of T.
  template <typename F>
  KeyTable& Add(KeySpec spec, F T::*field, ValueKind kind = internal::KindOf<F>()) {
    return AddField<F>(
        std::move(spec), [field](T& t) -> F& { return t.*field; }, kind);
  }

  // Adds a key that no longer exists but is still answered: given in a file (any value) or as
  // its flag (a flag without argument), loading fails with kInvalidArgument and `message`,
  // which says what replaced it, so an old configuration gets a clear answer rather than
  // "unknown key". Its default reads "retired".
  KeyTable& AddRetired(KeySpec spec, std::string message) {
    Key<T> key;
    key.name = std::move(spec.name);
    key.flag = std::move(spec.flag);
    key.doc = std::move(spec.doc);
    key.default_text = "retired";
    key.kind = ValueKind::kBool;
    key.flag_style = FlagStyle::kSetTrue;
    key.set = [message = std::move(message)](const YAML::Node&, T&) {
      return absl::InvalidArgumentError(message);
    };
    key.format = [](const T&) { return std::string("retired"); };
    return Push(std::move(key));
  }

  // Adds every key of `sub`, applied to the Sub that `get(t)` returns (e.g. a member).
  template <typename Sub, typename Get>
  KeyTable& IncludeAt(const KeyTable<Sub>& sub, Get get) {
    for (const Key<Sub>& k : sub.keys()) {
      Key<T> key;
      key.name = k.name;
      key.flag = k.flag;
      key.doc = k.doc;
      key.default_text = k.default_text;
      key.kind = k.kind;
      key.flag_style = k.flag_style;
      key.set = [get, set = k.set](const YAML::Node& node, T& t) { return set(node, get(t)); };
      if (k.append) {
        key.append = [get, append = k.append](std::string item, T& t) {
          append(std::move(item), get(t));
        };
      }
      // Sub's own default, as the component defines it, unless T's member holds another.
      key.format = [get, format = k.format](const T& t) {
        T copy = t;
        return format(get(copy));
      };
      Push(std::move(key));
    }
    return *this;
  }

  // Adds every key of `sub` on the member `member` of T.
  template <typename Sub>
  KeyTable& Include(const KeyTable<Sub>& sub, Sub T::*member) {
    return IncludeAt(sub, [member](T& t) -> Sub& { return t.*member; });
  }

  const std::vector<Key<T>>& keys() const { return keys_; }

  // nullptr if there is no such key.
  const Key<T>* Find(std::string_view name) const {
    for (const Key<T>& k : keys_) {
      if (k.name == name) return &k;
    }
    return nullptr;
  }

  // Applies a YAML mapping (null: nothing) onto `out`. Errors as in the file comment, prefixed
  // with "config key \"NAME\": " for a key's value.
  absl::Status Load(const YAML::Node& map, T& out) const {
    if (map.IsNull()) return absl::OkStatus();
    std::vector<std::string> names;
    names.reserve(keys_.size());
    for (const Key<T>& k : keys_) names.push_back(k.name);
    if (absl::Status s = internal::CheckMapKeys(map, names); !s.ok()) return s;
    for (const auto& entry : map) {
      const Key<T>* key = Find(entry.first.Scalar());
      if (absl::Status s = key->set(entry.second, out); !s.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("config key \"", key->name, "\": ", s.message()));
      }
    }
    return absl::OkStatus();
  }

  // Load() of a YAML file; kNotFound if it cannot be read. Errors name the file.
  absl::Status LoadFile(const std::string& path, T& out) const {
    absl::StatusOr<YAML::Node> root = internal::LoadYamlFile(path);
    if (!root.ok()) return root.status();
    if (absl::Status s = Load(*root, out); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("config file ", path, ": ", s.message()));
    }
    return absl::OkStatus();
  }

 private:
  static FlagStyle ResolveStyle(FlagStyle style, ValueKind kind, const std::string& flag) {
    if (style != FlagStyle::kAuto) return style;
    if (kind == ValueKind::kStringList) return FlagStyle::kAppend;
    if (kind == ValueKind::kBool) {
      return flag.rfind("--no-", 0) == 0 ? FlagStyle::kSetFalse : FlagStyle::kSetTrue;
    }
    return FlagStyle::kValue;
  }

  KeyTable& Push(Key<T> key) {
    for (const Key<T>& k : keys_) {
      if (k.name == key.name || (!key.flag.empty() && k.flag == key.flag)) {
        internal::DuplicateKeyInTable(key.name);
      }
    }
    keys_.push_back(std::move(key));
    return *this;
  }

  std::vector<Key<T>> keys_;
};

}  // namespace crawler::config

#endif  // CRAWLER_SERVICES_COMMON_CONFIG_KEY_TABLE_H_
