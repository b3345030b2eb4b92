#include "static_site.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <system_error>
#include <utility>

#include <berth/util/percent_decode.hpp>

namespace berth::runtime {
namespace {

namespace fs = std::filesystem;

bool isInside(const fs::path& root, const fs::path& p) {
  auto rel = p.lexically_relative(root);
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace

std::string contentTypeFor(std::string_view name) {
  const auto dot = name.rfind('.');
  if (dot == std::string_view::npos) return "application/octet-stream";
  std::string ext(name.substr(dot + 1));
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  using Entry = std::pair<std::string_view, std::string_view>;
  static constexpr std::array kTypes = {
      Entry{"html", "text/html; charset=utf-8"},
      Entry{"htm", "text/html; charset=utf-8"},
      Entry{"css", "text/css; charset=utf-8"},
      Entry{"js", "text/javascript; charset=utf-8"},
      Entry{"mjs", "text/javascript; charset=utf-8"},
      Entry{"json", "application/json"},
      Entry{"map", "application/json"},
      Entry{"txt", "text/plain; charset=utf-8"},
      Entry{"md", "text/markdown; charset=utf-8"},
      Entry{"xml", "application/xml"},
      Entry{"svg", "image/svg+xml"},
      Entry{"png", "image/png"},
      Entry{"jpg", "image/jpeg"},
      Entry{"jpeg", "image/jpeg"},
      Entry{"gif", "image/gif"},
      Entry{"webp", "image/webp"},
      Entry{"avif", "image/avif"},
      Entry{"ico", "image/vnd.microsoft.icon"},
      Entry{"wasm", "application/wasm"},
      Entry{"woff", "font/woff"},
      Entry{"woff2", "font/woff2"},
      Entry{"ttf", "font/ttf"},
      Entry{"otf", "font/otf"},
      Entry{"pdf", "application/pdf"},
      Entry{"mp4", "video/mp4"},
      Entry{"webm", "video/webm"},
      Entry{"mp3", "audio/mpeg"},
      Entry{"ogg", "audio/ogg"},
      Entry{"wav", "audio/wav"},
      Entry{"zip", "application/zip"},
      Entry{"webmanifest", "application/manifest+json"},
  };
  for (const auto& [e, type] : kTypes)
    if (ext == e) return std::string(type);
  return "application/octet-stream";
}

StaticAnswer staticFileFor(const fs::path& release_dir, std::string_view request_path) {
  StaticAnswer answer;
  if (request_path.empty() || request_path.front() != '/') return answer;
  const auto decoded = berth::percentDecode(request_path, {.refuse_nul = true});
  if (!decoded) return answer;
  fs::path relative;
  std::size_t start = 1;
  while (start <= decoded->size()) {
    auto end = decoded->find('/', start);
    if (end == std::string::npos) end = decoded->size();
    const std::string part = decoded->substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") return answer;
    if (part.front() == '.' && part != ".well-known") return answer;
    relative /= part;
  }
  std::error_code ec;
  const fs::path root = fs::canonical(release_dir, ec);
  if (ec) return answer;
  fs::path target = root / relative;
  // Links in a release were checked at unpacking; this holds even if one was not.
  const fs::path resolved = fs::weakly_canonical(target, ec);
  if (ec || (resolved != root && !isInside(root, resolved))) return answer;
  const auto status = fs::status(resolved, ec);
  if (ec) return answer;
  if (fs::is_directory(status)) {
    if (!decoded->ends_with("/")) {
      answer.kind = StaticAnswer::Kind::Redirect;
      answer.location = std::string(request_path) + "/";
      return answer;
    }
    const fs::path index = resolved / "index.html";
    if (!fs::is_regular_file(index, ec)) return answer;
    answer.kind = StaticAnswer::Kind::File;
    answer.path = index.string();
    answer.content_type = contentTypeFor("index.html");
    return answer;
  }
  if (!fs::is_regular_file(status)) return answer;
  answer.kind = StaticAnswer::Kind::File;
  answer.path = resolved.string();
  answer.content_type = contentTypeFor(resolved.filename().string());
  return answer;
}

}  // namespace berth::runtime
