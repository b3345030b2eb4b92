// Where export files wait for the edge to send them: <data_dir>/sqlconsole/exports, a folder
// others may pass through but not list, files named with 128 random bits. berthd answers with
// the file's path and nginx opens it right away (X-Accel-Redirect) and keeps it open while it
// sends, so the file can go soon after: a job (every minute, and at start) deletes files older
// than kExportKeep.
#pragma once
#include <chrono>
#include <cstddef>
#include <string>

namespace berth::sqlconsole {

inline constexpr std::chrono::minutes kExportKeep{10};

// The folder under data_dir, made when missing. Throws std::runtime_error when it cannot be.
std::string exportDir(const std::string& data_dir);

// A new, unused path in that folder ending in extension (".sql.gz").
std::string newExportPath(const std::string& data_dir, const std::string& extension);

// Deletes files in the folder last changed more than `age` ago; returns how many.
size_t sweepExports(const std::string& data_dir, std::chrono::seconds age);

}  // namespace berth::sqlconsole
