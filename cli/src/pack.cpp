#include "pack.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "errors.hpp"
#include "ignore_rules.hpp"

namespace berth::client {

namespace fs = std::filesystem;

namespace {

std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void walk(const fs::path& root, const std::string& rel, IgnoreRules& rules,
          std::vector<PackedEntry>& out) {
  fs::path here = rel.empty() ? root : root / rel;
  // This folder's own ignore files apply below it: .gitignore first, so .berthignore wins.
  for (const char* name : {".gitignore", ".berthignore"}) {
    std::error_code ec;
    if (fs::is_regular_file(here / name, ec)) rules.add(readText(here / name), rel);
  }
  std::vector<fs::directory_entry> entries;
  std::error_code ec;
  for (auto it = fs::directory_iterator(here, ec); !ec && it != fs::directory_iterator();
       it.increment(ec))
    entries.push_back(*it);
  if (ec) throw usageError("could not read the folder " + here.string() + ": " + ec.message());
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.path().filename() < b.path().filename(); });
  for (const auto& e : entries) {
    std::string name = e.path().filename().string();
    // .berthignore speaks to berth, not to the app: shipping it would show a static site's
    // visitors the names of what was left out.
    if (name == ".git" || name == ".berth" || (name == ".berthignore" && !e.is_directory()))
      continue;
    std::string path = rel.empty() ? name : rel + "/" + name;
    auto st = e.symlink_status(ec);
    bool is_dir = fs::is_directory(st);
    bool is_file = fs::is_regular_file(st) || fs::is_symlink(st);
    if (!is_dir && !is_file) continue;
    if (rules.ignored(path, is_dir)) continue;
    out.push_back({path, is_dir});
    if (is_dir) walk(root, path, rules, out);
  }
}

}  // namespace

std::vector<PackedEntry> listDeployFiles(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw usageError(dir + " is not a folder");
  IgnoreRules rules;
  std::vector<PackedEntry> out;
  walk(fs::path(dir), "", rules, out);
  return out;
}

std::string packFolder(const std::string& dir, PackStats* stats) {
  auto entries = listDeployFiles(dir);
  std::string out;
  std::unique_ptr<archive, int (*)(archive*)> a(archive_write_new(), archive_write_free);
  archive_write_add_filter_gzip(a.get());
  archive_write_set_format_pax_restricted(a.get());
  auto writer = [](archive*, void* user, const void* buf, size_t n) -> la_ssize_t {
    static_cast<std::string*>(user)->append(static_cast<const char*>(buf), n);
    return static_cast<la_ssize_t>(n);
  };
  if (archive_write_open(a.get(), &out, nullptr, writer, nullptr) != ARCHIVE_OK)
    throw usageError(std::string("could not make the archive: ") + archive_error_string(a.get()));
  PackStats s;
  std::vector<char> buf(1 << 16);
  for (const auto& e : entries) {
    fs::path full = fs::path(dir) / e.path;
    struct stat st {};
    if (::lstat(full.c_str(), &st) != 0) continue;  // gone meanwhile
    std::unique_ptr<archive_entry, void (*)(archive_entry*)> entry(archive_entry_new(),
                                                                   archive_entry_free);
    archive_entry_set_pathname(entry.get(), e.path.c_str());
    archive_entry_set_mtime(entry.get(), st.st_mtime, 0);
    archive_entry_set_perm(entry.get(), st.st_mode & 0777);
    std::string target;
    if (S_ISDIR(st.st_mode)) {
      archive_entry_set_filetype(entry.get(), AE_IFDIR);
    } else if (S_ISLNK(st.st_mode)) {
      std::error_code ec;
      target = fs::read_symlink(full, ec).string();
      archive_entry_set_filetype(entry.get(), AE_IFLNK);
      archive_entry_set_symlink(entry.get(), target.c_str());
    } else {
      archive_entry_set_filetype(entry.get(), AE_IFREG);
      archive_entry_set_size(entry.get(), st.st_size);
    }
    if (archive_write_header(a.get(), entry.get()) != ARCHIVE_OK)
      throw usageError("could not add " + e.path +
                       " to the archive: " + archive_error_string(a.get()));
    if (S_ISREG(st.st_mode)) {
      std::ifstream in(full, std::ios::binary);
      if (!in) throw usageError("could not read " + full.string());
      uint64_t written = 0;
      while (in && written < static_cast<uint64_t>(st.st_size)) {
        in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        auto n = in.gcount();
        if (n <= 0) break;
        archive_write_data(a.get(), buf.data(), static_cast<size_t>(n));
        written += static_cast<uint64_t>(n);
      }
      ++s.files;
      s.bytes += written;
    }
  }
  if (archive_write_close(a.get()) != ARCHIVE_OK)
    throw usageError(std::string("could not finish the archive: ") + archive_error_string(a.get()));
  if (stats) *stats = s;
  return out;
}

}  // namespace berth::client
