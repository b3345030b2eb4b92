// A deploy's archive: the folder as a gzip-compressed tar, without what .gitignore and
// .berthignore leave out, and never .git, .berth or the .berthignore files themselves.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace berth::client {

struct PackedEntry {
  std::string path;  // relative, with /
  bool is_dir = false;
};

// The entries a deploy of `dir` ships, in a stable order (folders before what they hold).
// Symbolic links are shipped as links, never followed; other special files are left out.
std::vector<PackedEntry> listDeployFiles(const std::string& dir);

struct PackStats {
  size_t files = 0;
  uint64_t bytes = 0;  // before compression
};

// The gzip tar of those entries. Throws a usage error when the folder cannot be read.
std::string packFolder(const std::string& dir, PackStats* stats = nullptr);

}  // namespace berth::client
