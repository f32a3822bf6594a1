#include "lib/html/charset.h"

#include <errno.h>
#include <iconv.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lib/encoding/ascii.h"
#include "lib/encoding/utf8.h"
#include "lib/html/internal/char_refs.h"

namespace crawler::html {
namespace {

using encoding::AppendUtf8;
using encoding::EqualsIgnoreCase;
using encoding::IsAsciiAlpha;
using encoding::IsAsciiWhitespace;
using encoding::ToAsciiLower;
using encoding::TrimAsciiWhitespace;

struct EncodingInfo {
  Encoding encoding;
  std::string_view name;   // Encoding Standard name
  const char* iconv_name;  // glibc charset, or nullptr when decoded here
};

// Indexed by Encoding. The iconv names are glibc's spelling of the charset the Encoding Standard
// actually defines under each name (which is not always the charset the label suggests).
constexpr EncodingInfo kEncodings[] = {
    {Encoding::kUtf8, "UTF-8", nullptr},
    {Encoding::kIbm866, "IBM866", "IBM866"},
    {Encoding::kIso8859_2, "ISO-8859-2", "ISO-8859-2"},
    {Encoding::kIso8859_3, "ISO-8859-3", "ISO-8859-3"},
    {Encoding::kIso8859_4, "ISO-8859-4", "ISO-8859-4"},
    {Encoding::kIso8859_5, "ISO-8859-5", "ISO-8859-5"},
    {Encoding::kIso8859_6, "ISO-8859-6", "ISO-8859-6"},
    {Encoding::kIso8859_7, "ISO-8859-7", "ISO-8859-7"},
    {Encoding::kIso8859_8, "ISO-8859-8", "ISO-8859-8"},
    // Logical-order Hebrew: same bytes-to-characters mapping as ISO-8859-8.
    {Encoding::kIso8859_8I, "ISO-8859-8-I", "ISO-8859-8"},
    {Encoding::kIso8859_10, "ISO-8859-10", "ISO-8859-10"},
    {Encoding::kIso8859_13, "ISO-8859-13", "ISO-8859-13"},
    {Encoding::kIso8859_14, "ISO-8859-14", "ISO-8859-14"},
    {Encoding::kIso8859_15, "ISO-8859-15", "ISO-8859-15"},
    {Encoding::kIso8859_16, "ISO-8859-16", "ISO-8859-16"},
    {Encoding::kKoi8R, "KOI8-R", "KOI8-R"},
    {Encoding::kKoi8U, "KOI8-U", "KOI8-U"},
    {Encoding::kMacintosh, "macintosh", "MACINTOSH"},
    {Encoding::kWindows874, "windows-874", "WINDOWS-874"},
    {Encoding::kWindows1250, "windows-1250", "WINDOWS-1250"},
    {Encoding::kWindows1251, "windows-1251", "WINDOWS-1251"},
    {Encoding::kWindows1252, "windows-1252", nullptr},
    {Encoding::kWindows1253, "windows-1253", "WINDOWS-1253"},
    {Encoding::kWindows1254, "windows-1254", "WINDOWS-1254"},
    {Encoding::kWindows1255, "windows-1255", "WINDOWS-1255"},
    {Encoding::kWindows1256, "windows-1256", "WINDOWS-1256"},
    {Encoding::kWindows1257, "windows-1257", "WINDOWS-1257"},
    {Encoding::kWindows1258, "windows-1258", "WINDOWS-1258"},
    {Encoding::kXMacCyrillic, "x-mac-cyrillic", "MAC-CYRILLIC"},
    // The Encoding Standard's GBK decoder is its gb18030 decoder.
    {Encoding::kGbk, "GBK", "GB18030"},
    {Encoding::kGb18030, "gb18030", "GB18030"},
    {Encoding::kBig5, "Big5", "BIG5-HKSCS"},
    {Encoding::kEucJp, "EUC-JP", "EUC-JP"},
    {Encoding::kIso2022Jp, "ISO-2022-JP", "ISO-2022-JP"},
    {Encoding::kShiftJis, "Shift_JIS", "WINDOWS-31J"},
    {Encoding::kEucKr, "EUC-KR", "CP949"},
    {Encoding::kReplacement, "replacement", nullptr},
    {Encoding::kUtf16Be, "UTF-16BE", "UTF-16BE"},
    {Encoding::kUtf16Le, "UTF-16LE", "UTF-16LE"},
    {Encoding::kXUserDefined, "x-user-defined", nullptr},
};

constexpr bool EncodingsAreIndexed() {
  for (size_t i = 0; i < std::size(kEncodings); ++i) {
    if (static_cast<size_t>(kEncodings[i].encoding) != i) return false;
  }
  return std::size(kEncodings) == static_cast<size_t>(Encoding::kXUserDefined) + 1;
}
static_assert(EncodingsAreIndexed(), "kEncodings[e] must describe Encoding e");

const EncodingInfo& InfoFor(Encoding encoding) {
  return kEncodings[static_cast<size_t>(encoding)];
}

struct Label {
  std::string_view label;
  Encoding encoding;
};

// Encoding Standard 4.2 "Names and labels": every label, already lowercase. Kept sorted so the
// lookup can binary-search; a test checks the order.
constexpr Label kLabels[] = {
    {"866", Encoding::kIbm866},
    {"ansi_x3.4-1968", Encoding::kWindows1252},
    {"arabic", Encoding::kIso8859_6},
    {"ascii", Encoding::kWindows1252},
    {"asmo-708", Encoding::kIso8859_6},
    {"big5", Encoding::kBig5},
    {"big5-hkscs", Encoding::kBig5},
    {"chinese", Encoding::kGbk},
    {"cn-big5", Encoding::kBig5},
    {"cp1250", Encoding::kWindows1250},
    {"cp1251", Encoding::kWindows1251},
    {"cp1252", Encoding::kWindows1252},
    {"cp1253", Encoding::kWindows1253},
    {"cp1254", Encoding::kWindows1254},
    {"cp1255", Encoding::kWindows1255},
    {"cp1256", Encoding::kWindows1256},
    {"cp1257", Encoding::kWindows1257},
    {"cp1258", Encoding::kWindows1258},
    {"cp819", Encoding::kWindows1252},
    {"cp866", Encoding::kIbm866},
    {"csbig5", Encoding::kBig5},
    {"cseuckr", Encoding::kEucKr},
    {"cseucpkdfmtjapanese", Encoding::kEucJp},
    {"csgb2312", Encoding::kGbk},
    {"csibm866", Encoding::kIbm866},
    {"csiso2022jp", Encoding::kIso2022Jp},
    {"csiso2022kr", Encoding::kReplacement},
    {"csiso58gb231280", Encoding::kGbk},
    {"csiso88596e", Encoding::kIso8859_6},
    {"csiso88596i", Encoding::kIso8859_6},
    {"csiso88598e", Encoding::kIso8859_8},
    {"csiso88598i", Encoding::kIso8859_8I},
    {"csisolatin1", Encoding::kWindows1252},
    {"csisolatin2", Encoding::kIso8859_2},
    {"csisolatin3", Encoding::kIso8859_3},
    {"csisolatin4", Encoding::kIso8859_4},
    {"csisolatin5", Encoding::kWindows1254},
    {"csisolatin6", Encoding::kIso8859_10},
    {"csisolatin9", Encoding::kIso8859_15},
    {"csisolatinarabic", Encoding::kIso8859_6},
    {"csisolatincyrillic", Encoding::kIso8859_5},
    {"csisolatingreek", Encoding::kIso8859_7},
    {"csisolatinhebrew", Encoding::kIso8859_8},
    {"cskoi8r", Encoding::kKoi8R},
    {"csksc56011987", Encoding::kEucKr},
    {"csmacintosh", Encoding::kMacintosh},
    {"csshiftjis", Encoding::kShiftJis},
    {"csunicode", Encoding::kUtf16Le},
    {"cyrillic", Encoding::kIso8859_5},
    {"dos-874", Encoding::kWindows874},
    {"ecma-114", Encoding::kIso8859_6},
    {"ecma-118", Encoding::kIso8859_7},
    {"elot_928", Encoding::kIso8859_7},
    {"euc-jp", Encoding::kEucJp},
    {"euc-kr", Encoding::kEucKr},
    {"gb18030", Encoding::kGb18030},
    {"gb2312", Encoding::kGbk},
    {"gb_2312", Encoding::kGbk},
    {"gb_2312-80", Encoding::kGbk},
    {"gbk", Encoding::kGbk},
    {"greek", Encoding::kIso8859_7},
    {"greek8", Encoding::kIso8859_7},
    {"hebrew", Encoding::kIso8859_8},
    {"hz-gb-2312", Encoding::kReplacement},
    {"ibm819", Encoding::kWindows1252},
    {"ibm866", Encoding::kIbm866},
    {"iso-10646-ucs-2", Encoding::kUtf16Le},
    {"iso-2022-cn", Encoding::kReplacement},
    {"iso-2022-cn-ext", Encoding::kReplacement},
    {"iso-2022-jp", Encoding::kIso2022Jp},
    {"iso-2022-kr", Encoding::kReplacement},
    {"iso-8859-1", Encoding::kWindows1252},
    {"iso-8859-10", Encoding::kIso8859_10},
    {"iso-8859-11", Encoding::kWindows874},
    {"iso-8859-13", Encoding::kIso8859_13},
    {"iso-8859-14", Encoding::kIso8859_14},
    {"iso-8859-15", Encoding::kIso8859_15},
    {"iso-8859-16", Encoding::kIso8859_16},
    {"iso-8859-2", Encoding::kIso8859_2},
    {"iso-8859-3", Encoding::kIso8859_3},
    {"iso-8859-4", Encoding::kIso8859_4},
    {"iso-8859-5", Encoding::kIso8859_5},
    {"iso-8859-6", Encoding::kIso8859_6},
    {"iso-8859-6-e", Encoding::kIso8859_6},
    {"iso-8859-6-i", Encoding::kIso8859_6},
    {"iso-8859-7", Encoding::kIso8859_7},
    {"iso-8859-8", Encoding::kIso8859_8},
    {"iso-8859-8-e", Encoding::kIso8859_8},
    {"iso-8859-8-i", Encoding::kIso8859_8I},
    {"iso-8859-9", Encoding::kWindows1254},
    {"iso-ir-100", Encoding::kWindows1252},
    {"iso-ir-101", Encoding::kIso8859_2},
    {"iso-ir-109", Encoding::kIso8859_3},
    {"iso-ir-110", Encoding::kIso8859_4},
    {"iso-ir-126", Encoding::kIso8859_7},
    {"iso-ir-127", Encoding::kIso8859_6},
    {"iso-ir-138", Encoding::kIso8859_8},
    {"iso-ir-144", Encoding::kIso8859_5},
    {"iso-ir-148", Encoding::kWindows1254},
    {"iso-ir-149", Encoding::kEucKr},
    {"iso-ir-157", Encoding::kIso8859_10},
    {"iso-ir-58", Encoding::kGbk},
    {"iso8859-1", Encoding::kWindows1252},
    {"iso8859-10", Encoding::kIso8859_10},
    {"iso8859-11", Encoding::kWindows874},
    {"iso8859-13", Encoding::kIso8859_13},
    {"iso8859-14", Encoding::kIso8859_14},
    {"iso8859-15", Encoding::kIso8859_15},
    {"iso8859-2", Encoding::kIso8859_2},
    {"iso8859-3", Encoding::kIso8859_3},
    {"iso8859-4", Encoding::kIso8859_4},
    {"iso8859-5", Encoding::kIso8859_5},
    {"iso8859-6", Encoding::kIso8859_6},
    {"iso8859-7", Encoding::kIso8859_7},
    {"iso8859-8", Encoding::kIso8859_8},
    {"iso8859-9", Encoding::kWindows1254},
    {"iso88591", Encoding::kWindows1252},
    {"iso885910", Encoding::kIso8859_10},
    {"iso885911", Encoding::kWindows874},
    {"iso885913", Encoding::kIso8859_13},
    {"iso885914", Encoding::kIso8859_14},
    {"iso885915", Encoding::kIso8859_15},
    {"iso88592", Encoding::kIso8859_2},
    {"iso88593", Encoding::kIso8859_3},
    {"iso88594", Encoding::kIso8859_4},
    {"iso88595", Encoding::kIso8859_5},
    {"iso88596", Encoding::kIso8859_6},
    {"iso88597", Encoding::kIso8859_7},
    {"iso88598", Encoding::kIso8859_8},
    {"iso88599", Encoding::kWindows1254},
    {"iso_8859-1", Encoding::kWindows1252},
    {"iso_8859-15", Encoding::kIso8859_15},
    {"iso_8859-1:1987", Encoding::kWindows1252},
    {"iso_8859-2", Encoding::kIso8859_2},
    {"iso_8859-2:1987", Encoding::kIso8859_2},
    {"iso_8859-3", Encoding::kIso8859_3},
    {"iso_8859-3:1988", Encoding::kIso8859_3},
    {"iso_8859-4", Encoding::kIso8859_4},
    {"iso_8859-4:1988", Encoding::kIso8859_4},
    {"iso_8859-5", Encoding::kIso8859_5},
    {"iso_8859-5:1988", Encoding::kIso8859_5},
    {"iso_8859-6", Encoding::kIso8859_6},
    {"iso_8859-6:1987", Encoding::kIso8859_6},
    {"iso_8859-7", Encoding::kIso8859_7},
    {"iso_8859-7:1987", Encoding::kIso8859_7},
    {"iso_8859-8", Encoding::kIso8859_8},
    {"iso_8859-8:1988", Encoding::kIso8859_8},
    {"iso_8859-9", Encoding::kWindows1254},
    {"iso_8859-9:1989", Encoding::kWindows1254},
    {"koi", Encoding::kKoi8R},
    {"koi8", Encoding::kKoi8R},
    {"koi8-r", Encoding::kKoi8R},
    {"koi8-ru", Encoding::kKoi8U},
    {"koi8-u", Encoding::kKoi8U},
    {"koi8_r", Encoding::kKoi8R},
    {"korean", Encoding::kEucKr},
    {"ks_c_5601-1987", Encoding::kEucKr},
    {"ks_c_5601-1989", Encoding::kEucKr},
    {"ksc5601", Encoding::kEucKr},
    {"ksc_5601", Encoding::kEucKr},
    {"l1", Encoding::kWindows1252},
    {"l2", Encoding::kIso8859_2},
    {"l3", Encoding::kIso8859_3},
    {"l4", Encoding::kIso8859_4},
    {"l5", Encoding::kWindows1254},
    {"l6", Encoding::kIso8859_10},
    {"l9", Encoding::kIso8859_15},
    {"latin1", Encoding::kWindows1252},
    {"latin2", Encoding::kIso8859_2},
    {"latin3", Encoding::kIso8859_3},
    {"latin4", Encoding::kIso8859_4},
    {"latin5", Encoding::kWindows1254},
    {"latin6", Encoding::kIso8859_10},
    {"logical", Encoding::kIso8859_8I},
    {"mac", Encoding::kMacintosh},
    {"macintosh", Encoding::kMacintosh},
    {"ms932", Encoding::kShiftJis},
    {"ms_kanji", Encoding::kShiftJis},
    {"replacement", Encoding::kReplacement},
    {"shift-jis", Encoding::kShiftJis},
    {"shift_jis", Encoding::kShiftJis},
    {"sjis", Encoding::kShiftJis},
    {"sun_eu_greek", Encoding::kIso8859_7},
    {"tis-620", Encoding::kWindows874},
    {"ucs-2", Encoding::kUtf16Le},
    {"unicode", Encoding::kUtf16Le},
    {"unicode-1-1-utf-8", Encoding::kUtf8},
    {"unicode11utf8", Encoding::kUtf8},
    {"unicode20utf8", Encoding::kUtf8},
    {"unicodefeff", Encoding::kUtf16Le},
    {"unicodefffe", Encoding::kUtf16Be},
    {"us-ascii", Encoding::kWindows1252},
    {"utf-16", Encoding::kUtf16Le},
    {"utf-16be", Encoding::kUtf16Be},
    {"utf-16le", Encoding::kUtf16Le},
    {"utf-8", Encoding::kUtf8},
    {"utf8", Encoding::kUtf8},
    {"visual", Encoding::kIso8859_8},
    {"windows-1250", Encoding::kWindows1250},
    {"windows-1251", Encoding::kWindows1251},
    {"windows-1252", Encoding::kWindows1252},
    {"windows-1253", Encoding::kWindows1253},
    {"windows-1254", Encoding::kWindows1254},
    {"windows-1255", Encoding::kWindows1255},
    {"windows-1256", Encoding::kWindows1256},
    {"windows-1257", Encoding::kWindows1257},
    {"windows-1258", Encoding::kWindows1258},
    {"windows-31j", Encoding::kShiftJis},
    {"windows-874", Encoding::kWindows874},
    {"windows-949", Encoding::kEucKr},
    {"x-cp1250", Encoding::kWindows1250},
    {"x-cp1251", Encoding::kWindows1251},
    {"x-cp1252", Encoding::kWindows1252},
    {"x-cp1253", Encoding::kWindows1253},
    {"x-cp1254", Encoding::kWindows1254},
    {"x-cp1255", Encoding::kWindows1255},
    {"x-cp1256", Encoding::kWindows1256},
    {"x-cp1257", Encoding::kWindows1257},
    {"x-cp1258", Encoding::kWindows1258},
    {"x-euc-jp", Encoding::kEucJp},
    {"x-gbk", Encoding::kGbk},
    {"x-mac-cyrillic", Encoding::kXMacCyrillic},
    {"x-mac-roman", Encoding::kMacintosh},
    {"x-mac-ukrainian", Encoding::kXMacCyrillic},
    {"x-sjis", Encoding::kShiftJis},
    {"x-unicode20utf8", Encoding::kUtf8},
    {"x-user-defined", Encoding::kXUserDefined},
    {"x-x-big5", Encoding::kBig5},
};

constexpr bool LabelsAreSorted() {
  for (size_t i = 1; i < std::size(kLabels); ++i) {
    if (!(kLabels[i - 1].label < kLabels[i].label)) return false;
  }
  return true;
}
static_assert(LabelsAreSorted(), "kLabels must be sorted and unique: EncodingForLabel bisects it");

// The longest label is "cseucpkdfmtjapanese" (19 bytes); anything longer cannot match.
constexpr size_t kMaxLabelBytes = 32;

constexpr char kReplacementUtf8[] = "\xEF\xBF\xBD";

// windows-1252 bytes 0x80..0x9F (Encoding Standard index-windows-1252); the rest is Latin-1.
constexpr std::array<uint16_t, 32> kWindows1252High = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};

std::string DecodeWindows1252(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() + bytes.size() / 4);
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x80) {
      out.push_back(c);
    } else if (b < 0xA0) {
      AppendUtf8(kWindows1252High[b - 0x80], out);
    } else {
      AppendUtf8(b, out);
    }
  }
  return out;
}

