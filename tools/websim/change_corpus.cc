#include "tools/websim/change_corpus.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "tools/websim/seeded_random.h"

namespace crawler::websim {
namespace {

constexpr std::array<std::string_view, kEditKinds> kKindNames = {
    "date-stamp",      "counter",           "rotating-ad",         "session-ids",
    "navigation-order", "whitespace-markup", "paragraph-added",    "paragraph-removed",
    "paragraph-rewritten", "price-changed",  "table-cell-changed", "news-item-added"};

// Salts of the corpus's random streams.
enum Salt : uint64_t { kVocabulary = 1, kArticle, kFurniture, kEdit, kDuplicate };

constexpr int kVocabularySize = 4096;
constexpr int kAdLines = 48;

// Pronounceable pseudo-words of 2-4 syllables, the same for every seed.
const std::vector<std::string>& Vocabulary() {
  static const std::vector<std::string> words = [] {
    constexpr std::string_view kOnsets[] = {"b", "c", "d", "f", "g", "h", "k", "l", "m", "n",
                                            "p", "r", "s", "t", "v", "z", "br", "st", "tr", "pl"};
    constexpr std::string_view kVowels[] = {"a", "e", "i", "o", "u", "ai", "ea", "ou"};
    Rng rng(SeededHash(0x636f72707573ULL, kVocabulary, 0));
    std::vector<std::string> out;
    while (static_cast<int>(out.size()) < kVocabularySize) {
      std::string word;
      const int syllables = 2 + static_cast<int>(rng.Below(3));
      for (int s = 0; s < syllables; ++s) {
        word += kOnsets[rng.Below(std::size(kOnsets))];
        word += kVowels[rng.Below(std::size(kVowels))];
      }
      if (rng.Below(2) == 0) word += "n";
      if (std::find(out.begin(), out.end(), word) == out.end()) out.push_back(std::move(word));
    }
    return out;
  }();
  return words;
}

std::string Words(Rng& rng, int count) {
  const std::vector<std::string>& vocabulary = Vocabulary();
  std::string out;
  for (int i = 0; i < count; ++i) {
    if (i > 0) out += (i % 11 == 0) ? ". " : " ";
    out += vocabulary[rng.Below(vocabulary.size())];
  }
  return out + ".";
}

std::string AdLine(int index) {
  Rng rng(SeededHash(0x616473ULL, kVocabulary, static_cast<uint64_t>(index)));
  return absl::StrCat("Sponsored: ", Words(rng, 8 + static_cast<int>(rng.Below(7))),
                      " Buy now!");
}

struct Row {
  std::string product;
  int availability = 0;  // index into kAvailability
  int price_cents = 0;
};
constexpr absl::string_view kAvailability[] = {"in stock", "sold out", "on order",
                                              "discontinued", "limited supply"};

// What belongs to the article: the same on a mirror.
struct Article {
  std::string title;
  std::vector<std::string> paragraphs;
  std::vector<std::string> news;
  std::vector<Row> rows;
};

// What belongs to the site and the request.
struct Furniture {
  int host = 0;
  std::vector<std::string> navigation;  // section names of the host, in display order
  int day = 1, month = 1, year = 2025, hour = 10, minute = 0;
  int views = 0;
  int ad = 0;
  std::string session;
  bool alternate_markup = false;
  bool furniture_markup = true;  // ChangeCorpusOptions::furniture_markup
};

std::string HostName(int host) { return absl::StrCat("host", host, ".example"); }

Article MakeArticle(Rng& rng) {
  Article article;
  article.title = Words(rng, 4 + static_cast<int>(rng.Below(5)));
  const int paragraphs = 3 + static_cast<int>(rng.Below(6));
  for (int i = 0; i < paragraphs; ++i) {
    article.paragraphs.push_back(Words(rng, 20 + static_cast<int>(rng.Below(131))));
  }
  const int news = 3 + static_cast<int>(rng.Below(3));
  for (int i = 0; i < news; ++i) article.news.push_back(Words(rng, 6 + static_cast<int>(rng.Below(7))));
  const int rows = 4 + static_cast<int>(rng.Below(5));
  for (int i = 0; i < rows; ++i) {
    article.rows.push_back(Row{Words(rng, 2), static_cast<int>(rng.Below(std::size(kAvailability))),
                               500 + static_cast<int>(rng.Below(100000))});
  }
  return article;
}

std::string Session(Rng& rng) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 24; ++i) out += kHex[rng.Below(16)];
  return out;
}

