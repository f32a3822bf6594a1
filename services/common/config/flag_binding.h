// FlagBinding<T>: the command-line flags of a KeyTable<T> (key_table.h) on a CLI11 app. Every
// key with a flag name gets one option, described by the key's doc string and its default, so
// `--help` lists the same keys, defaults and wording as the table. After parsing, Apply() sets
// the flags that were given onto a T (typically one already loaded from YAML, so flags override
// the file), decoding each argument exactly as the YAML value of the same key would be.
//
// Flag styles (FlagStyle): kValue takes one argument and replaces the field; kAppend takes one
// or more arguments per use, may be repeated, and appends to the list (the file's items are
// kept); kSetTrue / kSetFalse take no argument and set the bool.
//
// Ownership: the table must outlive the binding, and the binding must outlive the app's parsing
// (CLI11 writes into storage the binding owns). Not thread-safe.
#ifndef CRAWLER_SERVICES_COMMON_CONFIG_FLAG_BINDING_H_
#define CRAWLER_SERVICES_COMMON_CONFIG_FLAG_BINDING_H_

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "services/common/config/key_table.h"

namespace crawler::config {

namespace internal {
// The value placeholder --help shows for a kind ("N", "DURATION", ...).
std::string FlagTypeName(ValueKind kind);
}  // namespace internal

template <typename T>
class FlagBinding {
 public:
  // Adds the options to `app`.
  FlagBinding(const KeyTable<T>& table, CLI::App& app) {
    for (const Key<T>& key : table.keys()) {
      if (key.flag.empty()) continue;
      auto bound = std::make_unique<Bound>();
      bound->key = &key;
      switch (key.flag_style) {
        case FlagStyle::kSetTrue:
        case FlagStyle::kSetFalse:
          bound->option = app.add_flag(key.flag, bound->set, key.doc);
          break;
        case FlagStyle::kAppend:
          bound->option = app.add_option(key.flag, bound->values, Describe(key))
                              ->type_name(internal::FlagTypeName(key.kind));
          break;
        case FlagStyle::kValue:
        case FlagStyle::kAuto:
          bound->option = app.add_option(key.flag, bound->value, Describe(key))
                              ->type_name(internal::FlagTypeName(key.kind));
          break;
      }
      bound_.push_back(std::move(bound));
    }
  }

  // Sets the given flags onto `out`, in table order. kInvalidArgument naming the flag for a bad
  // argument ("--min-delay: not a duration: ...").
  absl::Status Apply(T& out) const {
    for (const std::unique_ptr<Bound>& b : bound_) {
      if (b->option->count() == 0) continue;
      const Key<T>& key = *b->key;
      absl::Status s;
      switch (key.flag_style) {
        case FlagStyle::kSetTrue:
        case FlagStyle::kSetFalse:
          if (b->set) s = key.set(YAML::Node(key.flag_style == FlagStyle::kSetTrue), out);
          break;
        case FlagStyle::kAppend:
          for (const std::string& item : b->values) key.append(item, out);
          break;
        case FlagStyle::kValue:
        case FlagStyle::kAuto:
          s = key.set(YAML::Node(b->value), out);
          break;
      }
      if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat(key.flag, ": ", s.message()));
    }
    return absl::OkStatus();
  }

  // Whether the flag of the key `name` was given.
  bool Given(std::string_view name) const {
    for (const std::unique_ptr<Bound>& b : bound_) {
      if (b->key->name == name) return b->option->count() > 0;
    }
    return false;
  }

 private:
  struct Bound {
    const Key<T>* key = nullptr;
    CLI::Option* option = nullptr;
    std::string value;
    std::vector<std::string> values;
    bool set = false;
  };

  static std::string Describe(const Key<T>& key) {
    return absl::StrCat(key.doc, " (default ", key.DefaultText(), ")");
  }

  std::vector<std::unique_ptr<Bound>> bound_;
};

}  // namespace crawler::config

#endif  // CRAWLER_SERVICES_COMMON_CONFIG_FLAG_BINDING_H_