std::string DecodeXUserDefined(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    AppendUtf8(b < 0x80 ? b : 0xF780 + b - 0x80, out);
  }
  return out;
}

// The end of the run of ASCII bytes at bytes[i...], eight bytes at a time (most of a page).
size_t SkipAscii(std::string_view bytes, size_t i) {
  while (bytes.size() - i >= 8) {
    uint64_t word;
    std::memcpy(&word, bytes.data() + i, 8);
    if ((word & 0x8080808080808080ull) != 0) break;
    i += 8;
  }
  while (i < bytes.size() && static_cast<unsigned char>(bytes[i]) < 0x80) ++i;
  return i;
}

std::string DecodeUtf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t i = 0;
  while (i < bytes.size()) {
    // Copy the longest well-formed run at once; most bodies are a single run.
    // A sequence that is not well-formed becomes one U+FFFD per maximal subpart.
    size_t run_end = i;
    size_t subpart = 1;
    while (run_end < bytes.size()) {
      run_end = SkipAscii(bytes, run_end);
      if (run_end == bytes.size()) break;
      const encoding::Utf8Sequence sequence = encoding::DecodeUtf8Sequence(bytes.substr(run_end));
      if (!sequence.valid) {
        subpart = sequence.length;
        break;
      }
      run_end += sequence.length;
    }
    out.append(bytes.data() + i, run_end - i);
    i = run_end;
    if (i < bytes.size()) {
      out.append(kReplacementUtf8);
      i += subpart;
    }
  }
  return out;
}

