#include "lib/sitemap/sitemap_parser.h"

#include <expat.h>
#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lib/encoding/absl_view.h"
#include "lib/encoding/ascii.h"
#include "lib/encoding/utf8.h"
#include "lib/sitemap/w3c_datetime.h"

namespace crawler::sitemap {
namespace {

static_assert(std::is_same_v<XML_Char, char>, "expat must be built for UTF-8 (XML_Char == char)");

// Inflated bytes come out through this fixed window; a gzip bomb can overshoot the byte cap by at
// most this much, and only into this buffer.
constexpr size_t kInflateWindowBytes = 64 * 1024;
// zlib takes uInt lengths; bigger chunks are inflated in slices.
constexpr size_t kMaxSliceBytes = size_t{1} << 20;
// expat takes int lengths. Slices must be large: each XML_Parse call rescans an unfinished token.
constexpr size_t kMaxXmlSliceBytes = size_t{1} << 30;
// Below this many bytes of unfinished token, data goes to expat at once (see FeedXml).
constexpr int64_t kMinDeferredTokenBytes = 4096;
// lastmod, changefreq and priority are short: the longest valid value is a lastmod of ~35 bytes
// ("1997-07-16T19:20:30.123456789+01:00"); the slack admits long fractions of a second.
constexpr size_t kMaxFieldBytes = 128;
// expat allocates per open element (~50 bytes of state per 3 input bytes of "<x>"), so nesting is
// capped far above anything a sitemap with extensions needs (about 5 levels).
constexpr int64_t kMaxElementDepth = 256;
// Element names quoted in error messages come from the document; keep messages short.
constexpr size_t kMaxQuotedNameBytes = 64;
// With XML_ParserCreateNS, expat reports "namespace-URI<sep>local-name". A space cannot occur in
// a local name, and we split at the last one, so a (malformed) URI containing spaces is harmless.
constexpr XML_Char kNamespaceSeparator = ' ';

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
constexpr std::string_view kGzipMagic = "\x1F\x8B";

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The official namespace, its https:// and trailing-slash misspellings, and Google's
// pre-sitemaps.org namespaces, all of which occur in real sitemaps with the same elements.
bool IsSitemapNamespace(std::string_view uri) {
  if (uri.ends_with('/')) uri.remove_suffix(1);
  for (const std::string_view prefix : {"http://", "https://", "www."}) {
    if (uri.starts_with(prefix)) uri.remove_prefix(prefix.size());
  }
  return encoding::EqualsIgnoreCase(uri, "sitemaps.org/schemas/sitemap/0.9") ||
         encoding::EqualsIgnoreCase(uri, "google.com/schemas/sitemap/0.9") ||
         encoding::EqualsIgnoreCase(uri, "google.com/schemas/sitemap/0.84");
}

struct ElementName {
  bool in_sitemap_namespace;  // the sitemaps.org namespace or no namespace at all
  std::string_view local;
};

ElementName SplitName(std::string_view name) {
  const size_t separator = name.rfind(kNamespaceSeparator);
  if (separator == std::string_view::npos) return {true, name};
  return {IsSitemapNamespace(name.substr(0, separator)), name.substr(separator + 1)};
}

// "{namespace}local" (Clark notation), shortened for messages.
std::string QuoteName(std::string_view name) {
  std::string quoted;
  const size_t separator = name.rfind(kNamespaceSeparator);
  if (separator == std::string_view::npos) {
    quoted = std::string(name);
  } else {
    quoted = absl::StrCat("{", encoding::AsAbsl(name.substr(0, separator)), "}",
                          encoding::AsAbsl(name.substr(separator + 1)));
  }
  if (quoted.size() > kMaxQuotedNameBytes) {
    quoted.resize(kMaxQuotedNameBytes);
    quoted += "...";
  }
  return quoted;
}

// "0.8", "1", "1.0", ".5": the protocol's decimal, without the exponents, hex, "inf" and "nan"
// that strtod would also take.
std::optional<double> ParsePriority(std::string_view text) {
  bool digit_seen = false, dot_seen = false;
  for (const char c : text) {
    if (c >= '0' && c <= '9') {
      digit_seen = true;
    } else if (c == '.' && !dot_seen) {
      dot_seen = true;
    } else {
      return std::nullopt;
    }
  }
  double value = 0;
  if (!digit_seen || !absl::SimpleAtod(encoding::AsAbsl(text), &value)) return std::nullopt;
  if (value < 0.0 || value > 1.0) return std::nullopt;
  return value;
}

// Valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF) without C0 controls
// or DEL, which no URL contains and which mark binary junk served as a text sitemap.
bool IsCleanUtf8Line(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x20 || byte == 0x7F) return false;
    const encoding::Utf8Sequence sequence = encoding::DecodeUtf8Sequence(text.substr(i));
    if (!sequence.valid) return false;
    i += sequence.length;
  }
  return true;
}

