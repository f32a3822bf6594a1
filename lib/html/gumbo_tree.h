// GumboTree: a Gumbo parse tree whose memory is bounded.
//
// Gumbo 0.10 allocates without limit and does not check for allocation failure, and the HTML
// tree builder can turn small input into very large trees (re-opening the active formatting
// elements after every block: a 45 KB document makes 1.5 GB). So every allocation goes through
// an arena owned by the tree: it tracks live bytes and, when the next allocation would pass the
// budget, abandons the parse (a longjmp out of Gumbo's allocator callback back into Parse; Gumbo
// is C and owns no resources but what it allocated from the arena) and frees everything.
// Freeing the arena is also how the tree is destroyed, so gumbo_destroy_output's recursion over
// deep trees never runs.
//
// Gumbo's own assertion failures (Debian builds it with assertions on, and some malformed
// inputs reach failing ones) abandon the parse the same way: gumbo_tree.cc defines glibc's
// __assert_fail for the process, which jumps back out when a parse is running on the calling
// thread and otherwise prints and aborts exactly as glibc does.
//
// Thread-safety: a GumboTree is immutable once built and may be read from several threads;
// Parse may run concurrently (no shared state).
#ifndef CRAWLER_LIB_HTML_GUMBO_TREE_H_
#define CRAWLER_LIB_HTML_GUMBO_TREE_H_

#include <cstddef>
#include <memory>
#include <string_view>

#include "absl/status/statusor.h"

// Gumbo's types, declared here so that users of this header need not include gumbo.h.
struct GumboInternalNode;
struct GumboInternalOutput;

namespace crawler::html {

class GumboTree {
 public:
  // Parses `utf8` (well-formed UTF-8), which must outlive the tree: Gumbo keeps pointers into
  // it. Parse errors are not recorded (nobody reads them, and recording them is quadratic).
  // Errors: kResourceExhausted if the parser needs more than `max_memory_bytes` of live memory;
  // kInternal if one of Gumbo's assertions failed on this input.
  static absl::StatusOr<GumboTree> Parse(std::string_view utf8, size_t max_memory_bytes);

  GumboTree(GumboTree&& other) noexcept;
  GumboTree& operator=(GumboTree&& other) noexcept;
  GumboTree(const GumboTree&) = delete;
  GumboTree& operator=(const GumboTree&) = delete;
  ~GumboTree();

  // The document node (GUMBO_NODE_DOCUMENT). Owned by the tree.
  const GumboInternalNode* document() const;
  // The most live memory the parse used, in bytes (payload, not counting allocator overhead).
  size_t peak_memory_bytes() const;

 private:
  class Arena;
  GumboTree(std::unique_ptr<Arena> arena, GumboInternalOutput* output);

  std::unique_ptr<Arena> arena_;
  GumboInternalOutput* output_ = nullptr;  // lives in arena_
};

}  // namespace crawler::html

#endif  // CRAWLER_LIB_HTML_GUMBO_TREE_H_
