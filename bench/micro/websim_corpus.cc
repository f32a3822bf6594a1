#include "bench/micro/websim_corpus.h"

#include <cstdlib>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "lib/html/extract_page.h"
#include "lib/url/url.h"
#include "tools/websim/site_model.h"

namespace crawler::bench {
namespace {

[[noreturn]] void Fail(const std::string& what) {
  std::cerr << "websim corpus: " << what << "\n";
  std::abort();
}

Corpus Build() {
  websim::WebsimOptions options;
  options.num_hosts = 200;
  options.pages_per_host = 60;
  options.seed = 1;
  options.page_bytes_min = 2048;
  options.page_bytes_max = 8192;
  absl::StatusOr<websim::SiteModel> model = websim::SiteModel::Create(options);
  if (!model.ok()) Fail(model.status().ToString());
  Corpus corpus;
  for (int host = 0; host < 8; ++host) {
    for (int page = 0; page < options.pages_per_host; ++page) {
      const websim::PageRef ref{.host = host, .page = page};
      CorpusPage p;
      p.url = model->UrlOf(ref);
      p.body = model->RenderPage(ref, absl::ZeroDuration());
      p.http_response = absl::StrCat(
          "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: ",
          p.body.size(), "\r\n\r\n", p.body);
      absl::StatusOr<url::Url> url = url::Url::Parse(p.url);
      if (!url.ok()) Fail(url.status().ToString());
      absl::StatusOr<html::ExtractedPage> extracted =
          html::ExtractPage(p.body, *url, "text/html; charset=utf-8");
      if (!extracted.ok()) Fail(extracted.status().ToString());
      p.text = extracted->text;
      corpus.body_bytes += p.body.size();
      corpus.text_bytes += p.text.size();
      corpus.response_bytes += p.http_response.size();
      corpus.pages.push_back(std::move(p));
    }
  }
  return corpus;
}

}  // namespace

const Corpus& WebsimCorpus() {
  static const Corpus* const corpus = new Corpus(Build());
  return *corpus;
}

}  // namespace crawler::bench