class IconvDescriptor {
 public:
  explicit IconvDescriptor(const char* from) : cd_(iconv_open("UTF-8", from)) {}
  ~IconvDescriptor() {
    if (ok()) iconv_close(cd_);
  }
  IconvDescriptor(const IconvDescriptor&) = delete;
  IconvDescriptor& operator=(const IconvDescriptor&) = delete;
  bool ok() const { return cd_ != reinterpret_cast<iconv_t>(-1); }
  iconv_t get() const { return cd_; }

 private:
  iconv_t cd_;
};

absl::StatusOr<std::string> DecodeWithIconv(std::string_view bytes, Encoding encoding) {
  const EncodingInfo& info = InfoFor(encoding);
  IconvDescriptor cd(info.iconv_name);
  if (!cd.ok()) {
    return absl::UnimplementedError(
        absl::StrCat("no iconv converter from ", info.iconv_name, " to UTF-8"));
  }
  // After an invalid sequence, decoding resumes one code unit later, so a multi-byte decoder
  // re-synchronises on the next byte as the Encoding Standard's decoders do.
  const size_t unit = (encoding == Encoding::kUtf16Be || encoding == Encoding::kUtf16Le) ? 2 : 1;
  std::string out(bytes.size() + bytes.size() / 2 + 16, '\0');
  size_t used = 0;
  char* in = const_cast<char*>(bytes.data());  // iconv's signature; the input is not written
  size_t in_left = bytes.size();
  // A null input asks a stateful decoder (ISO-2022-JP) to return to its initial state; that
  // flush runs once, after the input is consumed.
  bool flush = false;
  for (;;) {
    if (out.size() - used < 16) out.resize(out.size() * 2);
    char* out_ptr = out.data() + used;
    size_t out_left = out.size() - used;
    const size_t rc = flush ? iconv(cd.get(), nullptr, nullptr, &out_ptr, &out_left)
                            : iconv(cd.get(), &in, &in_left, &out_ptr, &out_left);
    const int error = errno;
    used = out_ptr - out.data();
    if (rc != static_cast<size_t>(-1)) {
      if (flush) break;
      if (in_left == 0) flush = true;
      continue;
    }
    if (error == E2BIG) {
      out.resize(out.size() * 2);
      continue;
    }
    if (flush) break;
    if (out.size() - used < 3) out.resize(out.size() * 2);
    out.replace(used, 3, kReplacementUtf8, 3);
    used += 3;
    if (error == EILSEQ && in_left > unit) {
      in += unit;
      in_left -= unit;
    } else {
      // EINVAL: a sequence cut by the end of the input (or a final partial code unit).
      in_left = 0;
      flush = true;
    }
  }
  out.resize(used);
  return out;
}

