#include "tests/unit/websim/reference_crawler.h"

#include <gumbo.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

namespace crawler::websim::testing_support {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string Trim(const std::string& s) {
  const char* ws = " \t\n\r\f";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

void Walk(const GumboNode* node, std::vector<ExtractedLink>* out) {
  if (node->type != GUMBO_NODE_ELEMENT) return;
  const GumboElement& e = node->v.element;
  if (e.tag == GUMBO_TAG_A) {
    if (const GumboAttribute* href = gumbo_get_attribute(&e.attributes, "href")) {
      ExtractedLink link;
      link.href = href->value;
      if (const GumboAttribute* rel = gumbo_get_attribute(&e.attributes, "rel")) {
        std::istringstream tokens(Lower(rel->value));
        std::string token;
        while (tokens >> token) link.nofollow |= token == "nofollow";
      }
      out->push_back(link);
    }
  }
  for (unsigned i = 0; i < e.children.length; ++i) {
    Walk(static_cast<const GumboNode*>(e.children.data[i]), out);
  }
}

struct Parts {
  std::optional<std::string> scheme, authority, query, fragment;
  std::string path;
};

// RFC 3986 Appendix B.
Parts Split(const std::string& uri) {
  static const std::regex re(R"(^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?)");
  std::smatch m;
  std::regex_match(uri, m, re);
  Parts p;
  if (m[1].matched) p.scheme = m[2];
  if (m[3].matched) p.authority = m[4];
  p.path = m[5];
  if (m[6].matched) p.query = m[7];
  if (m[8].matched) p.fragment = m[9];
  return p;
}

// RFC 3986 §5.2.4.
std::string RemoveDotSegments(std::string in) {
  std::string out;
  while (!in.empty()) {
    if (in.rfind("../", 0) == 0) {
      in.erase(0, 3);
    } else if (in.rfind("./", 0) == 0) {
      in.erase(0, 2);
    } else if (in.rfind("/./", 0) == 0) {
      in.replace(0, 3, "/");
    } else if (in == "/.") {
      in = "/";
    } else if (in.rfind("/../", 0) == 0 || in == "/..") {
      in = in == "/.." ? "/" : in.substr(3);
      const size_t slash = out.rfind('/');
      out.erase(slash == std::string::npos ? 0 : slash);
    } else if (in == "." || in == "..") {
      in.clear();
    } else {
      const size_t next = in.find('/', in[0] == '/' ? 1 : 0);
      out += in.substr(0, next);
      in.erase(0, next);
    }
  }
  return out;
}

std::string Recompose(const Parts& p) {
  std::string s;
  if (p.scheme) s += *p.scheme + ":";
  if (p.authority) s += "//" + *p.authority;
  s += p.path;
  if (p.query) s += "?" + *p.query;
  if (p.fragment) s += "#" + *p.fragment;
  return s;
}

}  // namespace

std::vector<ExtractedLink> ExtractLinks(const std::string& html) {
  GumboOutput* output = gumbo_parse_with_options(&kGumboDefaultOptions, html.data(), html.size());
  std::vector<ExtractedLink> links;
  Walk(output->root, &links);
  gumbo_destroy_output(&kGumboDefaultOptions, output);
  return links;
}

std::string Resolve(const std::string& base_uri, const std::string& reference) {
  const Parts r = Split(Trim(reference));
  const Parts base = Split(base_uri);
  Parts t;
  if (r.scheme) {
    t = r;
    t.path = RemoveDotSegments(r.path);
  } else {
    if (r.authority) {
      t.authority = r.authority;
      t.path = RemoveDotSegments(r.path);
      t.query = r.query;
    } else {
      if (r.path.empty()) {
        t.path = base.path;
        t.query = r.query ? r.query : base.query;
      } else {
        if (r.path[0] == '/') {
          t.path = RemoveDotSegments(r.path);
        } else {
          // §5.2.3 merge.
          std::string merged;
          if (base.authority && base.path.empty()) {
            merged = "/" + r.path;
          } else {
            const size_t slash = base.path.rfind('/');
            merged = (slash == std::string::npos ? "" : base.path.substr(0, slash + 1)) + r.path;
          }
          t.path = RemoveDotSegments(merged);
        }
        t.query = r.query;
      }
      t.authority = base.authority;
    }
    t.scheme = base.scheme;
  }
  t.fragment = r.fragment;
  return Recompose(t);
}

std::optional<std::string> CanonicalHttpUrl(const std::string& absolute) {
  Parts p = Split(absolute);
  if (!p.scheme || Lower(*p.scheme) != "http" || !p.authority || p.authority->empty()) {
    return std::nullopt;
  }
  std::string host = Lower(*p.authority);
  if (host.size() > 3 && host.compare(host.size() - 3, 3, ":80") == 0) {
    host.resize(host.size() - 3);
  }
  std::string url = "http://" + host + (p.path.empty() ? "/" : p.path);
  if (p.query) url += "?" + *p.query;
  return url;
}

std::pair<std::string, std::string> SplitHttpUrl(const std::string& canonical) {
  const std::string rest = canonical.substr(7);  // "http://"
  const size_t slash = rest.find('/');
  return {rest.substr(0, slash), rest.substr(slash)};
}

bool RobotsAllowed(const std::string& robots_txt, const std::string& user_agent,
                   const std::string& path) {
  struct Rule {
    bool allow;
    std::string prefix;
  };
  struct Group {
    std::vector<std::string> agents;
    std::vector<Rule> rules;
  };
  std::vector<Group> groups;
  bool in_agents = false;
  std::istringstream lines(robots_txt);
  std::string line;
  while (std::getline(lines, line)) {
    line = Trim(line.substr(0, line.find('#')));
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = Lower(Trim(line.substr(0, colon)));
    const std::string value = Trim(line.substr(colon + 1));
    if (key == "user-agent") {
      if (!in_agents) groups.emplace_back();
      groups.back().agents.push_back(Lower(value));
      in_agents = true;
    } else if (key == "allow" || key == "disallow") {
      in_agents = false;
      if (groups.empty() || value.empty()) continue;
      if (value.find_first_of("*$") != std::string::npos) return false;  // not expected
      groups.back().rules.push_back(Rule{key == "allow", value});
    } else {
      in_agents = false;
    }
  }
  const Group* chosen = nullptr;
  for (const Group& g : groups) {
    for (const std::string& agent : g.agents) {
      if (agent == Lower(user_agent)) chosen = &g;
    }
  }
  if (chosen == nullptr) {
    for (const Group& g : groups) {
      if (std::find(g.agents.begin(), g.agents.end(), "*") != g.agents.end()) chosen = &g;
    }
  }
  if (chosen == nullptr) return true;
  size_t best = 0;
  bool allowed = true;
  for (const Rule& rule : chosen->rules) {
    if (path.compare(0, rule.prefix.size(), rule.prefix) != 0) continue;
    if (rule.prefix.size() > best || (rule.prefix.size() == best && rule.allow)) {
      best = rule.prefix.size();
      allowed = rule.allow;
    }
  }
  return allowed;
}

}  // namespace crawler::websim::testing_support
