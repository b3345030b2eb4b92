// fuzz-link: berth_storage_logic berth_runtime_logic
// fuzz-sources: core/src/http/host_routing.cpp
// Request paths and Host headers, each parser against a plain restatement of its rule written
// here (a differential: the two must agree, not merely not crash):
// - the storage plugin's file paths (plugins/storage/src/file_paths.cpp): a decoded path is
//   accepted exactly when it is 1-1024 bytes of well-formed UTF-8 without NUL, control
//   characters or backslash, made of non-empty segments none of which is "." or ".."; its URL
//   spelling decodes back to it; isUtf8 against a validator written from Unicode's table of
//   well-formed byte sequences;
// - the runtime's percent decoding (the SDK's, NUL refused) and static file mapping
//   (static_site.cpp): no NUL ever comes out; a file answered lies inside the release, is not
//   reached through a "..", a hidden part (".well-known" aside) or the release's outside link;
// - the core's Host routing (core/src/http/host_routing.cpp): a Host is project traffic exactly
//   when, lower-cased, without its ":port" and trailing dots, it is a custom host or one DNS
//   label (RFC 1123: 1-63 letters, digits, hyphens, not starting or ending with a hyphen)
//   other than "api" under the apps domain.
// Excluded from the Host comparison: a ":port" that is not digits (the HTTP layer's business;
// routing reads the name before the colon either way).
#include <unistd.h>
#include <berth/util/percent_decode.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../../plugins/runtime/src/static_site.hpp"
#include "../../plugins/storage/src/file_paths.hpp"
#include "http/host_routing.hpp"
#include "support/fuzz_check.hpp"

