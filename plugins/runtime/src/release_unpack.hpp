// Unpacks a release archive (gzip-compressed tar) into its release directory, refusing anything
// that could reach outside it or fill the disk. The directory appears whole or not at all: the
// files go into a hidden temporary folder beside it that is renamed at the end.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace berth::runtime {

struct UnpackLimits {
  std::uint64_t max_bytes = 1024ull * 1024 * 1024;  // file contents after decompression
  std::uint64_t max_entries = 20000;                // files, folders and links together
};

struct UnpackResult {
  std::optional<std::string> error;  // set when refused; nothing is left on disk then
  std::uint64_t files = 0;           // regular files and links (not folders)
  std::uint64_t bytes = 0;           // bytes of file contents written
  bool ok() const { return !error; }
};

// `release_dir` must not exist yet; its parent must. Error texts name the offending path:
//   "the release is not a gzip-compressed tar archive: <why>"
//   "<path>: absolute paths are not allowed in a release"
//   "<path>: '..' is not allowed in a release path"
//   "<path>: a link pointing outside the release is not allowed"
//   "<path>: device files, fifos and sockets are not allowed in a release"
//   "<path>: goes through a link, which is not allowed in a release"
//   "the release expands past <N> bytes, the limit for one release"
//   "the release holds more than <N> files, the limit for one release"
UnpackResult unpackRelease(const std::filesystem::path& archive_file,
                           const std::filesystem::path& release_dir, const UnpackLimits& limits);
UnpackResult unpackReleaseFromMemory(std::string_view archive,
                                     const std::filesystem::path& release_dir,
                                     const UnpackLimits& limits);

// A path from an archive in its clean relative form ("./a//b/" -> "a/b"), or the error text
// when it is absolute or has a ".." component. Empty result for the top folder itself.
struct CleanPath {
  std::string path;
  std::optional<std::string> error;
};
CleanPath cleanArchivePath(std::string_view raw);

}  // namespace berth::runtime
