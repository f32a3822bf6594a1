#include "lib/html/gumbo_tree.h"

#include <gumbo.h>

#include <algorithm>
#include <csetjmp>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace crawler::html {
namespace {

// How a parse in progress is abandoned: a longjmp back into Parse, with the reason.
struct Escape {
  std::jmp_buf buf;
  const char* assertion = nullptr;  // set when a Gumbo assertion failed
  const char* file = nullptr;
  unsigned line = 0;
};

// The escape of the Gumbo parse running on this thread, if any; read by __assert_fail below.
// It is the only state outside a GumboTree, and exists only while gumbo_parse_with_options
// runs.
thread_local Escape* t_running_parse = nullptr;

}  // namespace

// Every block handed to Gumbo is preceded by a header linking it into a list, so that the whole
// tree (or an abandoned parse) can be freed without Gumbo's help.
class GumboTree::Arena {
 public:
  explicit Arena(size_t budget_bytes) : budget_(budget_bytes) {
    head_.prev = head_.next = &head_;
  }
  ~Arena() {
    for (Header* h = head_.next; h != &head_;) {
      Header* next = h->next;
      std::free(h);
      h = next;
    }
  }
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  size_t peak() const { return peak_; }

  // Set while Gumbo runs; where Allocate jumps to when the budget is spent.
  Escape* escape = nullptr;

  static void* Allocate(void* userdata, size_t size) {
    auto* arena = static_cast<Arena*>(userdata);
    // live_ <= budget_ always holds, so the subtraction cannot wrap.
    if (size > arena->budget_ - arena->live_) std::longjmp(arena->escape->buf, 1);
    void* raw = std::malloc(sizeof(Header) + size);
    if (raw == nullptr) std::longjmp(arena->escape->buf, 1);
    auto* h = static_cast<Header*>(raw);
    h->size = size;
    h->prev = &arena->head_;
    h->next = arena->head_.next;
    arena->head_.next->prev = h;
    arena->head_.next = h;
    arena->live_ += size;
    arena->peak_ = std::max(arena->peak_, arena->live_);
    return h + 1;
  }

  static void Deallocate(void* userdata, void* ptr) {
    if (ptr == nullptr) return;
    auto* arena = static_cast<Arena*>(userdata);
    Header* h = static_cast<Header*>(ptr) - 1;
    h->prev->next = h->next;
    h->next->prev = h->prev;
    arena->live_ -= h->size;
    std::free(h);
  }

 private:
  // Padded so that the payload after it keeps malloc's alignment.
  struct alignas(alignof(std::max_align_t)) Header {
    Header* prev;
    Header* next;
    size_t size;
  };

  Header head_{};
  const size_t budget_;
  size_t live_ = 0;
  size_t peak_ = 0;
};

namespace {

// Kept apart from Parse so that the frame setjmp returns to twice holds no object with a
// destructor and no local modified after setjmp.
GumboOutput* ParseOrNull(const GumboOptions* options, const char* data, size_t size,
                         Escape* escape) {
  if (setjmp(escape->buf) != 0) return nullptr;
  return gumbo_parse_with_options(options, data, size);
}

}  // namespace

absl::StatusOr<GumboTree> GumboTree::Parse(std::string_view utf8, size_t max_memory_bytes) {
  auto arena = std::make_unique<Arena>(max_memory_bytes);
  Escape escape;
  arena->escape = &escape;
  GumboOptions options = kGumboDefaultOptions;
  options.allocator = &Arena::Allocate;
  options.deallocator = &Arena::Deallocate;
  options.userdata = arena.get();
  options.max_errors = 0;
  Escape* const outer = std::exchange(t_running_parse, &escape);
  GumboOutput* output = ParseOrNull(&options, utf8.data(), utf8.size(), &escape);
  t_running_parse = outer;
  arena->escape = nullptr;
  if (output == nullptr && escape.assertion != nullptr) {
    return absl::InternalError(absl::StrCat("HTML parser assertion failed: ", escape.assertion,
                                            " (", escape.file, ":", escape.line, ")"));
  }
  if (output == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("HTML parser memory budget of ", max_memory_bytes, " bytes exceeded"));
  }
  return GumboTree(std::move(arena), output);
}

GumboTree::GumboTree(std::unique_ptr<Arena> arena, GumboInternalOutput* output)
    : arena_(std::move(arena)), output_(output) {}

GumboTree::GumboTree(GumboTree&& other) noexcept
    : arena_(std::move(other.arena_)), output_(std::exchange(other.output_, nullptr)) {}

GumboTree& GumboTree::operator=(GumboTree&& other) noexcept {
  arena_ = std::move(other.arena_);
  output_ = std::exchange(other.output_, nullptr);
  return *this;
}

GumboTree::~GumboTree() = default;

const GumboInternalNode* GumboTree::document() const { return output_->document; }

size_t GumboTree::peak_memory_bytes() const { return arena_->peak(); }

}  // namespace crawler::html

// glibc's assert() calls this; defining it here takes precedence over libc's for this process
// (libgumbo's references bind to the executable's definition). Debian builds Gumbo 0.10 with
// assertions on, and a few inputs reach failing ones (e.g. a MathML <select> inside a table, see
// gumbo_tree_test.cc): inside a parse the failure abandons the parse instead of the process.
// Anywhere else it does what glibc does: print the message and abort.
extern "C" [[noreturn]] void __assert_fail(const char* assertion, const char* file,
                                           unsigned int line, const char* function) noexcept {
  if (crawler::html::Escape* escape = crawler::html::t_running_parse) {
    escape->assertion = assertion;
    escape->file = file;
    escape->line = line;
    std::longjmp(escape->buf, 2);
  }
  std::fprintf(stderr, "%s:%u: %s: Assertion `%s' failed.\n", file, line,
               function != nullptr ? function : "?", assertion);
  std::abort();
}