bool StartsWithIgnoreCase(std::string_view s, size_t pos, std::string_view prefix) {
  return encoding::StartsWithIgnoreCase(s.substr(pos), prefix);
}

// The prescan's whitespace-or-slash set: 0x09, 0x0A, 0x0C, 0x0D, 0x20, 0x2F.
bool IsPrescanSpaceOrSlash(char c) { return IsAsciiWhitespace(c) || c == '/'; }

// HTML 13.2.3.2 "get an attribute", over the prescan window. Returns false when there is no
// further attribute (a '>' or the end of the window). Names and values are ASCII-lowercased,
// as specified.
class PrescanAttributeReader {
 public:
  explicit PrescanAttributeReader(std::string_view window) : w_(window) {}

  size_t pos = 0;

  bool AtEnd() const { return pos >= w_.size(); }

  bool Next(std::string& name, std::string& value) {
    name.clear();
    value.clear();
    while (!AtEnd() && IsPrescanSpaceOrSlash(w_[pos])) ++pos;
    if (AtEnd() || w_[pos] == '>') return false;
    // Attribute name.
    for (;; ++pos) {
      if (AtEnd()) return false;
      const char c = w_[pos];
      if (c == '=' && !name.empty()) {
        ++pos;
        return ReadValue(value);
      }
      if (IsAsciiWhitespace(c)) break;
      if (c == '/' || c == '>') return true;
      name.push_back(ToAsciiLower(c));
    }
    // Spaces between the name and a possible '='.
    while (!AtEnd() && IsAsciiWhitespace(w_[pos])) ++pos;
    if (AtEnd()) return false;
    if (w_[pos] != '=') return true;
    ++pos;
    return ReadValue(value);
  }