namespace {

namespace fs = std::filesystem;
using berth::fuzz::check;
using berth::fuzz::fail;

constexpr size_t kMaxInput = 4096;

std::vector<std::string_view> segments(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    const size_t end = path.find('/', start);
    parts.push_back(path.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

// Unicode 15, table 3-7 (well-formed UTF-8 byte sequences), byte ranges as written there.
bool wellFormedUtf8(std::string_view text) {
  auto in = [](unsigned char c, int lo, int hi) { return c >= lo && c <= hi; };
  size_t i = 0;
  while (i < text.size()) {
    const auto at = [&](size_t k) -> int {
      return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : -1;
    };
    const int b0 = at(0);
    auto cont = [&](size_t k, int lo = 0x80, int hi = 0xBF) {
      return at(k) >= 0 && in(static_cast<unsigned char>(at(k)), lo, hi);
    };
    if (b0 <= 0x7F) {
      i += 1;
    } else if (in(b0, 0xC2, 0xDF) && cont(1)) {
      i += 2;
    } else if (b0 == 0xE0 && cont(1, 0xA0, 0xBF) && cont(2)) {
      i += 3;
    } else if ((in(b0, 0xE1, 0xEC) || in(b0, 0xEE, 0xEF)) && cont(1) && cont(2)) {
      i += 3;
    } else if (b0 == 0xED && cont(1, 0x80, 0x9F) && cont(2)) {
      i += 3;
    } else if (b0 == 0xF0 && cont(1, 0x90, 0xBF) && cont(2) && cont(3)) {
      i += 4;
    } else if (in(b0, 0xF1, 0xF3) && cont(1) && cont(2) && cont(3)) {
      i += 4;
    } else if (b0 == 0xF4 && cont(1, 0x80, 0x8F) && cont(2) && cont(3)) {
      i += 4;
    } else {
      return false;
    }
  }
  return true;
}

bool storablePath(std::string_view path) {
  if (path.empty() || path.size() > berth::storage::kMaxPathBytes) return false;
  for (unsigned char c : path)
    if (c < 0x20 || c == 0x7F || c == '\\') return false;
  if (!wellFormedUtf8(path)) return false;
  for (auto part : segments(path))
    if (part.empty() || part == "." || part == "..") return false;
  return true;
}

void checkStoragePath(std::string_view decoded) {
  const bool utf8 = berth::storage::isUtf8(decoded);
  check(utf8 == wellFormedUtf8(decoded), "isUtf8 disagrees with Unicode's table",
        utf8 ? "accepted" : "refused");
  const auto refusal = berth::storage::pathRefusal(decoded);
  if (refusal) {
    check(!storablePath(decoded), "a storable file path was refused", *refusal);
    check(!refusal->empty(), "a file path was refused without a reason");
    return;
  }
  check(storablePath(decoded), "a file path breaking the rules was accepted");
  check(decoded.find('\0') == std::string_view::npos, "an accepted file path holds a NUL");
  const std::string url = berth::storage::urlPath(decoded);
  const auto back = berth::percentDecode(url);
  check(back && *back == decoded, "a file path's URL spelling does not decode back to it", url);
  for (unsigned char c : url)
    check(c == '%' || c == '/' || c == '-' || c == '.' || c == '_' || c == '~' ||
              (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'),
          "a file path's URL spelling holds a byte that needs encoding", url);
  const auto base = berth::storage::baseName(decoded);
  check(!base.empty() && base.find('/') == std::string_view::npos,
        "an accepted file path has no file name");
}

// A release (index.html, a folder, a hidden file, .well-known, a link inside, a link outside
// that unpacking would have refused) beside a folder of secrets.
struct Site {
  fs::path base;
  fs::path release;
  Site() {
    char name[] = "/tmp/berth-fuzz-path.XXXXXX";
    if (!::mkdtemp(name)) fail("cannot create the fuzzing folder");
    base = name;
    release = base / "release";
    fs::create_directories(release / "docs" / "deep");
    fs::create_directories(release / ".well-known");
    fs::create_directories(release / ".git");
    fs::create_directories(base / "secrets");
    for (const char* file : {"index.html", "docs/index.html", "docs/deep/a b.txt", ".env",
                             ".well-known/security.txt", ".git/config", "docs/%41.txt"})
      std::ofstream(release / file) << file;
    std::ofstream(base / "secrets" / "key") << "secret";
    fs::create_symlink("docs", release / "inside");
    fs::create_symlink("../secrets", release / "outside");
    fs::create_symlink("../secrets/key", release / "key.txt");
  }
  ~Site() {
    std::error_code ignored;
    fs::remove_all(base, ignored);
  }
};

void checkStaticPath(const Site& site, std::string_view raw) {
  const auto decoded = berth::percentDecode(raw, {.refuse_nul = true});
  const auto plain = berth::percentDecode(raw);
  if (decoded) {
    check(decoded->find('\0') == std::string::npos, "a decoded request path holds a NUL");
    check(plain && *plain == *decoded, "the runtime decodes a path otherwise than the SDK");
  } else {
    check(!plain || plain->find('\0') != std::string::npos,
          "the runtime refused a path the SDK decodes without a NUL");
  }

  const auto answer = berth::runtime::staticFileFor(site.release, raw);
  using Kind = berth::runtime::StaticAnswer::Kind;
  if (answer.kind == Kind::NotFound) return;
  check(decoded.has_value() && !raw.empty() && raw.front() == '/',
        "a request path that does not decode was answered");
  for (auto part : segments(*decoded)) {
    check(part != "..", "a path with '..' was answered", std::string(raw));
    check(part.empty() || part == "." || part.front() != '.' || part == ".well-known",
          "a path with a hidden part was answered", std::string(raw));
  }
  const fs::path root = fs::canonical(site.release);
  if (answer.kind == Kind::Redirect) {
    check(answer.location == std::string(raw) + "/", "a redirect does not add the slash",
          answer.location);
    check(!decoded->ends_with("/"), "a folder with its slash was redirected");
    return;
  }
  const fs::path file(answer.path);
  const auto rel = file.lexically_relative(root);
  check(file.is_absolute() && !rel.empty() && *rel.begin() != "..",
        "an answered file lies outside the release", answer.path);
  check(fs::canonical(file) == file, "an answered file's path goes through a link", answer.path);
  check(fs::is_regular_file(fs::symlink_status(file)), "an answered file is not a file",
        answer.path);
  check(!answer.content_type.empty(), "an answered file has no content type");
}

// The Host rule restated: see the file's comment. nullopt: excluded from the comparison.
std::optional<bool> projectHostByRule(std::string_view header, std::string_view apps_domain,
                                      const std::vector<std::string>& custom) {
  std::string host(header);
  if (!host.empty() && host.front() == '[') return false;  // an IPv6 literal
  if (const auto colon = host.find(':'); colon != std::string::npos) {
    const auto port = host.substr(colon + 1);
    if (port.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    host.resize(colon);
  }
  for (char& c : host)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  while (!host.empty() && host.back() == '.') host.pop_back();
  for (const auto& name : custom)
    if (host == name) return true;
  const std::string suffix = "." + std::string(apps_domain);
  if (host.size() <= suffix.size() || !host.ends_with(suffix)) return false;
  const std::string label = host.substr(0, host.size() - suffix.size());
  if (label == "api" || label.size() > 63 || label.front() == '-' || label.back() == '-')
    return false;
  for (char c : label)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  return true;
}

void checkHost(std::string_view header) {
  static const std::vector<std::string> kCustom = {"www.shop-example.com", "blog.example.org"};
  static berth::core::HostRouting routing("Apps.Example.Test.");
  static const bool custom_set = [] {
    routing.setCustomHosts({"WWW.Shop-Example.com", "blog.example.org."});
    return true;
  }();
  (void)custom_set;
  const std::string normalised = berth::core::HostRouting::normalise(std::string(header));
  check(normalised.size() <= header.size(), "normalising a Host made it longer");
  check(berth::core::HostRouting::normalise(normalised) == normalised ||
            (!normalised.empty() && normalised.front() == '['),
        "normalising a Host twice changes it", normalised);
  const bool project = routing.isProjectHost(normalised);
  const auto expected = projectHostByRule(header, "apps.example.test", kCustom);
  if (!expected) return;
  if (project != *expected)
    fail(project ? "a Host outside the rules is routed as project traffic"
                 : "a project's Host is routed to the API",
         std::string(header) + " -> " + normalised);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxInput) return 0;
  static Site site;
  const auto text = berth::fuzz::asText(data, size);
  if (const auto decoded = berth::percentDecode(text)) checkStoragePath(*decoded);
  checkStoragePath(text);
  checkStaticPath(site, text);
  checkStaticPath(site, "/" + std::string(text));
  checkHost(text);
  return 0;
}
