// fuzz-link: berth_runtime_logic
// The release unpacker (plugins/runtime/src/release_unpack.cpp) against archives built from
// the input: most inputs are a small program of entries (name, type, mode, size, link target)
// written as a real tar with libarchive's writer, sometimes gzipped, so that the fuzzer spends
// its time in the unpacker's rules rather than in tar checksums; an input starting with 0x00 is
// fed as raw archive bytes. Each run unpacks into a fresh sandbox folder and checks:
// - nothing appears outside the release: the sandbox (the release folder's parent) holds only
//   the release (or nothing after a refusal) and an untouched decoy folder, the folder above
//   holds only the sandbox;
// - in an accepted release: no link is absolute or resolves outside it, no fifo or device, no
//   hard link shared with anything outside, file contents and entry counts within the limits;
// - a refusal is one of the unpacker's documented texts, and leaves nothing behind.
#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "../../plugins/runtime/src/release_unpack.hpp"
#include "support/fuzz_check.hpp"

namespace {

namespace fs = std::filesystem;
using berth::fuzz::check;
using berth::fuzz::fail;

constexpr size_t kMaxInput = 16 * 1024;

// Reads the input as a stream of small numbers; past the end everything is zero.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t next() { return pos_ < size_ ? data_[pos_++] : 0; }
  bool done() const { return pos_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Path pieces the rules care about; a byte picks one, or (high bit set) a raw byte.
const char* const kPieces[] = {"a",  "b",   "c", "/",  "..",  ".",   "./",   "../", "a/", "b/",
                               "//", "d/e", "x", "\\", "..a", "...", "/etc", "~",   "-",  " "};

std::string pathFrom(Bytes& in) {
  const int length = in.next() % 8;
  std::string out;
  for (int i = 0; i < length; ++i) {
    const uint8_t b = in.next();
    if (b & 0x80)
      out += static_cast<char>(b & 0x7f ? b & 0x7f : 'z');  // NUL would end the C string
    else
      out += kPieces[b % (sizeof kPieces / sizeof *kPieces)];
  }
  return out;
}

struct Limits {
  berth::runtime::UnpackLimits limits;
  bool gzip = false;
};

// Writes the entries the input describes as a tar (pax, ustar or GNU) in memory.
std::string buildArchive(Bytes& in, Limits& out) {
  const uint8_t flags = in.next();
  out.gzip = flags & 1;
  out.limits.max_bytes = (in.next() % 16) * 64 + 1;
  out.limits.max_entries = in.next() % 12 + 1;
  out.limits.max_ratio = (flags >> 4) % 4;  // 0: none

  archive* writer = archive_write_new();
  switch ((flags >> 1) % 3) {
    case 0:
      archive_write_set_format_pax_restricted(writer);
      break;
    case 1:
      archive_write_set_format_ustar(writer);
      break;
    default:
      archive_write_set_format_gnutar(writer);
      break;
  }
  if (out.gzip)
    archive_write_add_filter_gzip(writer);
  else
    archive_write_add_filter_none(writer);
  archive_write_set_bytes_in_last_block(writer, 1);
  std::vector<char> buffer(1024 * 1024);
  size_t used = 0;
  if (archive_write_open_memory(writer, buffer.data(), buffer.size(), &used) != ARCHIVE_OK)
    fail("libarchive's writer did not open", archive_error_string(writer));

  for (int count = 0; count < 24 && !in.done(); ++count) {
    archive_entry* entry = archive_entry_new();
    const uint8_t kind = in.next();
    const std::string name = pathFrom(in);
    archive_entry_set_pathname(entry, name.c_str());
    archive_entry_set_perm(entry, in.next() | ((kind & 0x80) ? 0x800 : 0));  // setuid sometimes
    size_t size = 0;
    switch (kind % 7) {
      case 0:
      case 6:
        archive_entry_set_filetype(entry, AE_IFREG);
        size = static_cast<size_t>(in.next()) * ((kind & 0x40) ? 8 : 1);
        archive_entry_set_size(entry, static_cast<la_int64_t>(size));
        break;
      case 1:
        archive_entry_set_filetype(entry, AE_IFDIR);
        break;
      case 2:
        archive_entry_set_filetype(entry, AE_IFLNK);
        archive_entry_set_symlink(entry, pathFrom(in).c_str());
        break;
      case 3:
        archive_entry_set_filetype(entry, AE_IFREG);
        archive_entry_set_hardlink(entry, pathFrom(in).c_str());
        break;
      case 4:
        archive_entry_set_filetype(entry, AE_IFIFO);
        break;
      default:
        archive_entry_set_filetype(entry, (kind & 0x20) ? AE_IFBLK : AE_IFCHR);
        archive_entry_set_rdev(entry, 0x0103);
        break;
    }
    if (archive_write_header(writer, entry) >= ARCHIVE_WARN && size > 0) {
      std::string content(size, static_cast<char>('a' + kind % 26));
      archive_write_data(writer, content.data(), content.size());
    }
    archive_entry_free(entry);
  }
  archive_write_close(writer);
  archive_write_free(writer);
  return std::string(buffer.data(), used);
}

// Every refusal the unpacker documents (release_unpack.hpp); <path> is anything.
bool documentedRefusal(const std::string& error) {
  static const std::vector<std::regex> kTexts = [] {
    std::vector<std::regex> texts;
    for (const char* text : {
             "the release is not a gzip-compressed tar archive: .+",
             "the release archive is damaged: .+",
             ".*: absolute paths are not allowed in a release",
             ".*: '\\.\\.' is not allowed in a release path",
             ".*: a link pointing outside the release is not allowed",
             ".*: device files, fifos and sockets are not allowed in a release",
             ".*: goes through a link, which is not allowed in a release",
             "the release expands past [0-9]+ bytes, the limit for one release",
             "the release holds more than [0-9]+ files, the limit for one release",
             "the release expands to more than [0-9]+ times its compressed size "
             "\\(runtime\\.max_unpack_ratio\\)",
             ".*: .* is a file, not a folder",
             ".*: a file and a folder have the same name",
             "a file without a name is not allowed in a release",
             "a link without a name is not allowed in a release",
             ".*: links to .*, which is not a file earlier in the release",
         })
      texts.emplace_back(text, std::regex::extended);
    return texts;
  }();
  for (const auto& text : kTexts)
    if (std::regex_match(error, text)) return true;
  return false;
}

std::vector<std::string> namesIn(const fs::path& folder) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += n + " ";
  return out;
}

bool inside(const fs::path& root, const fs::path& p) {
  if (p == root) return true;
  const auto rel = p.lexically_relative(root);
  return !rel.empty() && *rel.begin() != "..";
}

// The accepted release: what is in it must be harmless and within the limits.
void checkRelease(const fs::path& release, const berth::runtime::UnpackResult& result,
                  const berth::runtime::UnpackLimits& limits, size_t compressed) {
  const fs::path root = fs::canonical(release);
  std::uint64_t entries = 0;
  std::uint64_t bytes = 0;
  std::map<ino_t, std::uint64_t> links_seen;  // inode -> names of it inside the release
  std::map<ino_t, std::uint64_t> link_count;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(release, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    ++entries;
    const fs::path p = it->path();
    struct stat st {};
    check(::lstat(p.c_str(), &st) == 0, "an unpacked entry cannot be read", p.string());
    if (S_ISLNK(st.st_mode)) {
      const fs::path target = fs::read_symlink(p);
      check(!target.is_absolute(), "an unpacked link is absolute", p.string());
      const fs::path resolved = fs::weakly_canonical(p, ec);
      check(!ec && inside(root, resolved), "an unpacked link resolves outside the release",
            p.string() + " -> " + target.string());
    } else if (S_ISREG(st.st_mode)) {
      if (links_seen[st.st_ino]++ == 0) bytes += static_cast<std::uint64_t>(st.st_size);
      link_count[st.st_ino] = st.st_nlink;
      check((st.st_mode & 07000) == 0, "an unpacked file keeps setuid/setgid/sticky bits",
            p.string());
    } else if (!S_ISDIR(st.st_mode)) {
      fail("an unpacked entry is a fifo, socket or device", p.string());
    }
  }
  check(!ec, "the unpacked release cannot be walked", ec.message());
  for (const auto& [inode, names] : links_seen)
    check(names == link_count[inode], "an unpacked file is hard-linked to something outside",
          std::to_string(names) + " names inside, " + std::to_string(link_count[inode]) + " links");
  check(bytes <= limits.max_bytes, "the release holds more bytes than the limit",
        std::to_string(bytes) + " > " + std::to_string(limits.max_bytes));
  check(result.bytes <= limits.max_bytes, "the unpacker counted more bytes than the limit");
  if (limits.max_ratio > 0)
    check(result.bytes <= compressed * limits.max_ratio, "the release passes the ratio limit");
  check(entries <= limits.max_entries, "the release holds more entries than the limit",
        std::to_string(entries) + " > " + std::to_string(limits.max_entries));
  check(result.files <= entries, "the unpacker counted more files than there are");
}

struct Base {
  fs::path path;
  Base() {
    char name[] = "/tmp/berth-fuzz-tar.XXXXXX";
    if (!::mkdtemp(name)) fail("cannot create the fuzzing folder");
    path = name;
  }
  ~Base() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || size > kMaxInput) return 0;
  static Base base;
  const fs::path sandbox = base.path / "sandbox";
  const fs::path release = sandbox / "release";
  const fs::path decoy = sandbox / "decoy";
  fs::create_directories(decoy);
  std::ofstream(decoy / "canary") << "canary";