 private:
  bool ReadValue(std::string& value) {
    while (!AtEnd() && IsAsciiWhitespace(w_[pos])) ++pos;
    if (AtEnd()) return false;
    const char first = w_[pos];
    if (first == '"' || first == '\'') {
      for (++pos; !AtEnd(); ++pos) {
        if (w_[pos] == first) {
          ++pos;
          return true;
        }
        value.push_back(ToAsciiLower(w_[pos]));
      }
      return false;
    }
    if (first == '>') return true;
    for (; !AtEnd(); ++pos) {
      const char c = w_[pos];
      if (IsAsciiWhitespace(c) || c == '>') return true;
      value.push_back(ToAsciiLower(c));
    }
    return false;
  }

  std::string_view w_;
};

}  // namespace

std::string_view EncodingName(Encoding encoding) { return InfoFor(encoding).name; }

std::optional<Encoding> EncodingForLabel(std::string_view label) {
  label = TrimAsciiWhitespace(label);
  if (label.empty() || label.size() > kMaxLabelBytes) return std::nullopt;
  char lower[kMaxLabelBytes];
  for (size_t i = 0; i < label.size(); ++i) {
    lower[i] = ToAsciiLower(label[i]);
  }
  const std::string_view key(lower, label.size());
  const auto* it = std::lower_bound(std::begin(kLabels), std::end(kLabels), key,
                                    [](const Label& l, std::string_view k) { return l.label < k; });
  if (it == std::end(kLabels) || it->label != key) return std::nullopt;
  return it->encoding;
}