void Redate(Rng& rng, Furniture& furniture) {
  furniture.day = 1 + static_cast<int>(rng.Below(28));
  furniture.month = 1 + static_cast<int>(rng.Below(12));
  furniture.year = 2020 + static_cast<int>(rng.Below(7));
  furniture.hour = static_cast<int>(rng.Below(24));
  furniture.minute = static_cast<int>(rng.Below(60));
}

Furniture MakeFurniture(Rng& rng, int host, uint64_t seed) {
  Furniture furniture;
  furniture.host = host;
  Rng site(SeededHash(seed, kFurniture, static_cast<uint64_t>(host), 1));
  const int sections = 6 + static_cast<int>(site.Below(4));
  for (int i = 0; i < sections; ++i) furniture.navigation.push_back(Words(site, 1 + static_cast<int>(site.Below(2))));
  for (std::string& section : furniture.navigation) section.pop_back();  // no full stop
  Redate(rng, furniture);
  furniture.views = static_cast<int>(rng.Below(1000000));
  furniture.ad = static_cast<int>(rng.Below(kAdLines));
  furniture.session = Session(rng);
  return furniture;
}

std::string Render(const Article& article, const Furniture& f, int page) {
  static constexpr std::string_view kMonths[] = {"January", "February", "March",     "April",
                                                 "May",     "June",     "July",      "August",
                                                 "September", "October", "November", "December"};
  const bool alt = f.alternate_markup;
  const bool marked = f.furniture_markup;
  const std::string nl = alt ? "\n\n    " : "\n";
  const std::string sid = absl::StrCat("sid=", f.session);
  std::string html = absl::StrCat("<!DOCTYPE html>", nl, "<html lang=\"en\"><head><title>",
                                  article.title, "</title></head>", nl, "<body>", nl);
  absl::StrAppend(&html,
                  !marked ? "<div><ul>" : (alt ? "<header class=\"site\"><ul class=\"nav\">" : "<nav><ul>"),
                  nl);
  for (size_t i = 0; i < f.navigation.size(); ++i) {
    absl::StrAppend(&html, "<li><a href=\"/section/", i, "?", sid, "\">", f.navigation[i],
                    "</a></li>", nl);
  }
  absl::StrAppend(&html, !marked ? "</ul></div>" : (alt ? "</ul></header>" : "</ul></nav>"), nl);
  absl::StrAppend(&html, alt ? "<article class=\"post\">" : "<main>", nl, "<h1>", article.title,
                  "</h1>", nl);
  absl::StrAppend(&html,
                  absl::StrFormat("<p%s>Updated %s, %d %s %d, %02d:%02d CET. %d views</p>",
                                  marked ? " class=\"meta\"" : "", std::string_view("Monday"),
                                  f.day, kMonths[f.month - 1], f.year, f.hour, f.minute, f.views),
                  nl);
  absl::StrAppend(&html, marked ? "<div class=\"ad\">" : "<div>", AdLine(f.ad), "</div>", nl);
  for (const std::string& paragraph : article.paragraphs) {
    absl::StrAppend(&html, alt ? "<div class=\"para\">" : "<p>", paragraph,
                    alt ? "</div>" : "</p>", nl);
  }
  absl::StrAppend(&html, "<table>", nl, "<tr><th>Product</th><th>Availability</th><th>Price</th></tr>", nl);
  for (const Row& row : article.rows) {
    absl::StrAppend(&html, "<tr><td>", row.product, "</td><td>", kAvailability[row.availability],
                    "</td><td>", row.price_cents / 100, ".",
                    absl::StrFormat("%02d", row.price_cents % 100), " EUR</td></tr>", nl);
  }
  absl::StrAppend(&html, "</table>", nl, "<h2>News</h2>", nl, "<ul class=\"news\">", nl);
  for (size_t i = 0; i < article.news.size(); ++i) {
    absl::StrAppend(&html, "<li><a href=\"/news/", page, "-", i, ".html?", sid, "\">",
                    article.news[i], "</a></li>", nl);
  }
  absl::StrAppend(&html, "</ul>", nl, alt ? "</article>" : "</main>", nl,
                  marked ? "<footer>" : "<div>", "<a href=\"/about?", sid,
                  "\">About</a> <a href=\"/contact?", sid, "\">Contact</a>",
                  marked ? "</footer>" : "</div>", nl, "</body></html>", nl);
  return html;
}