// The text of one field or line, trimmed of surrounding whitespace as it arrives in pieces, and
// never holding more than `limit` bytes: leading whitespace is dropped, whitespace after the
// last content byte is held back until more content proves it internal, and content beyond the
// limit turns the whole text into an overflow. So memory stays bounded even for a <loc> of a
// gigabyte of spaces, while a loc of exactly `limit` bytes with any amount of padding still fits.
class TrimmedText {
 public:
  void Reset(size_t limit) {
    limit_ = limit;
    text_.clear();
    pending_space_.clear();
    pending_too_long_ = false;
    overflow_ = false;
  }

  void Append(std::string_view piece) {
    if (overflow_) return;
    if (text_.empty()) {
      while (!piece.empty() && IsSpace(piece.front())) piece.remove_prefix(1);
    }
    if (piece.empty()) return;
    size_t content_end = piece.size();
    while (content_end > 0 && IsSpace(piece[content_end - 1])) --content_end;
    if (content_end == 0) {
      HoldSpace(piece);
      return;
    }
    if (pending_too_long_ || text_.size() + pending_space_.size() + content_end > limit_) {
      overflow_ = true;
      text_.clear();
      pending_space_.clear();
      return;
    }
    text_ += pending_space_;
    pending_space_.clear();
    text_.append(piece.substr(0, content_end));
    HoldSpace(piece.substr(content_end));
  }

  bool overflow() const { return overflow_; }

  // The trimmed text (empty after an overflow); the object must be Reset() before reuse.
  std::string Take() { return std::move(text_); }

 private:
  void HoldSpace(std::string_view space) {
    if (pending_too_long_) return;
    if (text_.size() + pending_space_.size() + space.size() > limit_) {
      // Any further content would overflow; without it this space is trailing and trimmed.
      pending_too_long_ = true;
      pending_space_.clear();
      return;
    }
    pending_space_.append(space);
  }

  size_t limit_ = 0;
  std::string text_;           // first to last content byte seen so far
  std::string pending_space_;  // whitespace after text_, internal only if content follows
  bool pending_too_long_ = false;
  bool overflow_ = false;
};

size_t ClampToSize(int64_t value) { return value < 0 ? 0 : static_cast<size_t>(value); }

}  // namespace

std::string_view SitemapKindName(SitemapKind kind) {
  switch (kind) {
    case SitemapKind::kUnknown:
      return "unknown";
    case SitemapKind::kUrlset:
      return "urlset";
    case SitemapKind::kSitemapIndex:
      return "sitemapindex";
    case SitemapKind::kText:
      return "text";
  }
  return "unknown";
}

// Three stages, each feeding the next:
//   framing: detects gzip by its magic bytes and inflates (multi-member streams included);
//   cap:     counts uncompressed bytes against max_uncompressed_bytes;
//   syntax:  skips a byte-order mark and leading whitespace, decides XML or text, and parses.
class SitemapParser::Impl {
 public:
  Impl(SitemapOptions options, EntryCallback on_entry)
      : max_urls_(std::max<int64_t>(options.max_urls, 0)),
        max_uncompressed_bytes_(std::max<int64_t>(options.max_uncompressed_bytes, 0)),
        max_loc_bytes_(ClampToSize(options.max_loc_bytes)),
        on_entry_(std::move(on_entry)) {}

  ~Impl() {
    if (xml_ != nullptr) XML_ParserFree(xml_);
    if (inflating_) inflateEnd(&zstream_);
  }

  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  absl::Status Feed(std::string_view chunk) {
    if (finished_) return absl::FailedPreconditionError("SitemapParser::Feed after Finish");
    if (!status_.ok()) return status_;
    while (!chunk.empty() && status_.ok()) {
      const size_t slice = std::min(chunk.size(), kMaxSliceBytes);
      FeedFramed(chunk.substr(0, slice));
      chunk.remove_prefix(slice);
    }
    return status_;
  }