std::string_view CharsetSourceName(CharsetSource source) {
  switch (source) {
    case CharsetSource::kBom:
      return "bom";
    case CharsetSource::kHttpHeader:
      return "http-header";
    case CharsetSource::kMetaPrescan:
      return "meta";
    case CharsetSource::kDefault:
      return "default";
  }
  return "default";
}

std::optional<Encoding> EncodingFromContentType(std::string_view content_type) {
  // Parameters follow the MIME type: `type/subtype *( ";" name "=" value )`, where a value may
  // be a quoted-string (MIME Sniffing 4.4 "parse a MIME type", simplified: the first charset
  // parameter wins, and a quoted value ends at its closing quote).
  size_t pos = content_type.find(';');
  while (pos != std::string_view::npos) {
    ++pos;
    while (pos < content_type.size() && IsAsciiWhitespace(content_type[pos])) ++pos;
    const size_t eq = content_type.find_first_of("=;", pos);
    if (eq == std::string_view::npos) return std::nullopt;
    if (content_type[eq] == ';') {
      pos = eq;
      continue;
    }
    const std::string_view name = TrimAsciiWhitespace(content_type.substr(pos, eq - pos));
    std::string value;
    size_t next;
    if (eq + 1 < content_type.size() && content_type[eq + 1] == '"') {
      size_t i = eq + 2;
      for (; i < content_type.size() && content_type[i] != '"'; ++i) {
        if (content_type[i] == '\\' && i + 1 < content_type.size()) ++i;
        value.push_back(content_type[i]);
      }
      next = content_type.find(';', i);
    } else {
      next = content_type.find(';', eq + 1);
      value = std::string(content_type.substr(
          eq + 1, next == std::string_view::npos ? std::string_view::npos : next - eq - 1));
    }
    if (EqualsIgnoreCase(name, "charset")) return EncodingForLabel(value);
    pos = next;
  }
  return std::nullopt;
}

