#include "config.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "errors.hpp"

namespace berth::client {

namespace fs = std::filesystem;
using nlohmann::json;

std::string configPath() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  std::string base;
  if (xdg && *xdg) {
    base = xdg;
  } else {
    const char* home = std::getenv("HOME");
    base = std::string(home && *home ? home : ".") + "/.config";
  }
  return base + "/berth/config.json";
}

ConfigFile loadConfig(const std::string& path) {
  ConfigFile out;
  std::ifstream in(path, std::ios::binary);
  if (!in) return out;
  std::stringstream text;
  text << in.rdbuf();
  json j = json::parse(text.str(), nullptr, false);
  if (!j.is_object())
    throw usageError("the config file " + path + " is not valid JSON; fix or remove it");
  out.current = j.value("current_context", "");
  auto contexts = j.value("contexts", json::object());  // kept alive for the loop
  if (!contexts.is_object()) return out;
  for (auto& [name, c] : contexts.items()) {
    if (!c.is_object()) continue;
    ContextEntry e;
    e.url = c.value("url", "");
    e.token = c.value("token", "");
    e.token_id = c.value("token_id", "");
    e.email = c.value("email", "");
    out.contexts[name] = e;
  }
  return out;
}

void saveConfig(const ConfigFile& config, const std::string& path) {
  json j = {{"current_context", config.current}, {"contexts", json::object()}};
  for (const auto& [name, e] : config.contexts) {
    json c = {{"url", e.url}, {"token", e.token}};
    if (!e.token_id.empty()) c["token_id"] = e.token_id;
    if (!e.email.empty()) c["email"] = e.email;
    j["contexts"][name] = c;
  }
  fs::path dir = fs::path(path).parent_path();
  std::error_code ec;
  fs::create_directories(dir, ec);
  ::chmod(dir.c_str(), 0700);
  std::string tmp = path + ".tmp";
  // Created 0600 from the start, so the token is never readable by others, not even briefly.
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw usageError("could not write " + tmp + ": " + std::string(std::strerror(errno)));
  ::fchmod(fd, 0600);
  std::string text = j.dump(2) + "\n";
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = ::fsync(fd) == 0 && ok;
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    throw usageError("could not write " + path + ": " + std::string(std::strerror(errno)));
  }
}

}  // namespace berth::client
