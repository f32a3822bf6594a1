// The normalisation rules of text_normalizer.h, one table per rule (numbers as in the header).
#include "lib/fingerprint/text_normalizer.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/unit/fingerprint/reference_text_normalizer.h"

namespace crawler::fingerprint {
namespace {

struct Case {
  std::string input;
  std::string want;  // NormalizeForFingerprint: tokens joined by spaces
};

void ExpectNormalized(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    EXPECT_EQ(NormalizeForFingerprint(c.input), c.want) << "input: " << c.input;
  }
}

TEST(TextNormalizer_Rule1, InvalidUtf8SeparatesWordsAndNeverFails) {
  ExpectNormalized({
      {"abc\xFF" "def", "abc def"},
      {"abc\xC0\xAF" "def", "abc def"},          // overlong '/'
      {"abc\xED\xA0\x80" "def", "abc def"},      // UTF-16 surrogate
      {"abc\xF4\x90\x80\x80" "def", "abc def"},  // > U+10FFFF
      {"abc\xE6\x97", "abc"},                    // truncated at the end
      {"\xE6\x97" "abc", "abc"},                 // truncated, then ASCII
      {"\x80\x80\x80", ""},
      {std::string("a\0b", 3), "a b"},
  });
}

TEST(TextNormalizer_Rule2, LowercasesCommonScripts) {
  ExpectNormalized({
      {"Hello WORLD", "hello world"},
      {"\xC3\x89" "COLE Stra\xC3\x9F" "e \xC3\x84\xC3\x96\xC3\x9C",  // ÉCOLE Straße ÄÖÜ
       "\xC3\xA9" "cole stra\xC3\x9F" "e \xC3\xA4\xC3\xB6\xC3\xBC"},
      {"\xC5\x81\xC3\x93\x44\xC5\xB9", "\xC5\x82\xC3\xB3\x64\xC5\xBA"},  // ŁÓDŹ -> łódź
      {"\xC4\xB0stanbul", "istanbul"},                                  // İstanbul
      {"\xC5\xB8", "\xC3\xBF"},                                         // Ÿ -> ÿ
      {"\xCE\x91\xCE\x98\xCE\x97\xCE\x9D\xCE\x91", "\xCE\xB1\xCE\xB8\xCE\xB7\xCE\xBD\xCE\xB1"},  // ΑΘΗΝΑ
      {"\xD0\x9C\xD0\x9E\xD0\xA1\xD0\x9A\xD0\x92\xD0\x90 \xD0\x81\xD0\xBB\xD0\xBA\xD0\xB0",  // МОСКВА Ёлка
       "\xD0\xBC\xD0\xBE\xD1\x81\xD0\xBA\xD0\xB2\xD0\xB0 \xD1\x91\xD0\xBB\xD0\xBA\xD0\xB0"},
  });
}

TEST(TextNormalizer_Rule3, SplitsOnPunctuationSymbolsAndSpaces) {
  ExpectNormalized({
      {"  Hello,   world!  ", "hello world"},
      {"e-mail don't", "e mail don t"},
      {"word\xE2\x80\x94word", "word word"},                // em dash
      {"non\xC2\xA0" "breaking", "non breaking"},           // NBSP
      {"\xC2\xAB" "quoted\xC2\xBB", "quoted"},              // «quoted»
      {"great\xF0\x9F\x91\x8Djob", "great job"},            // emoji
      {"\xEE\x80\x81Menu \xEF\xA3\xBFSearch", "menu search"},  // private-use icon glyphs
      {"a\xE2\x80\x8B" "b", "a b"},                         // zero-width space breaks words
      {"https://example.com/path?q=x", "https example com path q x"},
  });
}

TEST(TextNormalizer_Rule3, InvisibleJoinersDoNotSplitWords) {
  ExpectNormalized({
      {"hyphen\xC2\xAD" "ation", "hyphenation"},  // soft hyphen
      {"a\xE2\x80\x8D" "b", "ab"},                // ZWJ
      {"\xEF\xBB\xBFstart", "start"},             // BOM
  });
}

TEST(TextNormalizer_Rule4, CjkCharactersAreTokensOfTheirOwn) {
  ExpectNormalized({
      {"\xE6\x9D\xB1\xE4\xBA\xAC\xE3\x82\xBF\xE3\x83\xAF\xE3\x83\xBC",  // 東京タワー
       "\xE6\x9D\xB1 \xE4\xBA\xAC \xE3\x82\xBF \xE3\x83\xAF \xE3\x83\xBC"},
      {"ABC\xE6\x9D\xB1" "def", "abc \xE6\x9D\xB1 def"},
      {"\xE3\x80\x8C\xE6\x9D\xB1\xE3\x80\x8D", "\xE6\x9D\xB1"},  // 「東」: CJK brackets separate
  });
}

TEST(TextNormalizer_Rule5, TokensWithDigitsAreDropped) {
  ExpectNormalized({
      {"12,345 views", "views"},
      {"Comments (17)", "comments"},
      {"COVID-19 cases", "covid cases"},
      {"version 4.2.1 released", "version released"},
      {"the 3rd time", "the time"},
      {"price $19.99 only", "price only"},
      {"session a8f3e9c1d2b7", "session"},
      {"\xD9\xA2\xD9\xA0\xD9\xA2\xD9\xA5 year", ""},  // Arabic-Indic digits; "year" is rule 8
      {"\xEF\xBC\x91\xEF\xBC\x92 items", "items"},    // fullwidth digits
  });
}

TEST(TextNormalizer_Rule6, IdentifierLikeTokensAreDropped) {
  ExpectNormalized({
      {"token=hQeRtYuIoPaSdFgHjK", "token"},
      {"hQeRtYuIoPaSdFgH", ""},                 // 16 characters: dropped
      {"hQeRtYuIoPaSdFg", "hqertyuiopasdfg"},    // 15: kept
      {"JavaScript PowerShell", "javascript powershell"},
      {"INTERNATIONALISATION", "internationalisation"},  // no inner capital after lower case
      {"internationalisation", "internationalisation"},
  });
}

TEST(TextNormalizer_Rule7, OverlongTokensAreDropped) {
  ExpectNormalized({
      {std::string(kMaxTokenBytes, 'a'), std::string(kMaxTokenBytes, 'a')},
      {"x " + std::string(kMaxTokenBytes + 1, 'a') + " y", "x y"},
      {"x " + std::string(100'000, 'a') + " y", "x y"},
  });
  // The limit is in bytes of the lowercased token: 33 two-byte characters are 66 bytes.
  std::string cyrillic;
  for (int i = 0; i < 33; ++i) cyrillic += "\xD0\xB6";
  EXPECT_EQ(NormalizeForFingerprint(cyrillic), "");
}

TEST(TextNormalizer_Rule8, DateAndTimeWordsAreDropped) {
  ExpectNormalized({
      {"Published Monday, 3 March 2025 at 10:42 CET", "published at"},
      {"Updated 5 minutes ago", "updated"},
      {"Thu, 16 Oct 2025 23:07:01 GMT", ""},
      {"11:30 pm yesterday", ""},
      {"Montag, 3. M\xC3\xA4rz 2025, 10:42 Uhr", ""},
      {"Mardi 4 f\xC3\xA9vrier", ""},
      {"Lunes 3 de marzo", "de"},
      {"16 \xD0\xBE\xD0\xBA\xD1\x82\xD1\x8F\xD0\xB1\xD1\x80\xD1\x8F 2025 \xD0\xB3\xD0\xBE\xD0\xB4\xD0\xB0",
       ""},  // 16 октября 2025 года
      {"an hour", "an"},  // "an" is kept: the English article, although French for "year"
  });
}

TEST(TextNormalizer, DateWordListIsLowercaseAndSearchable) {
  EXPECT_TRUE(IsDateOrTimeWord("march"));
  EXPECT_TRUE(IsDateOrTimeWord("m\xC3\xA4rz"));
  EXPECT_TRUE(IsDateOrTimeWord("\xD0\xBC\xD0\xB0\xD1\x8F"));  // мая
  EXPECT_FALSE(IsDateOrTimeWord("March"));  // callers pass lowercased tokens
  EXPECT_FALSE(IsDateOrTimeWord("marching"));
  EXPECT_FALSE(IsDateOrTimeWord(""));
}

TEST(TextNormalizer, TokensMatchTheJoinedForm) {
  const std::string text = "The Quick brown fox, 42 times!";
  EXPECT_EQ(FingerprintTokens(text), (std::vector<std::string>{"the", "quick", "brown", "fox",
                                                               "times"}));
  std::vector<std::string> streamed;
  ForEachFingerprintToken(text, [&](std::string_view t) { streamed.emplace_back(t); });
  EXPECT_EQ(streamed, FingerprintTokens(text));
}

// Untrusted input: arbitrary bytes never crash, and every token is non-empty, short, valid UTF-8
// without separators. (Seeded, so the run is reproducible.)
TEST(TextNormalizer, ArbitraryBytesYieldWellFormedTokens) {
  std::mt19937_64 random(20250303);
  // Bytes biased towards UTF-8 lead and continuation bytes, where decoders go wrong.
  const std::string alphabet = std::string("aZ09 .-\xC3\xA9\xE2\x80\x94\xF0\x9F\x91\x8D\xED\xC0") +
                               std::string("\x80\xBF\xFF\xF4\x90\xE6\x97\xB1\x00", 9);
  for (int round = 0; round < 2000; ++round) {
    std::string input;
    const size_t length = random() % 200;
    for (size_t i = 0; i < length; ++i) {
      input.push_back((random() % 4 == 0) ? static_cast<char>(random() & 0xFF)
                                          : alphabet[random() % alphabet.size()]);
    }
    ForEachFingerprintToken(input, [&](std::string_view token) {
      ASSERT_FALSE(token.empty());
      ASSERT_LE(token.size(), kMaxTokenBytes);
      // Re-normalising a token yields the token itself: it is valid UTF-8, lowercase, one word.
      ASSERT_EQ(NormalizeForFingerprint(token), token) << "round " << round;
    });
  }
}

// The optimised tokeniser (ASCII fast path, hashed date-word probe) yields exactly the tokens of
// the plain version 1 implementation, on text mixing ASCII words of every shape, date words,
// other scripts, invisible characters and invalid bytes.
TEST(TextNormalizer, SameTokensAsTheVersion1Reference) {
  std::mt19937_64 random(20250601);
  // clang-format off
  std::vector<std::string> pieces = {
      "word", "Word", "WORD", "wOrD", "x", " ", "  ", ".", ", ", "\n", "\t", "-", "'", "_", "@",
      "12", "v2", "3rd", "march", "March", "MAY", "tuesdays", "ago", "utc", "hQeRtYuIoPaSdFgH",
      "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnop", "m\xC3\xA4rz",
      "gro\xC3\x9F", "\xC3\x89LAN", "\xD0\x9C\xD0\xB0\xD1\x8F", "\xE6\x9D\xB1\xE4\xBA\xAC",
      "\xC2\xAD", "\xE2\x80\x8D", "\xE2\x80\x94", "\xEF\xBC\x91", "\xF0\x9F\x91\x8D", "\xC3",
      "\x80", "\xFF", "\xED\xA0\x80"};
  // clang-format on
  pieces.push_back(std::string("\0", 1));
  for (int round = 0; round < 3000; ++round) {
    std::string input;
    const size_t count = random() % 120;
    for (size_t i = 0; i < count; ++i) input += pieces[random() % pieces.size()];
    ASSERT_EQ(FingerprintTokens(input), reference::FingerprintTokens(input)) << "round " << round;
  }
  for (const std::string& piece : pieces) {
    ASSERT_EQ(IsDateOrTimeWord(piece), reference::IsDateOrTimeWord(piece)) << piece;
  }
}

}  // namespace
}  // namespace crawler::fingerprint
