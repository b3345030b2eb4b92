// Unpacks a release archive (gzip-compressed tar) into its release directory, refusing anything
// that could reach outside it or fill the disk. The directory appears whole or not at all: the
// files go into a hidden temporary folder beside it that is renamed at the end.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace berth::runtime {

struct UnpackLimits {
  std::uint64_t max_bytes = 1024ull * 1024 * 1024;  // file contents after decompression
  // Files, folders and links together, counting the folders made for an entry's path.
  std::uint64_t max_entries = 20000;
  // File contents may be at most this many times the compressed archive's size (0: no limit);
  // runtime.max_unpack_ratio.
  std::uint64_t max_ratio = 0;
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
//   "the release expands to more than <N> times its compressed size (runtime.max_unpack_ratio)"
UnpackResult unpackRelease(const std::filesystem::path& archive_file,
                           const std::filesystem::path& release_dir, const UnpackLimits& limits);
UnpackResult unpackReleaseFromMemory(std::string_view archive,
                                     const std::filesystem::path& release_dir,
                                     const UnpackLimits& limits);

// The first of `links` (paths of symbolic links relative to `root`) that resolves outside
// `root` once every link exists (chains included), or nullopt. Used on the unpacked tree and
// again on the tree a build step leaves.
std::optional<std::string> linkLeadingOutside(const std::filesystem::path& root,
                                              const std::vector<std::string>& links);

// Whether `target`, the text of a link at `link_path` (both relative to the release), stays
// inside the release: not absolute, never climbing above the top by "..". Judged on the text
// alone (linkLeadingOutside checks the finished tree); the packer of built releases uses it too.
bool linkTextStaysInside(const std::string& link_path, std::string_view target);

// A path from an archive in its clean relative form ("./a//b/" -> "a/b"), or the error text
// when it is absolute or has a ".." component. Empty result for the top folder itself.
struct CleanPath {
  std::string path;
  std::optional<std::string> error;
};
CleanPath cleanArchivePath(std::string_view raw);

}  // namespace berth::runtime
