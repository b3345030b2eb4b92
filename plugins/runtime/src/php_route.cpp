#include "php_route.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <system_error>
#include <vector>

#include <berth/util/percent_decode.hpp>

#include "static_site.hpp"

namespace berth::runtime {
namespace {

namespace fs = std::filesystem;

// The path's parts, percent-decoded; nullopt for a bad escape, a NUL, "..", or a hidden part.
std::optional<std::vector<std::string>> pathParts(std::string_view raw) {
  const std::optional<std::string> found = berth::percentDecode(raw, {.refuse_nul = true});
  if (!found) return std::nullopt;
  const std::string& decoded = *found;
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= decoded.size()) {
    auto end = decoded.find('/', start);
    if (end == std::string::npos) end = decoded.size();
    std::string part = decoded.substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") return std::nullopt;
    if (part.front() == '.' && part != ".well-known") return std::nullopt;
    parts.push_back(std::move(part));
  }
  return parts;
}

std::string lowerExtension(std::string_view name) {
  const auto dot = name.rfind('.');
  if (dot == std::string_view::npos) return "";
  std::string ext(name.substr(dot + 1));
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

// `resolved` relative to `root` ("a/b.php"), or nullopt when it is outside or goes through a
// hidden part (a link inside the release may point at ".env").
std::optional<fs::path> visibleInside(const fs::path& root, const fs::path& resolved) {
  if (resolved == root) return fs::path();
  fs::path rel = resolved.lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..") return std::nullopt;
  for (const auto& part : rel) {
    const std::string name = part.string();
    if (name.empty() || (name.front() == '.' && name != ".well-known")) return std::nullopt;
  }
  return rel;
}

bool isRegularFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

PhpRoute script(const fs::path& relative) {
  PhpRoute route;
  route.kind = PhpRoute::Kind::Script;
  route.script_name = "/" + relative.generic_string();
  return route;
}

PhpRoute file(const fs::path& resolved) {
  PhpRoute route;
  if (isPhpSourceName(resolved.filename().string())) return route;  // never sent
  route.kind = PhpRoute::Kind::File;
  route.path = resolved.string();
  route.content_type = contentTypeFor(resolved.filename().string());
  return route;
}

// The front controller: /index.php with the request's URI, when the release has one.
PhpRoute frontController(const fs::path& root) {
  if (!isRegularFile(root / "index.php")) return PhpRoute{};
  return script("index.php");
}

}  // namespace

bool isPhpScriptName(std::string_view file_name) {
  return lowerExtension(file_name) == "php";
}

bool isPhpSourceName(std::string_view file_name) {
  static constexpr std::array<std::string_view, 11> kSource = {
      "php", "phtml", "php3", "php4", "php5", "php7", "php8", "phps", "phar", "inc", "pht"};
  const std::string ext = lowerExtension(file_name);
  return std::find(kSource.begin(), kSource.end(), ext) != kSource.end();
}

PhpRoute phpRouteFor(const fs::path& release_dir, std::string_view request_path) {
  if (request_path.empty() || request_path.front() != '/') return PhpRoute{};
  const auto parts = pathParts(request_path);
  if (!parts) return PhpRoute{};
  std::error_code ec;
  const fs::path root = fs::canonical(release_dir, ec);
  if (ec) return PhpRoute{};
  fs::path target = root;
  for (const auto& part : *parts) target /= part;
  const fs::path resolved = fs::weakly_canonical(target, ec);
  if (ec) return frontController(root);
  const auto relative = visibleInside(root, resolved);
  if (!relative) return PhpRoute{};
  const auto status = fs::status(resolved, ec);
  if (ec || !fs::exists(status)) return frontController(root);  // a route of the app
  if (fs::is_regular_file(status))
    return isPhpScriptName(resolved.filename().string()) ? script(*relative) : file(resolved);
  if (!fs::is_directory(status)) return PhpRoute{};  // the unpacker makes no other kinds
  // A folder: its index.php, else its index.html, once the path ends with its slash (so that
  // the page's relative links work); a folder without either is a route of the app.
  const bool has_script = isRegularFile(resolved / "index.php");
  if (!has_script && !isRegularFile(resolved / "index.html")) return frontController(root);
  if (!request_path.ends_with("/")) {
    PhpRoute route;
    route.kind = PhpRoute::Kind::Redirect;
    route.location = std::string(request_path) + "/";
    return route;
  }
  return has_script ? script(*relative / "index.php") : file(resolved / "index.html");
}

}  // namespace berth::runtime
