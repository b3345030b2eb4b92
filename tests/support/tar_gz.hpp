// Gzip tar archives made by tar(1) from files written to a temporary folder, for the tests that
// link no libarchive (isolation's, the fault cases', the API reference's). runtime's tests build
// theirs in memory with libarchive (tests/runtime/tar_builder.hpp), which can also write the
// entries a safe unpacker must refuse.
#pragma once
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "support/berthd_process.hpp"
#include "util/process.hpp"

namespace berth::testing {

class TarGz {
 public:
  // A file at `path` (folders made as needed) holding `contents`.
  TarGz& file(const std::string& path, const std::string& contents) {
    files_.emplace_back(path, contents);
    return *this;
  }
  std::string finish() const {
    namespace fs = std::filesystem;
    const std::string dir = makeTempDir("berth-tar");
    const std::string tree = dir + "/tree";
    fs::create_directories(tree);
    for (const auto& [path, contents] : files_) {
      fs::create_directories(fs::path(tree + "/" + path).parent_path());
      writeFile(tree + "/" + path, contents);
    }
    const std::string archive = dir + "/archive.tar.gz";
    auto made = core::runCommand({"tar", "-czf", archive, "-C", tree, "."});
    std::string bytes = made.status.ok() ? readFile(archive) : "";
    removeTree(dir);
    if (!made.status.ok()) throw std::runtime_error("tar: " + made.output);
    return bytes;
  }

 private:
  std::vector<std::pair<std::string, std::string>> files_;
};

// A gzip tar of `files` (path -> bytes).
inline std::string tarGz(const std::map<std::string, std::string>& files) {
  TarGz tar;
  for (const auto& [path, bytes] : files) tar.file(path, bytes);
  return tar.finish();
}

}  // namespace berth::testing