  std::string archive;
  Limits limits;
  if (data[0] == 0) {
    archive.assign(reinterpret_cast<const char*>(data) + 1, size - 1);
    limits.limits.max_bytes = 64 * 1024;
    limits.limits.max_entries = 64;
  } else {
    Bytes in(data + 1, size - 1);
    archive = buildArchive(in, limits);
  }

  const auto result = berth::runtime::unpackReleaseFromMemory(archive, release, limits.limits);

  // Nothing beside the release, nothing in the decoy, nothing beside the sandbox.
  const auto expected = result.ok() ? std::vector<std::string>{"decoy", "release"}
                                    : std::vector<std::string>{"decoy"};
  check(namesIn(sandbox) == expected, "the unpacker left something beside the release",
        joined(namesIn(sandbox)) + (result.error ? "(refused: " + *result.error + ")" : ""));
  check(namesIn(decoy) == std::vector<std::string>{"canary"},
        "the unpacker wrote into a folder beside the release", joined(namesIn(decoy)));
  struct stat canary {};
  check(::stat((decoy / "canary").c_str(), &canary) == 0 && canary.st_nlink == 1 &&
            canary.st_size == 6,
        "the file beside the release was changed or linked");
  check(namesIn(base.path) == std::vector<std::string>{"sandbox"},
        "the unpacker wrote above the release's folder", joined(namesIn(base.path)));

  if (result.ok()) {
    checkRelease(release, result, limits.limits, archive.size());
  } else {
    check(documentedRefusal(*result.error), "the unpacker refused with an undocumented text",
          *result.error);
  }
  std::error_code ignored;
  fs::remove_all(sandbox, ignored);
  return 0;
}