std::optional<Encoding> EncodingFromMetaContent(std::string_view s) {
  size_t pos = 0;
  for (;;) {
    // Find "charset", ASCII case-insensitively.
    size_t found = std::string_view::npos;
    for (size_t i = pos; i + 7 <= s.size(); ++i) {
      if (StartsWithIgnoreCase(s, i, "charset")) {
        found = i;
        break;
      }
    }
    if (found == std::string_view::npos) return std::nullopt;
    pos = found + 7;
    while (pos < s.size() && IsAsciiWhitespace(s[pos])) ++pos;
    if (pos >= s.size() || s[pos] != '=') continue;  // look for the next "charset"
    ++pos;
    while (pos < s.size() && IsAsciiWhitespace(s[pos])) ++pos;
    if (pos >= s.size()) return std::nullopt;
    const char first = s[pos];
    if (first == '"' || first == '\'') {
      const size_t close = s.find(first, pos + 1);
      if (close == std::string_view::npos) return std::nullopt;
      return EncodingForLabel(s.substr(pos + 1, close - pos - 1));
    }
    size_t end = pos;
    while (end < s.size() && !IsAsciiWhitespace(s[end]) && s[end] != ';') ++end;
    return EncodingForLabel(s.substr(pos, end - pos));
  }
}

std::optional<Encoding> PrescanForMetaEncoding(std::string_view body) {
  const std::string_view w = body.substr(0, std::min<size_t>(body.size(), 1024));
  std::string name, value;
  size_t pos = 0;
  while (pos < w.size()) {
    if (w.compare(pos, 4, "<!--") == 0) {
      // The '>' of the first "-->" whose dashes may overlap the opening "<!--".
      const size_t close = w.find("-->", pos + 2);
      if (close == std::string_view::npos) return std::nullopt;
      pos = close + 3;
      continue;
    }
    if (StartsWithIgnoreCase(w, pos, "<meta") && pos + 5 < w.size() &&
        IsPrescanSpaceOrSlash(w[pos + 5])) {
      PrescanAttributeReader reader(w);
      reader.pos = pos + 6;
      bool seen_http_equiv = false, seen_content = false, seen_charset = false;
      bool got_pragma = false;
      std::optional<bool> need_pragma;
      std::optional<Encoding> charset;
      while (reader.Next(name, value)) {
        // An attribute already in the list is ignored.
        if (name == "http-equiv") {
          if (std::exchange(seen_http_equiv, true)) continue;
          if (value == "content-type") got_pragma = true;
        } else if (name == "content") {
          if (std::exchange(seen_content, true)) continue;
          if (!charset) {
            if (auto found = EncodingFromMetaContent(value)) {
              charset = found;
              need_pragma = true;
            }
          }
        } else if (name == "charset") {
          if (std::exchange(seen_charset, true)) continue;
          charset = EncodingForLabel(value);
          need_pragma = false;
        }
      }
      if (reader.AtEnd()) return std::nullopt;
      pos = reader.pos;
      if (need_pragma.has_value() && !(*need_pragma && !got_pragma) && charset.has_value()) {
        if (*charset == Encoding::kUtf16Be || *charset == Encoding::kUtf16Le) {
          return Encoding::kUtf8;
        }
        if (*charset == Encoding::kXUserDefined) return Encoding::kWindows1252;
        return charset;
      }
      ++pos;
      continue;
    }
    if (w[pos] == '<' && pos + 1 < w.size() &&
        (IsAsciiAlpha(w[pos + 1]) ||
         (w[pos + 1] == '/' && pos + 2 < w.size() && IsAsciiAlpha(w[pos + 2])))) {
      // Any other tag: skip its name and attributes.
      while (pos < w.size() && !IsAsciiWhitespace(w[pos]) && w[pos] != '>') ++pos;
      PrescanAttributeReader reader(w);
      reader.pos = pos;
      while (reader.Next(name, value)) {
      }
      if (reader.AtEnd()) return std::nullopt;
      pos = reader.pos + 1;
      continue;
    }
    if (w.compare(pos, 2, "<!") == 0 || w.compare(pos, 2, "</") == 0 ||
        w.compare(pos, 2, "<?") == 0) {
      const size_t close = w.find('>', pos + 2);
      if (close == std::string_view::npos) return std::nullopt;
      pos = close + 1;
      continue;
    }
    ++pos;
  }
  return std::nullopt;
}

