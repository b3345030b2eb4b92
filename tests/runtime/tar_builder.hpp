// Builds gzip-compressed tar archives in memory with libarchive, including the entries a safe
// unpacker must refuse (absolute paths, "..", outside links, device files, huge files).
#pragma once
#include <archive.h>
#include <archive_entry.h>

#include <stdexcept>
#include <string>

namespace berth::runtime::testing {

class TarBuilder {
 public:
  TarBuilder() {
    writer_ = archive_write_new();
    archive_write_add_filter_gzip(writer_);
    archive_write_set_format_pax_restricted(writer_);
    archive_write_set_bytes_in_last_block(writer_, 1);
    // Names are written as the UTF-8 bytes they are, whatever the process locale ("C" here):
    // converting them would fail in the C locale.
    archive_write_set_format_option(writer_, "pax", "hdrcharset", "BINARY");
    if (archive_write_open(writer_, this, nullptr, &TarBuilder::append, nullptr) != ARCHIVE_OK)
      throw std::runtime_error("cannot open the archive writer");
  }
  ~TarBuilder() {
    if (writer_) archive_write_free(writer_);
  }
  TarBuilder(const TarBuilder&) = delete;
  TarBuilder& operator=(const TarBuilder&) = delete;

  TarBuilder& file(const std::string& path, const std::string& content, int mode = 0644) {
    return add(path, AE_IFREG, mode, content, static_cast<la_int64_t>(content.size()));
  }
  // A file of `size` zero bytes, written in chunks (compresses to almost nothing).
  TarBuilder& zeros(const std::string& path, la_int64_t size) {
    archive_entry* e = entry(path, AE_IFREG, 0644);
    archive_entry_set_size(e, size);
    check(archive_write_header(writer_, e));
    std::string chunk(1 << 16, '\0');
    for (la_int64_t left = size; left > 0;) {
      auto n = static_cast<std::size_t>(std::min<la_int64_t>(left, chunk.size()));
      archive_write_data(writer_, chunk.data(), n);
      left -= static_cast<la_int64_t>(n);
    }
    archive_entry_free(e);
    return *this;
  }
  TarBuilder& folder(const std::string& path) { return add(path, AE_IFDIR, 0755, "", 0); }
  TarBuilder& symlink(const std::string& path, const std::string& target) {
    archive_entry* e = entry(path, AE_IFLNK, 0777);
    archive_entry_set_symlink(e, target.c_str());
    check(archive_write_header(writer_, e));
    archive_entry_free(e);
    return *this;
  }
  TarBuilder& hardlink(const std::string& path, const std::string& target) {
    archive_entry* e = entry(path, AE_IFREG, 0644);
    archive_entry_set_hardlink(e, target.c_str());
    archive_entry_set_size(e, 0);
    check(archive_write_header(writer_, e));
    archive_entry_free(e);
    return *this;
  }
  TarBuilder& special(const std::string& path, unsigned type) {
    return add(path, type, 0644, "", 0);
  }

  std::string finish() {
    check(archive_write_close(writer_));
    archive_write_free(writer_);
    writer_ = nullptr;
    return bytes_;
  }

 private:
  static la_ssize_t append(archive*, void* self, const void* data, size_t size) {
    static_cast<TarBuilder*>(self)->bytes_.append(static_cast<const char*>(data), size);
    return static_cast<la_ssize_t>(size);
  }
  archive_entry* entry(const std::string& path, unsigned type, int mode) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, path.c_str());
    archive_entry_set_filetype(e, type);
    archive_entry_set_perm(e, static_cast<mode_t>(mode));
    archive_entry_set_mtime(e, 1700000000, 0);
    return e;
  }
  TarBuilder& add(const std::string& path, unsigned type, int mode, const std::string& content,
                  la_int64_t size) {
    archive_entry* e = entry(path, type, mode);
    archive_entry_set_size(e, size);
    check(archive_write_header(writer_, e));
    if (!content.empty()) archive_write_data(writer_, content.data(), content.size());
    archive_entry_free(e);
    return *this;
  }
  void check(int status) {
    if (status < ARCHIVE_WARN)
      throw std::runtime_error(std::string("archive writer: ") + archive_error_string(writer_));
  }

  archive* writer_ = nullptr;
  std::string bytes_;
};

}  // namespace berth::runtime::testing
