// Packs a built release folder (what the build step left: node_modules and all) into a gzip
// tar, so that a node that did not build the release can unpack it (plugin/release_fetch with
// release_unpack's rules), and hashes files with SHA-256 to check such a pack before it is
// unpacked. Streamed: the folder's files are read, and the archive written, a block at a time,
// so a large release never sits in memory.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace berth::runtime {

struct PackResult {
  std::optional<std::string> error;  // set when refused; the archive file is then incomplete
  std::string sha256;                // hex, of the archive's bytes
  std::uint64_t size = 0;            // bytes of the archive
  std::uint64_t entries = 0;         // files, folders and links packed (what unpacking counts)
  std::uint64_t bytes = 0;           // bytes of file contents packed
  bool ok() const { return !error; }
};

// Packs every entry under `dir` (not `dir` itself) into `archive`, a gzip-compressed pax tar
// created here (it must not exist). The walk goes by folder descriptors opened with O_NOFOLLOW,
// in name order, and follows nothing: folders become folder entries, regular files their
// bytes (mode 0755 when any execute bit is set, else 0644; modification times to the
// nanosecond), links their text. A file with several hard links is packed once per name.
// Refused (error names the path): "<path>: a link pointing outside the release cannot be
// packed" (an absolute target, or one climbing out by its text), "<path>: device files, fifos
// and sockets cannot be packed", "<path>: changed while it was packed", and the system's
// reasons ("cannot read <path>: ...", "cannot write the archive: ...").
PackResult packRelease(const std::filesystem::path& dir, const std::filesystem::path& archive);

// The SHA-256 (hex) and size of what the open descriptor `fd` reads from its start to its end,
// read a block at a time. Throws std::runtime_error when it cannot be read.
struct FileDigest {
  std::string sha256;
  std::uint64_t size = 0;
};
FileDigest digestOf(int fd);

}  // namespace berth::runtime
