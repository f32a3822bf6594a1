// libFuzzer target for lib/http: the input is a whole response as received -- a header block
// (possibly several: 1xx interim heads) and a body -- split at the first blank line. Drives what
// the fetcher does with untrusted responses: ResponseHead::Parse and PeekStatus, the typed
// accessors, chunked decoding (EntityBody and DecodeChunked), content decoding under a small
// output cap, sniffing and HTTP-date parsing. Properties checked, abort() on violation:
//   - PeekStatus agrees with Parse (same code where Parse succeeds, nullopt where it fails);
//   - a parsed head keeps at most kMaxFields fields;
//   - DecodeChunked never yields more bytes than it was given;
//   - DecodeContent never yields more than its cap.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/http/chunked_decoder.h"
#include "lib/http/content_decoder.h"
#include "lib/http/content_sniffer.h"
#include "lib/http/http_date.h"
#include "lib/http/response_head.h"

namespace {

constexpr size_t kMaxDecodedBytes = 1 << 20;

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace http = crawler::http;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t split = input.find("\r\n\r\n");
  split = split == std::string_view::npos ? input.find("\n\n") : split + 2;
  const std::string_view raw_head =
      split == std::string_view::npos ? input : input.substr(0, split + 2);
  const std::string_view body =
      split == std::string_view::npos ? std::string_view() : input.substr(split + 2);

  const auto head = http::ResponseHead::Parse(raw_head);
  const std::optional<int> peeked = http::ResponseHead::PeekStatus(raw_head);
  if (!head.ok()) {
    Check(!peeked.has_value());
  } else {
    Check(peeked.has_value() && *peeked == head->status());
    Check(head->fields().size() <= http::ResponseHead::kMaxFields);
    (void)head->Get("content-type");
    (void)head->GetCombined("set-cookie");
    const http::MediaType type = head->content_type();
    (void)http::SniffContentType(type.essence, body);
    (void)http::IsHtml(type.essence);
    if (const auto date = head->Get("last-modified")) (void)http::ParseHttpDate(*date);
    (void)http::ParseHttpDate(head->reason());

    std::string dechunked;
    const std::string_view entity = http::EntityBody(*head, body, dechunked);
    const auto decoded = http::DecodeContent(entity, head->content_encodings(), kMaxDecodedBytes);
    if (decoded.ok()) Check(decoded->size() <= kMaxDecodedBytes);
  }

  const auto chunks = http::DecodeChunked(body);
  if (chunks.ok()) Check(chunks->data.size() <= body.size());
  (void)http::IsChunked(raw_head);
  // Every coding on the raw body, alone and stacked, as a server could declare them.
  for (const std::vector<std::string>& codings :
       {std::vector<std::string>{"gzip"}, {"deflate"}, {"br"}, {"gzip", "br"}}) {
    const auto decoded = http::DecodeContent(body, codings, kMaxDecodedBytes);
    if (decoded.ok()) Check(decoded->size() <= kMaxDecodedBytes);
  }
  return 0;
}