bool IsValidUtf8(std::string_view bytes, bool allow_truncated_tail) {
  size_t i = 0;
  while (i < bytes.size()) {
    // ASCII fast path.
    if (static_cast<unsigned char>(bytes[i]) < 0x80) {
      i = SkipAscii(bytes, i);
      continue;
    }
    const encoding::Utf8Sequence sequence = encoding::DecodeUtf8Sequence(bytes.substr(i));
    if (!sequence.valid) {
      // A mismatch leaves a byte after the subpart; only a cut sequence ends exactly at the end.
      const auto lead = static_cast<unsigned char>(bytes[i]);
      return allow_truncated_tail && i + sequence.length == bytes.size() && lead >= 0xC2 &&
             lead <= 0xF4;
    }
    i += sequence.length;
  }
  return true;
}

absl::StatusOr<std::string> DecodeToUtf8(std::string_view bytes, Encoding encoding) {
  switch (encoding) {
    case Encoding::kUtf8:
      return DecodeUtf8(bytes);
    case Encoding::kWindows1252:
      return DecodeWindows1252(bytes);
    case Encoding::kXUserDefined:
      return DecodeXUserDefined(bytes);
    case Encoding::kReplacement:
      // The replacement decoder reports one error for a non-empty input and stops: these
      // encodings (ISO-2022-KR, HZ, ...) are deliberately never decoded, as they allow script
      // injection through ASCII-looking bytes.
      return bytes.empty() ? std::string() : std::string(kReplacementUtf8);
    default:
      return DecodeWithIconv(bytes, encoding);
  }
}

SniffedEncoding SniffEncoding(std::string_view body, std::string_view content_type,
                              bool body_truncated) {
  if (body.substr(0, 3) == "\xEF\xBB\xBF") return {Encoding::kUtf8, CharsetSource::kBom, 3};
  if (body.substr(0, 2) == "\xFE\xFF") return {Encoding::kUtf16Be, CharsetSource::kBom, 2};
  if (body.substr(0, 2) == "\xFF\xFE") return {Encoding::kUtf16Le, CharsetSource::kBom, 2};
  if (auto e = EncodingFromContentType(content_type)) {
    return {*e, CharsetSource::kHttpHeader, 0};
  }
  if (auto e = PrescanForMetaEncoding(body)) return {*e, CharsetSource::kMetaPrescan, 0};
  return {IsValidUtf8(body, body_truncated) ? Encoding::kUtf8 : Encoding::kWindows1252,
          CharsetSource::kDefault, 0};
}

}  // namespace crawler::html
