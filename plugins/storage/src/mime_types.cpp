#include "mime_types.hpp"

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "file_paths.hpp"

namespace berth::storage {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

}  // namespace

MimeTable MimeTable::fromText(std::string_view text) {
  MimeTable table;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    size_t hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string type, extension;
    if (!(words >> type) || type.find('/') == std::string::npos) continue;
    // The first mention of an extension wins, as in mime.types readers generally.
    while (words >> extension) table.by_extension_.emplace(lower(extension), type);
  }
  return table;
}

MimeTable MimeTable::fromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return fromText(text.str());
}

MimeTable MimeTable::builtIn() {
  return fromText(
      "text/html html htm\ntext/css css\ntext/javascript js mjs\napplication/json json\n"
      "text/plain txt\ntext/csv csv\ntext/markdown md\napplication/xml xml\n"
      "image/png png\nimage/jpeg jpg jpeg\nimage/gif gif\nimage/webp webp\n"
      "image/svg+xml svg\nimage/x-icon ico\nimage/avif avif\nfont/woff woff\n"
      "font/woff2 woff2\nfont/ttf ttf\nfont/otf otf\napplication/pdf pdf\n"
      "application/zip zip\napplication/gzip gz\napplication/x-tar tar\n"
      "application/wasm wasm\naudio/mpeg mp3\naudio/ogg ogg\nvideo/mp4 mp4\n"
      "video/webm webm\n");
}

std::string MimeTable::typeOf(std::string_view file_name) const {
  std::string_view name = baseName(file_name);
  size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == name.size())
    return std::string(kFallbackContentType);
  auto found = by_extension_.find(lower(name.substr(dot + 1)));
  return found == by_extension_.end() ? std::string(kFallbackContentType) : found->second;
}

std::string MimeTable::nginxTypes() const {
  auto plain = [](std::string_view token) {
    if (token.empty()) return false;
    for (char c : token) {
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '/' || c == '.' || c == '+' || c == '-' || c == '_';
      if (!ok) return false;
    }
    return true;
  };
  // Sorted, so that the same table always writes the same file.
  std::map<std::string, std::string> sorted(by_extension_.begin(), by_extension_.end());
  std::string out = "types {\n";
  for (const auto& [extension, type] : sorted) {
    if (plain(extension) && plain(type)) out += "  " + type + " " + extension + ";\n";
  }
  return out + "}\n";
}

}  // namespace berth::storage