  absl::Status Finish() {
    if (finished_) return absl::FailedPreconditionError("SitemapParser::Finish called twice");
    finished_ = true;
    if (!status_.ok()) return status_;
    FinishFraming();
    if (status_.ok()) FinishSyntax();
    return status_;
  }

  SitemapKind kind() const { return kind_; }
  const SitemapStats& stats() const { return stats_; }

 private:
  enum class Framing {
    kDetecting,    // fewer than two bytes seen
    kPlain,        // not gzip
    kGzipMember,   // inside a gzip member
    kGzipBetween,  // a member ended: another one may follow
    kGzipTrailer,  // bytes after the last member that are not one: ignored, as gzip(1) does
  };
  enum class Syntax { kSniffing, kXml, kText };
  enum class Field { kNone, kLoc, kLastmod, kChangefreq, kPriority };

  void Fail(absl::Status status) {
    // Bytes held back from expat (see FeedXml) may complete entries that precede the failure.
    if (status_.ok() && !in_xml_parse_ && !xml_held_.empty()) {
      ParseXml(std::exchange(xml_held_, {}), /*final=*/false);
    }
    if (status_.ok()) status_ = std::move(status);
    // Inside one of expat's callbacks, make XML_Parse return now; outside, we never call it again.
    if (in_xml_parse_) XML_StopParser(xml_, XML_FALSE);
  }

  // ---- framing ----

  void FeedFramed(std::string_view bytes) {
    while (!bytes.empty() && status_.ok()) {
      switch (framing_) {
        case Framing::kDetecting:
        case Framing::kGzipBetween: {
          const size_t take = std::min(kGzipMagic.size() - magic_.size(), bytes.size());
          magic_.append(bytes.substr(0, take));
          bytes.remove_prefix(take);
          if (magic_.size() < kGzipMagic.size()) return;
          const std::string magic = std::exchange(magic_, {});
          if (magic == kGzipMagic) {
            if (!StartGzipMember()) return;
            bytes = Inflate(magic, bytes);
          } else if (framing_ == Framing::kDetecting) {
            framing_ = Framing::kPlain;
            FeedCapped(magic);
          } else {
            framing_ = Framing::kGzipTrailer;
          }
          break;
        }
        case Framing::kPlain:
          FeedCapped(bytes);
          return;
        case Framing::kGzipMember:
          bytes = Inflate({}, bytes);
          break;
        case Framing::kGzipTrailer:
          return;
      }
    }
  }

  bool StartGzipMember() {
    if (!inflating_) {
      // 16 + MAX_WBITS: a gzip wrapper, not zlib or raw deflate.
      if (inflateInit2(&zstream_, 16 + MAX_WBITS) != Z_OK) {
        Fail(absl::ResourceExhaustedError("cannot initialise zlib"));
        return false;
      }
      inflating_ = true;
      window_ = std::make_unique<unsigned char[]>(kInflateWindowBytes);
      stats_.gzip = true;
    } else if (inflateReset(&zstream_) != Z_OK) {
      Fail(absl::InternalError("cannot reset zlib"));
      return false;
    }
    framing_ = Framing::kGzipMember;
    return true;
  }

  // Inflates `head` then `bytes` (head: the magic bytes already taken off the input). Returns
  // the part of `bytes` after the end of the member, if it ended.
  std::string_view Inflate(std::string_view head, std::string_view bytes) {
    // Two bytes cannot end a member, so nothing of `head` is left over.
    if (!head.empty()) InflateSlice(head);
    if (!status_.ok() || framing_ != Framing::kGzipMember) return {};
    return InflateSlice(bytes);
  }

