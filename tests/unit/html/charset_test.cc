#include "lib/html/charset.h"

#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace crawler::html {
namespace {

using ::testing::Optional;

// ---- Encoding Standard 4.2 "Names and labels": "get an encoding". ----

struct LabelCase {
  std::string_view label;
  std::optional<std::string_view> encoding;  // EncodingName, or nullopt for unknown
};

class Encoding_4_2_GetAnEncoding : public ::testing::TestWithParam<LabelCase> {};

TEST_P(Encoding_4_2_GetAnEncoding, MapsLabel) {
  const LabelCase& c = GetParam();
  const std::optional<Encoding> e = EncodingForLabel(c.label);
  if (!c.encoding) {
    EXPECT_FALSE(e.has_value()) << EncodingName(*e);
    return;
  }
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(EncodingName(*e), *c.encoding);
}

INSTANTIATE_TEST_SUITE_P(
    Labels, Encoding_4_2_GetAnEncoding,
    ::testing::Values(
        LabelCase{"utf-8", "UTF-8"}, LabelCase{"UTF8", "UTF-8"},
        LabelCase{"unicode-1-1-utf-8", "UTF-8"},
        // Trimmed of ASCII whitespace, matched case-insensitively.
        LabelCase{" \t Utf-8\n", "UTF-8"},
        // The Latin-1 family all means windows-1252.
        LabelCase{"iso-8859-1", "windows-1252"}, LabelCase{"latin1", "windows-1252"},
        LabelCase{"US-ASCII", "windows-1252"}, LabelCase{"ascii", "windows-1252"},
        LabelCase{"iso_8859-1:1987", "windows-1252"}, LabelCase{"ansi_x3.4-1968", "windows-1252"},
        LabelCase{"iso-8859-9", "windows-1254"}, LabelCase{"iso-8859-11", "windows-874"},
        LabelCase{"iso_8859-15", "ISO-8859-15"}, LabelCase{"l9", "ISO-8859-15"},
        LabelCase{"koi8_r", "KOI8-R"}, LabelCase{"koi8-ru", "KOI8-U"},
        LabelCase{"gb2312", "GBK"}, LabelCase{"gb_2312", "GBK"}, LabelCase{"gb18030", "gb18030"},
        LabelCase{"big5-hkscs", "Big5"}, LabelCase{"x-x-big5", "Big5"},
        LabelCase{"sjis", "Shift_JIS"}, LabelCase{"shift-jis", "Shift_JIS"},
        LabelCase{"windows-31j", "Shift_JIS"}, LabelCase{"ks_c_5601-1987", "EUC-KR"},
        LabelCase{"ksc_5601", "EUC-KR"}, LabelCase{"iso-2022-kr", "replacement"},
        LabelCase{"hz-gb-2312", "replacement"}, LabelCase{"utf-16", "UTF-16LE"},
        LabelCase{"unicodefffe", "UTF-16BE"}, LabelCase{"x-user-defined", "x-user-defined"},
        LabelCase{"866", "IBM866"}, LabelCase{"x-mac-ukrainian", "x-mac-cyrillic"},
        LabelCase{"logical", "ISO-8859-8-I"}, LabelCase{"visual", "ISO-8859-8"},
        // Unknown labels, and labels the standard does not list.
        LabelCase{"utf-7", std::nullopt}, LabelCase{"utf-32", std::nullopt},
        LabelCase{"", std::nullopt}, LabelCase{"utf-8x", std::nullopt},
        LabelCase{"u tf-8", std::nullopt},
        LabelCase{"a-label-much-longer-than-any-known-one", std::nullopt}));

// ---- Content-Type charset parameter (HTML 13.2.3.2 step 4, "transport layer"). ----

TEST(Html_13_2_3_2_ContentType, ReadsCharsetParameter) {
  EXPECT_THAT(EncodingFromContentType("text/html; charset=ISO-8859-2"),
              Optional(Encoding::kIso8859_2));
  EXPECT_THAT(EncodingFromContentType("text/html;charset=\"utf-8\""), Optional(Encoding::kUtf8));
  EXPECT_THAT(EncodingFromContentType("text/html; foo=bar; CHARSET = shift_jis ; x=y"),
              Optional(Encoding::kShiftJis));
  EXPECT_THAT(EncodingFromContentType("text/html; q=\"a;b\"; charset=koi8-r"),
              Optional(Encoding::kKoi8R));
}

TEST(Html_13_2_3_2_ContentType, IgnoresMissingOrUnknownCharset) {
  EXPECT_EQ(EncodingFromContentType("text/html"), std::nullopt);
  EXPECT_EQ(EncodingFromContentType(""), std::nullopt);
  EXPECT_EQ(EncodingFromContentType("text/html; charset=utf-7"), std::nullopt);
  EXPECT_EQ(EncodingFromContentType("text/html; charset"), std::nullopt);
}

// ---- "Algorithm for extracting a character encoding from a meta element". ----

TEST(Html_MetaContentCharset, ExtractsEncoding) {
  EXPECT_THAT(EncodingFromMetaContent("text/html; charset=koi8-r"), Optional(Encoding::kKoi8R));
  EXPECT_THAT(EncodingFromMetaContent("text/html;charset = 'windows-1251' x"),
              Optional(Encoding::kWindows1251));
  EXPECT_THAT(EncodingFromMetaContent("text/html; CHARSET=\"euc-jp\""),
              Optional(Encoding::kEucJp));
  // "charset" not followed by '=' is skipped and the search goes on.
  EXPECT_THAT(EncodingFromMetaContent("charset; charset=utf-8"), Optional(Encoding::kUtf8));
  EXPECT_THAT(EncodingFromMetaContent("charset=gbk;foo"), Optional(Encoding::kGbk));
}

TEST(Html_MetaContentCharset, FailsOnUnmatchedQuoteOrNothing) {
  EXPECT_EQ(EncodingFromMetaContent("text/html; charset=\"utf-8"), std::nullopt);
  EXPECT_EQ(EncodingFromMetaContent("text/html; charset="), std::nullopt);
  EXPECT_EQ(EncodingFromMetaContent("text/html"), std::nullopt);
}

// ---- HTML 13.2.3.2 "prescan a byte stream to determine its encoding". ----

struct PrescanCase {
  std::string_view name;
  std::string_view head;
  std::optional<Encoding> expected;
};

class Html_13_2_3_2_Prescan : public ::testing::TestWithParam<PrescanCase> {};

TEST_P(Html_13_2_3_2_Prescan, FindsDeclaration) {
  EXPECT_EQ(PrescanForMetaEncoding(GetParam().head), GetParam().expected) << GetParam().name;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, Html_13_2_3_2_Prescan,
    ::testing::Values(
        PrescanCase{"meta charset", "<!DOCTYPE html><meta charset=\"windows-1251\">",
                    Encoding::kWindows1251},
        PrescanCase{"unquoted, uppercase tag", "<META CHARSET=koi8-r>", Encoding::kKoi8R},
        PrescanCase{"slash after meta", "<meta/charset=euc-kr>", Encoding::kEucKr},
        PrescanCase{"http-equiv pragma",
                    "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=gb2312\">",
                    Encoding::kGbk},
        PrescanCase{"content before http-equiv",
                    "<meta content='text/html; charset=big5' http-equiv=content-type>",
                    Encoding::kBig5},
        PrescanCase{"content without the pragma is ignored",
                    "<meta content=\"text/html; charset=big5\">", std::nullopt},
        PrescanCase{"http-equiv other than content-type",
                    "<meta http-equiv=refresh content=\"text/html; charset=big5\">", std::nullopt},
        PrescanCase{"charset attribute beats content",
                    "<meta content=\"text/html; charset=big5\" charset=utf-8 "
                    "http-equiv=content-type>",
                    Encoding::kUtf8},
        PrescanCase{"duplicate charset attribute: first wins",
                    "<meta charset=koi8-u charset=koi8-r>", Encoding::kKoi8U},
        PrescanCase{"UTF-16 from meta means UTF-8", "<meta charset=utf-16le>", Encoding::kUtf8},
        PrescanCase{"x-user-defined from meta means windows-1252",
                    "<meta charset=x-user-defined>", Encoding::kWindows1252},
        PrescanCase{"unknown label: keep looking",
                    "<meta charset=bogus><meta charset=iso-8859-5>", Encoding::kIso8859_5},
        PrescanCase{"inside a comment", "<!-- <meta charset=koi8-r> --><meta charset=utf-8>",
                    Encoding::kUtf8},
        PrescanCase{"comment dashes may overlap", "<!--><meta charset=koi8-r>", Encoding::kKoi8R},
        PrescanCase{"inside another tag's attribute",
                    "<div title='<meta charset=koi8-r>'><meta charset=iso-8859-2>",
                    Encoding::kIso8859_2},
        PrescanCase{"after an end tag and a processing instruction",
                    "<?xml version='1.0'?></x><meta charset=windows-1250>",
                    Encoding::kWindows1250},
        PrescanCase{"metadata is not meta", "<metadata charset=koi8-r>", std::nullopt},
        PrescanCase{"nothing declared", "<html><head><title>x</title>", std::nullopt},
        PrescanCase{"cut off before '>'", "<meta charset=\"koi8-r", std::nullopt}));

TEST(Html_13_2_3_2_Prescan, LooksOnlyAtTheFirst1024Bytes) {
  const std::string filler(1024 - 21, ' ');
  EXPECT_THAT(PrescanForMetaEncoding(filler + "<meta charset=koi8-r>"), Optional(Encoding::kKoi8R));
  EXPECT_EQ(PrescanForMetaEncoding(filler + "    <meta charset=koi8-r>"), std::nullopt);
}

// ---- HTML 13.2.3.2 "encoding sniffing algorithm": the order of the sources. ----

TEST(Html_13_2_3_2_Sniffing, BomWinsOverEverything) {
  const SniffedEncoding s =
      SniffEncoding("\xEF\xBB\xBF<meta charset=koi8-r>", "text/html; charset=iso-8859-2");
  EXPECT_EQ(s.encoding, Encoding::kUtf8);
  EXPECT_EQ(s.source, CharsetSource::kBom);
  EXPECT_EQ(s.bom_bytes, 3u);
  EXPECT_EQ(SniffEncoding("\xFF\xFE<\0", "").encoding, Encoding::kUtf16Le);
  EXPECT_EQ(SniffEncoding("\xFE\xFF\0<", "").encoding, Encoding::kUtf16Be);
}

TEST(Html_13_2_3_2_Sniffing, HeaderWinsOverMeta) {
  const SniffedEncoding s = SniffEncoding("<meta charset=koi8-r>", "text/html; charset=latin2");
  EXPECT_EQ(s.encoding, Encoding::kIso8859_2);
  EXPECT_EQ(s.source, CharsetSource::kHttpHeader);
  EXPECT_EQ(s.bom_bytes, 0u);
}

TEST(Html_13_2_3_2_Sniffing, UnknownHeaderCharsetFallsThroughToMeta) {
  const SniffedEncoding s = SniffEncoding("<meta charset=koi8-r>", "text/html; charset=nope");
  EXPECT_EQ(s.encoding, Encoding::kKoi8R);
  EXPECT_EQ(s.source, CharsetSource::kMetaPrescan);
}

TEST(Html_13_2_3_2_Sniffing, DefaultIsUtf8WhenValidElseWindows1252) {
  EXPECT_EQ(SniffEncoding("<p>caf\xC3\xA9", "").encoding, Encoding::kUtf8);
  EXPECT_EQ(SniffEncoding("<p>caf\xE9 au lait", "").encoding, Encoding::kWindows1252);
  EXPECT_EQ(SniffEncoding("<p>caf\xE9 au lait", "").source, CharsetSource::kDefault);
  // A lead byte at the very end is windows-1252 in a whole body...
  EXPECT_EQ(SniffEncoding("<p>caf\xE9", "").encoding, Encoding::kWindows1252);
  // ...but a body cut at a size limit in the middle of a character is still UTF-8.
  EXPECT_EQ(SniffEncoding("<p>\xE2\x82", "", /*body_truncated=*/true).encoding, Encoding::kUtf8);
}

// The UTF-8 decoder skips ASCII eight bytes at a time: an ill-formed or well-formed sequence
// at any position of a longer text is handled as on its own (WHATWG Encoding §8.1.1: each
// maximal subpart of an ill-formed sequence becomes one U+FFFD).
TEST(Utf8Decoding, SequencesAtEveryPositionOfAsciiText) {
  struct Case {
    std::string bytes;
    std::string decoded;
  };
  const std::vector<Case> cases = {
      {"\xC3\xA9", "\xC3\xA9"},
      {"\xF0\x9F\x98\x80", "\xF0\x9F\x98\x80"},
      {"\xFF", "\xEF\xBF\xBD"},
      {"\x80", "\xEF\xBF\xBD"},
      {"\xC0\xAF", "\xEF\xBF\xBD\xEF\xBF\xBD"},
      {"\xE2\x82", "\xEF\xBF\xBD"},
      {"\xED\xA0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"},
  };
  for (const Case& c : cases) {
    for (size_t before = 0; before < 18; ++before) {
      for (size_t after : {0, 1, 7, 8, 9}) {
        const std::string a(before, 'a');
        const std::string b(after, 'b');
        absl::StatusOr<std::string> out = DecodeToUtf8(a + c.bytes + b, Encoding::kUtf8);
        ASSERT_TRUE(out.ok());
        EXPECT_EQ(*out, a + c.decoded + b) << before << " " << after;
        EXPECT_EQ(IsValidUtf8(a + c.bytes + b, false), c.bytes == c.decoded);
      }
    }
  }
}

TEST(Utf8Validation, AcceptsOnlyWellFormedSequences) {
  EXPECT_TRUE(IsValidUtf8("", false));
  EXPECT_TRUE(IsValidUtf8("a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80", false));
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF", false));          // overlong
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80", false));      // surrogate
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80", false));  // above U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\x80", true));               // stray continuation byte
  EXPECT_FALSE(IsValidUtf8("\xE2\x82", false));
  EXPECT_TRUE(IsValidUtf8("\xE2\x82", true));
  EXPECT_TRUE(IsValidUtf8("x\xF0", true));
  EXPECT_FALSE(IsValidUtf8("\xE2\x82x", true));  // cut, but not at the end
}

