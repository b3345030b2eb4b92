#include "install_body.hpp"

#include <berth/error.hpp>

#include <array>
#include <string_view>
#include <vector>

namespace berth::wordpress {

namespace {

using berth::Error;

constexpr std::array<std::string_view, 4> kFields = {"email", "password", "title", "user"};

// Characters, not bytes: the body is JSON, so its strings are valid UTF-8 already.
size_t codePoints(const std::string& text) {
  size_t n = 0;
  for (unsigned char c : text)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

bool asciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool whiteSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\0';
}

std::vector<std::string_view> split(std::string_view text, char at) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(at, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

std::string text(const nlohmann::json& body, const char* field, const std::string& fallback) {
  auto it = body.find(field);
  if (it == body.end() || !it->is_string()) return fallback;  // the core checked the type
  return it->get<std::string>();
}

}  // namespace

bool wordpressEmail(const std::string& email) {
  if (email.size() < 6 || email.size() > 100) return false;
  const size_t at = email.find('@');
  if (at == std::string::npos || at == 0) return false;
  const std::string_view local = std::string_view(email).substr(0, at);
  const std::string_view domain = std::string_view(email).substr(at + 1);
  static constexpr std::string_view kLocalSigns = "!#$%&'*+/=?^_`{|}~.-";
  for (char c : local)
    if (!asciiAlnum(c) && kLocalSigns.find(c) == std::string_view::npos) return false;
  if (domain.find("..") != std::string_view::npos) return false;
  if (domain.empty() || domain.front() == '.' || domain.back() == '.') return false;
  const auto labels = split(domain, '.');
  if (labels.size() < 2) return false;
  for (std::string_view label : labels) {
    if (label.empty() || label.front() == '-' || label.back() == '-') return false;
    for (char c : label)
      if (!asciiAlnum(c) && c != '-') return false;
  }
  return true;
}

InstallBody parseInstallBody(const nlohmann::json& body) {
  if (body.is_object())
    for (const auto& [name, value] : body.items()) {
      bool known = false;
      for (std::string_view field : kFields) known = known || name == field;
      if (!known)
        throw Error::badRequest("unknown field " + name +
                                ": a WordPress install takes email, password, title and user");
    }

  InstallBody asked;
  asked.email = text(body, "email", "");
  if (!wordpressEmail(asked.email))
    throw Error::badRequest(
        "email must be an e-mail address such as ann@example.com (6 to 100 characters)");

  asked.password = text(body, "password", "");
  if (codePoints(asked.password) < 8)
    throw Error::badRequest("password must be at least 8 characters");
  if (asked.password.size() > 4096) throw Error::badRequest("password must be at most 4096 bytes");
  if (whiteSpace(asked.password.front()) || whiteSpace(asked.password.back()))
    throw Error::badRequest(
        "password must not start or end with white space (WordPress would cut it off)");

  // null is "not given", as the core takes it for an optional field.
  asked.title_given = body.is_object() && body.contains("title") && !body["title"].is_null();
  asked.title = text(body, "title", kDefaultTitle);
  bool one_line = true;
  for (unsigned char c : asked.title) one_line = one_line && c >= 0x20 && c != 0x7F;
  if (asked.title.empty() || codePoints(asked.title) > 200 || !one_line)
    throw Error::badRequest("title must be 1 to 200 characters on one line");

  asked.user = text(body, "user", kDefaultUser);
  bool plain = !asked.user.empty() && asked.user.size() <= 60;
  for (char c : asked.user)
    plain = plain && (asciiAlnum(c) || c == '_' || c == '-' || c == '.' || c == '@');
  if (!plain)
    throw Error::badRequest(
        "user must be 1 to 60 characters of letters, digits, '_', '-', '.' and '@'");
  return asked;
}

}  // namespace berth::wordpress