  std::string_view InflateSlice(std::string_view in) {
    zstream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    zstream_.avail_in = static_cast<uInt>(in.size());
    while (status_.ok()) {
      zstream_.next_out = window_.get();
      zstream_.avail_out = static_cast<uInt>(kInflateWindowBytes);
      const int rc = inflate(&zstream_, Z_NO_FLUSH);
      // What came out before a corruption was detected is delivered first.
      const size_t produced = kInflateWindowBytes - zstream_.avail_out;
      FeedCapped(std::string_view(reinterpret_cast<const char*>(window_.get()), produced));
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
        Fail(absl::InvalidArgumentError(absl::StrCat(
            "corrupt gzip stream: ", zstream_.msg != nullptr ? zstream_.msg : "inflate failed")));
        return {};
      }
      if (rc == Z_STREAM_END) {
        framing_ = Framing::kGzipBetween;
        return in.substr(in.size() - zstream_.avail_in);
      }
      // A window that was not filled means inflate ran out of input.
      if (zstream_.avail_out != 0) break;
    }
    return {};
  }

  void FinishFraming() {
    switch (framing_) {
      case Framing::kDetecting:
        framing_ = Framing::kPlain;
        FeedCapped(std::exchange(magic_, {}));
        break;
      case Framing::kGzipMember:
        Fail(absl::InvalidArgumentError("truncated gzip stream"));
        break;
      case Framing::kPlain:
      case Framing::kGzipBetween:
      case Framing::kGzipTrailer:
        break;
    }
  }

  // ---- the byte cap ----

  void FeedCapped(std::string_view bytes) {
    if (!status_.ok() || bytes.empty()) return;
    const auto room = static_cast<size_t>(max_uncompressed_bytes_ - stats_.uncompressed_bytes);
    if (bytes.size() <= room) {
      stats_.uncompressed_bytes += static_cast<int64_t>(bytes.size());
      FeedSyntax(bytes);
      return;
    }
    // The entries inside the allowed prefix are still delivered.
    stats_.uncompressed_bytes += static_cast<int64_t>(room);
    FeedSyntax(bytes.substr(0, room));
    if (status_.ok()) {
      stats_.truncated = true;
      Fail(absl::ResourceExhaustedError(
          absl::StrCat("sitemap is larger than ", max_uncompressed_bytes_,
                       " bytes uncompressed (the sitemaps.org limit is 52,428,800)")));
    }
  }

  // ---- syntax ----

  void FeedSyntax(std::string_view bytes) {
    if (syntax_ == Syntax::kSniffing && !bom_checked_) {
      const size_t take = std::min(kUtf8Bom.size() - head_.size(), bytes.size());
      head_.append(bytes.substr(0, take));
      bytes.remove_prefix(take);
      if (head_.size() < kUtf8Bom.size()) return;
      CheckByteOrderMark();
      DispatchSyntax(std::exchange(head_, {}));
    }
    DispatchSyntax(bytes);
  }

  // The first three bytes are in head_. A UTF-8 mark is dropped (so that whitespace after it can
  // be skipped); a UTF-16 mark means XML, which expat decodes.
  void CheckByteOrderMark() {
    bom_checked_ = true;
    if (head_.starts_with(kUtf8Bom)) {
      head_.clear();
    } else if (head_.starts_with("\xFE\xFF") || head_.starts_with("\xFF\xFE")) {
      StartXml();
    }
  }

  void DispatchSyntax(std::string_view bytes) {
    if (!status_.ok()) return;
    if (syntax_ == Syntax::kSniffing) {
      // Whitespace before "<?xml" is a well-formedness error that many servers commit; skipping
      // it costs nothing and it is never part of a text sitemap's first URL either.
      while (!bytes.empty() && IsSpace(bytes.front())) bytes.remove_prefix(1);
      if (bytes.empty()) return;
      if (bytes.front() == '<') {
        StartXml();
      } else {
        StartText();
      }
    }
    if (!status_.ok()) return;
    if (syntax_ == Syntax::kXml) {
      FeedXml(bytes, /*final=*/false);
    } else {
      FeedText(bytes);
    }
  }

  void FinishSyntax() {
    if (syntax_ == Syntax::kSniffing && !bom_checked_) {
      CheckByteOrderMark();
      DispatchSyntax(std::exchange(head_, {}));
    }
    if (!status_.ok()) return;
    switch (syntax_) {
      case Syntax::kSniffing:
        // Nothing but whitespace: a text sitemap without URLs.
        StartText();
        break;
      case Syntax::kXml:
        FeedXml({}, /*final=*/true);
        break;
      case Syntax::kText:
        EndTextLine();
        break;
    }
  }

  // ---- text sitemaps ----

  void StartText() {
    syntax_ = Syntax::kText;
    kind_ = SitemapKind::kText;
    text_.Reset(max_loc_bytes_);
  }

  void FeedText(std::string_view bytes) {
    while (!bytes.empty() && status_.ok()) {
      // CR alone ends a line too; the empty line between CR and LF is skipped like any other.
      const size_t end = bytes.find_first_of("\r\n");
      if (end == std::string_view::npos) {
        text_.Append(bytes);
        return;
      }
      text_.Append(bytes.substr(0, end));
      EndTextLine();
      bytes.remove_prefix(end + 1);
    }
  }

  void EndTextLine() {
    if (text_.overflow()) {
      ++stats_.skipped_entries;
    } else if (std::string line = text_.Take(); !line.empty()) {
      if (IsCleanUtf8Line(line)) {
        SitemapEntry entry;
        entry.loc = std::move(line);
        Emit(std::move(entry));
      } else {
        ++stats_.skipped_entries;
      }
    }
    text_.Reset(max_loc_bytes_);
  }

  // ---- XML sitemaps ----

  void StartXml() {
    syntax_ = Syntax::kXml;
    xml_ = XML_ParserCreateNS(/*encoding=*/nullptr, kNamespaceSeparator);
    if (xml_ == nullptr) {
      Fail(absl::ResourceExhaustedError("cannot create an XML parser"));
      return;
    }
    XML_SetUserData(xml_, this);
    XML_SetElementHandler(xml_, &Impl::OnStartElement, &Impl::OnEndElement);
    XML_SetCharacterDataHandler(xml_, &Impl::OnCharacterData);
    // Everything else (comments, PIs, declarations, whitespace outside the root) only marks
    // progress for FeedXml. The Expand variant keeps entity expansion as it is.
    XML_SetDefaultHandlerExpand(xml_, &Impl::OnOtherMarkup);
    XML_SetEntityDeclHandler(xml_, &Impl::OnEntityDecl);
    // The default, stated: never read the external DTD subset or parameter entities.
    XML_SetParamEntityParsing(xml_, XML_PARAM_ENTITY_PARSING_NEVER);
  }

  // expat 2.5 (Debian 12) rescans an unfinished token from its start on every XML_Parse call, so
  // a huge tag, attribute or comment arriving in small chunks costs quadratic time
  // (CVE-2023-52425; expat 2.6 added "reparse deferral"). We defer the same way: while expat
  // waits for the end of a token that began `waiting` bytes ago, new bytes are held back until
  // there are at least as many, so successive rescans at least double in length and the total
  // work stays linear. Results do not depend on chunking, only the moment entries appear does.
  void FeedXml(std::string_view bytes, bool final) {
    if (xml_ == nullptr) return;
    if (!final) {
      const int64_t waiting = xml_bytes_given_ - xml_last_event_;
      if (xml_held_.empty() && waiting < kMinDeferredTokenBytes) {
        ParseXml(bytes, /*final=*/false);
        return;
      }
      xml_held_.append(bytes);
      if (static_cast<int64_t>(xml_held_.size()) < waiting) return;
    } else {
      xml_held_.append(bytes);
    }
    ParseXml(std::exchange(xml_held_, {}), final);
  }

  void ParseXml(std::string_view bytes, bool final) {
    do {
      const size_t slice = std::min(bytes.size(), kMaxXmlSliceBytes);
      const bool last = final && slice == bytes.size();
      xml_bytes_given_ += static_cast<int64_t>(slice);
      in_xml_parse_ = true;
      const XML_Status parsed =
          XML_Parse(xml_, bytes.data(), static_cast<int>(slice), last ? XML_TRUE : XML_FALSE);
      in_xml_parse_ = false;
      if (parsed == XML_STATUS_ERROR) {
        // After our own Fail() (a limit, a wrong root) status_ already says why expat stopped.
        if (status_.ok()) {
          Fail(absl::InvalidArgumentError(absl::StrCat("malformed XML at line ",
                                                       XML_GetCurrentLineNumber(xml_), ", column ",
                                                       XML_GetCurrentColumnNumber(xml_) + 1, ": ",
                                                       XML_ErrorString(XML_GetErrorCode(xml_)))));
        }
        return;
      }
      bytes.remove_prefix(slice);
    } while (!bytes.empty() && status_.ok());
  }

  static void XMLCALL OnStartElement(void* self, const XML_Char* name, const XML_Char** /*attrs*/) {
    static_cast<Impl*>(self)->NoteXmlEvent();
    static_cast<Impl*>(self)->StartElement(name);
  }
  static void XMLCALL OnEndElement(void* self, const XML_Char* /*name*/) {
    static_cast<Impl*>(self)->NoteXmlEvent();
    static_cast<Impl*>(self)->EndElement();
  }
  static void XMLCALL OnCharacterData(void* self, const XML_Char* text, int length) {
    static_cast<Impl*>(self)->NoteXmlEvent();
    static_cast<Impl*>(self)->CharacterData(std::string_view(text, static_cast<size_t>(length)));
  }
  static void XMLCALL OnOtherMarkup(void* self, const XML_Char* /*text*/, int /*length*/) {
    static_cast<Impl*>(self)->NoteXmlEvent();
  }
  static void XMLCALL OnEntityDecl(void* self, const XML_Char* /*name*/, int /*is_parameter*/,
                                   const XML_Char* /*value*/, int /*value_length*/,
                                   const XML_Char* /*base*/, const XML_Char* /*system_id*/,
                                   const XML_Char* /*public_id*/,
                                   const XML_Char* /*notation_name*/) {
    static_cast<Impl*>(self)->Fail(
        absl::InvalidArgumentError("entity declarations are not allowed in a sitemap"));
  }

  void NoteXmlEvent() { xml_last_event_ = XML_GetCurrentByteIndex(xml_); }

  // depth_ counts the open elements we track: 1 the root, 2 an entry, 3 a field of the entry.
  // Everything else (extensions, unknown elements, elements inside a field) opens an ignored
  // subtree whose depth is ignored_depth_.
  void StartElement(std::string_view name) {
    if (!status_.ok()) return;
    if (depth_ + ignored_depth_ >= kMaxElementDepth) {
      Fail(absl::ResourceExhaustedError(
          absl::StrCat("XML elements nested more than ", kMaxElementDepth, " deep")));
      return;
    }
    if (ignored_depth_ > 0) {
      ++ignored_depth_;
      return;
    }
    const ElementName element = SplitName(name);
    const bool ours = element.in_sitemap_namespace;
    switch (depth_) {
      case 0:
        if (ours && element.local == "urlset") {
          kind_ = SitemapKind::kUrlset;
        } else if (ours && element.local == "sitemapindex") {
          kind_ = SitemapKind::kSitemapIndex;
        } else {
          Fail(absl::InvalidArgumentError(absl::StrCat("not a sitemap: the root element is <",
                                                       QuoteName(name),
                                                       ">, not <urlset> or <sitemapindex>")));
          return;
        }
        depth_ = 1;
        return;
      case 1: {
        const bool index = kind_ == SitemapKind::kSitemapIndex;
        if (ours && element.local == (index ? "sitemap" : "url")) {
          entry_ = SitemapEntry{};
          entry_.is_sitemap = index;
          fields_seen_ = 0;
          depth_ = 2;
          return;
        }
        // The other kind's entry: skipped, but counted, since it likely holds a URL.
        if (ours && element.local == (index ? "url" : "sitemap")) ++stats_.skipped_entries;
        ignored_depth_ = 1;
        return;
      }
      case 2: {
        field_ = ours ? FieldNamed(element.local) : Field::kNone;
        const unsigned bit = 1u << static_cast<unsigned>(field_);
        if (field_ != Field::kNone && (fields_seen_ & bit) != 0) {
          ++stats_.invalid_fields;  // a repeated field; the first one stands
          field_ = Field::kNone;
        }
        if (field_ == Field::kNone) {
          ignored_depth_ = 1;
          return;
        }
        fields_seen_ |= bit;
        text_.Reset(field_ == Field::kLoc ? max_loc_bytes_ : kMaxFieldBytes);
        depth_ = 3;
        return;
      }
      default:
        // Markup inside a field is not part of the protocol; its text is dropped.
        ignored_depth_ = 1;
        return;
    }
  }

  Field FieldNamed(std::string_view local) const {
    if (local == "loc") return Field::kLoc;
    if (local == "lastmod") return Field::kLastmod;
    // The protocol defines only loc and lastmod for a <sitemap> of an index.
    if (kind_ == SitemapKind::kSitemapIndex) return Field::kNone;
    if (local == "changefreq") return Field::kChangefreq;
    if (local == "priority") return Field::kPriority;
    return Field::kNone;
  }

  void EndElement() {
    if (!status_.ok()) return;
    if (ignored_depth_ > 0) {
      --ignored_depth_;
      return;
    }
    switch (depth_) {
      case 3:
        EndField();
        break;
      case 2:
        EndEntry();
        break;
      default:
        break;
    }
    --depth_;
  }

  void CharacterData(std::string_view text) {
    if (status_.ok() && ignored_depth_ == 0 && depth_ == 3) text_.Append(text);
  }

  void EndField() {
    const Field field = std::exchange(field_, Field::kNone);
    if (text_.overflow()) {
      // An over-long loc leaves entry_.loc empty, which skips the entry.
      if (field != Field::kLoc) ++stats_.invalid_fields;
      return;
    }
    std::string text = text_.Take();
    switch (field) {
      case Field::kLoc:
        entry_.loc = std::move(text);
        return;
      case Field::kLastmod:
        if (absl::StatusOr<absl::Time> time = ParseW3cDatetime(text); time.ok()) {
          entry_.lastmod = *time;
          return;
        }
        break;
      case Field::kChangefreq:
        if ((entry_.changefreq = ParseChangeFreq(text)).has_value()) return;
        break;
      case Field::kPriority:
        if ((entry_.priority = ParsePriority(text)).has_value()) return;
        break;
      case Field::kNone:
        return;
    }
    ++stats_.invalid_fields;
  }

  void EndEntry() {
    if (entry_.loc.empty()) {
      ++stats_.skipped_entries;
      return;
    }
    Emit(std::exchange(entry_, SitemapEntry{}));
  }

  void Emit(SitemapEntry entry) {
    if (stats_.entries >= max_urls_) {
      stats_.truncated = true;
      Fail(absl::ResourceExhaustedError(
          absl::StrCat("sitemap has more than ", max_urls_,
                       kind_ == SitemapKind::kSitemapIndex ? " sitemaps" : " URLs",
                       " (the sitemaps.org limit is 50,000 per file)")));
      return;
    }
    ++stats_.entries;
    if (on_entry_) on_entry_(std::move(entry));
  }

  // Constant after construction.
  const int64_t max_urls_;
  const int64_t max_uncompressed_bytes_;
  const size_t max_loc_bytes_;
  EntryCallback on_entry_;

  absl::Status status_;
  bool finished_ = false;
  SitemapKind kind_ = SitemapKind::kUnknown;
  SitemapStats stats_;

  // Framing.
  Framing framing_ = Framing::kDetecting;
  std::string magic_;  // the first bytes of the body or of a next gzip member, until there are 2
  bool inflating_ = false;
  z_stream zstream_{};
  std::unique_ptr<unsigned char[]> window_;

  // Syntax.
  Syntax syntax_ = Syntax::kSniffing;
  bool bom_checked_ = false;
  std::string head_;  // the first bytes, until there are enough to rule out a byte-order mark
  TrimmedText text_;  // the current field (XML) or line (text)

  // XML state.
  XML_Parser xml_ = nullptr;
  bool in_xml_parse_ = false;    // inside XML_Parse, i.e. possibly inside one of our handlers
  std::string xml_held_;         // bytes held back while expat waits for a long token's end
  int64_t xml_bytes_given_ = 0;  // bytes handed to XML_Parse so far
  int64_t xml_last_event_ = 0;   // byte offset of the latest event expat reported
  int depth_ = 0;
  int64_t ignored_depth_ = 0;
  Field field_ = Field::kNone;
  unsigned fields_seen_ = 0;  // bit per Field of the current entry
  SitemapEntry entry_;
};

SitemapParser::SitemapParser(SitemapOptions options, EntryCallback on_entry)
    : impl_(std::make_unique<Impl>(options, std::move(on_entry))) {}
SitemapParser::~SitemapParser() = default;
SitemapParser::SitemapParser(SitemapParser&&) noexcept = default;
SitemapParser& SitemapParser::operator=(SitemapParser&&) noexcept = default;

absl::Status SitemapParser::Feed(std::string_view chunk) { return impl_->Feed(chunk); }
absl::Status SitemapParser::Finish() { return impl_->Finish(); }
SitemapKind SitemapParser::kind() const { return impl_->kind(); }
const SitemapStats& SitemapParser::stats() const { return impl_->stats(); }

}  // namespace crawler::sitemap