// Applies `kind` to the article or the furniture.
void Edit(EditKind kind, Rng& rng, Article& article, Furniture& furniture) {
  switch (kind) {
    case EditKind::kDateStamp:
      Redate(rng, furniture);
      break;
    case EditKind::kCounter:
      furniture.views += 1 + static_cast<int>(rng.Below(5000));
      break;
    case EditKind::kRotatingAd:
      furniture.ad = (furniture.ad + 1 + static_cast<int>(rng.Below(kAdLines - 1))) % kAdLines;
      break;
    case EditKind::kSessionIds:
      furniture.session = Session(rng);
      break;
    case EditKind::kNavigationOrder: {
      std::vector<std::string> before = furniture.navigation;
      while (furniture.navigation == before) {
        for (size_t i = furniture.navigation.size() - 1; i > 0; --i) {
          std::swap(furniture.navigation[i], furniture.navigation[rng.Below(i + 1)]);
        }
      }
      break;
    }
    case EditKind::kWhitespaceMarkup:
      furniture.alternate_markup = !furniture.alternate_markup;
      break;
    case EditKind::kParagraphAdded:
      article.paragraphs.insert(
          article.paragraphs.begin() + static_cast<std::ptrdiff_t>(rng.Below(article.paragraphs.size() + 1)),
          Words(rng, 40 + static_cast<int>(rng.Below(81))));
      break;
    case EditKind::kParagraphRemoved:
      article.paragraphs.erase(article.paragraphs.begin() +
                               static_cast<std::ptrdiff_t>(rng.Below(article.paragraphs.size())));
      break;
    case EditKind::kParagraphRewritten: {
      std::string& paragraph = article.paragraphs[rng.Below(article.paragraphs.size())];
      const int words = static_cast<int>(std::count(paragraph.begin(), paragraph.end(), ' ')) + 1;
      paragraph = Words(rng, words);
      break;
    }
    case EditKind::kPriceChanged: {
      Row& row = article.rows[rng.Below(article.rows.size())];
      row.price_cents += (rng.Below(2) == 0 ? 1 : -1) * (100 + static_cast<int>(rng.Below(2000)));
      row.price_cents = std::max(row.price_cents, 99);
      break;
    }
    case EditKind::kTableCellChanged: {
      Row& row = article.rows[rng.Below(article.rows.size())];
      row.availability = (row.availability + 1 + static_cast<int>(rng.Below(std::size(kAvailability) - 1))) %
                         static_cast<int>(std::size(kAvailability));
      break;
    }
    case EditKind::kNewsItemAdded:
      article.news.insert(article.news.begin(), Words(rng, 6 + static_cast<int>(rng.Below(7))));
      break;
  }
}

}  // namespace

std::string_view EditKindName(EditKind kind) { return kKindNames[static_cast<int>(kind)]; }

bool IsRealEdit(EditKind kind) { return kind >= EditKind::kParagraphAdded; }

