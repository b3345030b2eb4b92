// runtime.releases.v1 create: the gzip tar an upload would have sent, packed from a folder on
// this machine and files given in the request, so that the release is then taken, built and
// unpacked exactly as an uploaded one (same limits, same rules).
#pragma once
#include <berth/services/runtime_releases.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace berth::runtime {

// Writes to `out` (a new file, 0600) a gzip tar of every file and folder of `folder`, when set,
// then of `files` (one of the same path replaces the folder's). Files keep an execute bit as
// 0755, else 0644. Throws berth::Error: 400 "folder <path> is not a folder", 400 "folder <path>
// holds <entry>, a link, which a release cannot hold" (devices, fifos and sockets alike),
// 400 when a file of the folder cannot be read, 413 once the archive passes `max_bytes`.
// On a throw `out` may be left behind: the caller removes it.
void writeReleaseArchive(const std::string& out, const std::optional<std::string>& folder,
                         const std::vector<berth::runtime_releases::ReleaseFile>& files,
                         std::uint64_t max_bytes);

}  // namespace berth::runtime
