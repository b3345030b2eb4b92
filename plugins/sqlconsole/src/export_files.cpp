#include "export_files.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <random>
#include <stdexcept>

namespace berth::sqlconsole {

namespace fs = std::filesystem;

std::string exportDir(const std::string& data_dir) {
  const fs::path dir = fs::path(data_dir) / "sqlconsole" / "exports";
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) throw std::runtime_error("cannot make " + dir.string() + ": " + error.message());
  // Traversable (the edge's workers open files by name) but not listable.
  ::chmod(dir.parent_path().c_str(), 0711);
  ::chmod(dir.c_str(), 0711);
  return dir.string();
}

std::string newExportPath(const std::string& data_dir, const std::string& extension) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::random_device random;
  std::string name;
  for (int i = 0; i < 8; ++i) {
    const unsigned value = random() & 0xffff;
    for (int shift = 12; shift >= 0; shift -= 4) name.push_back(kHex[(value >> shift) & 15]);
  }
  return (fs::path(exportDir(data_dir)) / (name + extension)).string();
}

size_t sweepExports(const std::string& data_dir, std::chrono::seconds age) {
  const fs::path dir = fs::path(data_dir) / "sqlconsole" / "exports";
  std::error_code error;
  if (!fs::exists(dir, error)) return 0;
  const auto cutoff = fs::file_time_type::clock::now() - age;
  size_t removed = 0;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    std::error_code entry_error;
    const auto changed = fs::last_write_time(entry.path(), entry_error);
    if (entry_error || changed > cutoff) continue;
    if (fs::remove(entry.path(), entry_error)) ++removed;
  }
  return removed;
}

}  // namespace berth::sqlconsole