ChangeCorpus BuildChangeCorpus(const ChangeCorpusOptions& options) {
  ChangeCorpus corpus;
  constexpr int kHosts = 16;
  for (int page = 0; page < options.pages; ++page) {
    Rng article_rng(SeededHash(options.seed, kArticle, static_cast<uint64_t>(page)));
    const Article article = MakeArticle(article_rng);
    const int host = page % kHosts;
    Rng furniture_rng(SeededHash(options.seed, kFurniture, static_cast<uint64_t>(page)));
    Furniture furniture = MakeFurniture(furniture_rng, host, options.seed);
    furniture.furniture_markup = options.furniture_markup;
    const std::string url = absl::StrCat("http://", HostName(host), "/articles/", page, ".html");
    const std::string before = Render(article, furniture, page);
    for (int k = 0; k < kEditKinds; ++k) {
      const EditKind kind = static_cast<EditKind>(k);
      Rng edit_rng(SeededHash(options.seed, kEdit, static_cast<uint64_t>(page), static_cast<uint64_t>(k)));
      Article edited = article;
      Furniture refurnished = furniture;
      Edit(kind, edit_rng, edited, refurnished);
      corpus.versions.push_back(VersionPair{page, kind, IsRealEdit(kind), url, before,
                                            Render(edited, refurnished, page)});
    }
  }
  for (int pair = 0; pair < 2 * options.duplicate_pairs; ++pair) {
    const bool mirror = pair % 2 == 0;
    Rng rng(SeededHash(options.seed, kDuplicate, static_cast<uint64_t>(pair)));
    const int first_host = kHosts + static_cast<int>(rng.Below(64));
    const int second_host = first_host + 1 + static_cast<int>(rng.Below(63));
    const Article first = MakeArticle(rng);
    Furniture first_site = MakeFurniture(rng, first_host, options.seed);
    first_site.furniture_markup = options.furniture_markup;
    DuplicatePair out{pair, mirror, absl::StrCat("http://", HostName(first_host), "/a/", pair, ".html"),
                      Render(first, first_site, pair), "", ""};
    if (mirror) {
      // The same article under another site's furniture.
      Furniture second_site = MakeFurniture(rng, second_host, options.seed);
      second_site.furniture_markup = options.furniture_markup;
      out.second_url = absl::StrCat("http://", HostName(second_host), "/mirror/", pair, ".html");
      out.second_html = Render(first, second_site, pair);
    } else {
      // Another article under the same template and navigation, on the template's other host.
      Furniture second_site = first_site;
      second_site.host = second_host;
      Redate(rng, second_site);
      second_site.views = static_cast<int>(rng.Below(1000000));
      second_site.session = Session(rng);
      out.second_url = absl::StrCat("http://", HostName(second_host), "/a/", pair, ".html");
      out.second_html = Render(MakeArticle(rng), second_site, pair);
    }
    corpus.duplicates.push_back(std::move(out));
  }
  return corpus;
}

absl::Status ExportChangeCorpus(const ChangeCorpus& corpus, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::create_directories(fs::path(dir) / "versions", error);
  if (!error) fs::create_directories(fs::path(dir) / "duplicates", error);
  if (error) return absl::InternalError(absl::StrCat("cannot create ", dir, ": ", error.message()));
  auto write = [](const fs::path& path, std::string_view content) {
    std::ofstream out(path, std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.close();
    return out ? absl::OkStatus() : absl::InternalError(absl::StrCat("cannot write ", path.string()));
  };
  std::string labels;
  for (const VersionPair& v : corpus.versions) {
    const std::string stem = absl::StrCat(v.page, "-", std::string(EditKindName(v.kind)));
    absl::StrAppend(&labels, "version\t", v.page, "\t", std::string(EditKindName(v.kind)), "\t",
                    v.changed ? "changed" : "unchanged", "\n");
    if (absl::Status s = write(fs::path(dir) / "versions" / (stem + "-before.html"), v.before_html); !s.ok()) return s;
    if (absl::Status s = write(fs::path(dir) / "versions" / (stem + "-after.html"), v.after_html); !s.ok()) return s;
  }
  for (const DuplicatePair& d : corpus.duplicates) {
    absl::StrAppend(&labels, "duplicate\t", d.pair, "\t", d.mirror ? "mirror" : "template", "\t",
                    d.mirror ? "duplicate" : "distinct", "\n");
    const std::string stem = absl::StrCat(d.pair);
    if (absl::Status s = write(fs::path(dir) / "duplicates" / (stem + "-first.html"), d.first_html); !s.ok()) return s;
    if (absl::Status s = write(fs::path(dir) / "duplicates" / (stem + "-second.html"), d.second_html); !s.ok()) return s;
  }
  return write(fs::path(dir) / "labels.tsv", labels);
}

}  // namespace crawler::websim