// ---- Decoding (Encoding Standard decoders, replacement error mode). ----

struct DecodeCase {
  std::string_view name;
  Encoding encoding;
  std::string_view bytes;
  std::string_view utf8;
};

class Encoding_Decode : public ::testing::TestWithParam<DecodeCase> {};

TEST_P(Encoding_Decode, ProducesUtf8) {
  const DecodeCase& c = GetParam();
  absl::StatusOr<std::string> out = DecodeToUtf8(c.bytes, c.encoding);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, c.utf8) << c.name;
  EXPECT_TRUE(IsValidUtf8(*out, false)) << c.name;
}

using std::string_view_literals::operator""sv;

INSTANTIATE_TEST_SUITE_P(
    Cases, Encoding_Decode,
    ::testing::Values(
        DecodeCase{"utf-8 passes through", Encoding::kUtf8, "a\xC3\xA9\xE2\x82\xAC", "aé€"},
        // Encoding Standard 4.1: one U+FFFD per maximal subpart of an ill-formed sequence.
        DecodeCase{"utf-8 maximal subparts", Encoding::kUtf8, "\xF0\x9F\x98x\x80\xC0\xAFy",
                   "\uFFFDx\uFFFD\uFFFD\uFFFDy"},
        DecodeCase{"utf-8 surrogate", Encoding::kUtf8, "\xED\xA0\x80", "\uFFFD\uFFFD\uFFFD"},
        DecodeCase{"utf-8 cut at the end", Encoding::kUtf8, "ab\xE2\x82", "ab\uFFFD"},
        DecodeCase{"windows-1252 high half", Encoding::kWindows1252, "\x80\x93x\x94\xE9\xFF",
                   "€“x”éÿ"},
        // index-windows-1252 maps the five undefined bytes to C1 controls, not errors.
        DecodeCase{"windows-1252 0x81", Encoding::kWindows1252, "\x81", "\xC2\x81"},
        DecodeCase{"x-user-defined", Encoding::kXUserDefined, "a\x80\xFF", "a\uF780\uF7FF"},
        DecodeCase{"replacement", Encoding::kReplacement, "<p>anything", "\uFFFD"},
        DecodeCase{"replacement of nothing", Encoding::kReplacement, "", ""},
        DecodeCase{"koi8-r", Encoding::kKoi8R, "\xF0\xD2\xC9\xD7\xC5\xD4", "Привет"},
        DecodeCase{"windows-1251", Encoding::kWindows1251, "\xCF\xF0\xE8\xE2\xE5\xF2", "Привет"},
        DecodeCase{"iso-8859-2", Encoding::kIso8859_2, "\xB1\xE6", "ąć"},
        DecodeCase{"shift_jis", Encoding::kShiftJis, "\x93\xFA\x96\x7B", "日本"},
        DecodeCase{"shift_jis invalid lead byte", Encoding::kShiftJis, "\xA0x", "\uFFFDx"},
        DecodeCase{"euc-jp", Encoding::kEucJp, "\xC6\xFC\xCB\xDC", "日本"},
        DecodeCase{"iso-2022-jp", Encoding::kIso2022Jp, "\x1B$BF|K\\\x1B(B!", "日本!"},
        DecodeCase{"euc-kr", Encoding::kEucKr, "\xC7\xD1\xB1\xB9", "한국"},
        DecodeCase{"gbk", Encoding::kGbk, "\xD6\xD0\xCE\xC4", "中文"},
        DecodeCase{"big5", Encoding::kBig5, "\xA4\xA4\xA4\xE5", "中文"},
        DecodeCase{"utf-16le", Encoding::kUtf16Le, "<\0p\0\xE9\0\x3D\xD8\x00\xDE"sv, "<pé😀"},
        DecodeCase{"utf-16be", Encoding::kUtf16Be, "\0<\0p\0\xE9"sv, "<pé"},
        DecodeCase{"utf-16le lone surrogate", Encoding::kUtf16Le, "\x00\xD8x\0"sv, "\uFFFDx"},
        DecodeCase{"utf-16le odd byte at the end", Encoding::kUtf16Le, "x\0y"sv, "x\uFFFD"}));

TEST(Encoding_Decode, ReportsNameAndSource) {
  EXPECT_EQ(EncodingName(Encoding::kShiftJis), "Shift_JIS");
  EXPECT_EQ(EncodingName(Encoding::kWindows1252), "windows-1252");
  EXPECT_EQ(CharsetSourceName(CharsetSource::kMetaPrescan), "meta");
  EXPECT_EQ(CharsetSourceName(CharsetSource::kHttpHeader), "http-header");
}

}  // namespace
}  // namespace crawler::html
