// The config file: named contexts (an API address and its token), one of them current. It lives
// in ${XDG_CONFIG_HOME:-~/.config}/berth/config.json and is written 0600 (it holds tokens).
#pragma once
#include <map>
#include <string>

namespace berth::client {

struct ContextEntry {
  std::string url;
  std::string token;
  std::string token_id;  // set when berth made the token (from a sign-in link): logout revokes it
  std::string email;
};

struct ConfigFile {
  std::string current;  // the current context's name; empty: "default"
  std::map<std::string, ContextEntry> contexts;
};

std::string configPath();
// A missing file is an empty config; a file that is not a config is a usage error (exit 2).
ConfigFile loadConfig(const std::string& path = configPath());
// Writes through a temporary file made 0600 and renamed over the old one; the folder is 0700.
void saveConfig(const ConfigFile& config, const std::string& path = configPath());

}  // namespace berth::client
