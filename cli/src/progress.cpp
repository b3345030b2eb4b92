#include "progress.hpp"

#include <cstdio>

namespace berth::client {

std::string formatBytes(uint64_t bytes) {
  char buf[32];
  if (bytes < 1024) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  } else if (bytes < 1024ull * 1024) {
    std::snprintf(buf, sizeof buf, "%.1f KB", bytes / 1024.0);
  } else if (bytes < 1024ull * 1024 * 1024) {
    std::snprintf(buf, sizeof buf, "%.1f MB", bytes / (1024.0 * 1024));
  } else {
    std::snprintf(buf, sizeof buf, "%.2f GB", bytes / (1024.0 * 1024 * 1024));
  }
  return buf;
}

void ProgressBar::update(uint64_t done, uint64_t total) {
  auto now = std::chrono::steady_clock::now();
  // At most ten redraws a second; the last one comes from finish().
  if (drawn_ && now - last_ < std::chrono::milliseconds(100) && done != total) return;
  last_ = now;
  drawn_ = true;
  constexpr int kWidth = 30;
  if (total > 0) {
    int filled = static_cast<int>(kWidth * (static_cast<double>(done) / total));
    if (filled > kWidth) filled = kWidth;
    std::string bar(filled, '#');
    bar += std::string(kWidth - filled, ' ');
    std::fprintf(stderr, "\r%s [%s] %3d%% %s / %s\x1b[K", label_.c_str(), bar.c_str(),
                 static_cast<int>(100.0 * done / total), formatBytes(done).c_str(),
                 formatBytes(total).c_str());
  } else {
    std::fprintf(stderr, "\r%s %s\x1b[K", label_.c_str(), formatBytes(done).c_str());
  }
  std::fflush(stderr);
}

void ProgressBar::finish(bool ok) {
  if (!drawn_) return;
  std::fprintf(stderr, ok ? "\n" : "\r\x1b[K");
  std::fflush(stderr);
}

}  // namespace berth::client
