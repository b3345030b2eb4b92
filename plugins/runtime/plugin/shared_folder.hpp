// The runtime's shared folder (runtime.shared_dir, default <data_dir>/shared): what projects
// may be shown read-only beside their own release, such as the shared trees of
// runtime.shared_trees.v1 and the folders a project's start options name (runtime.apps.v1).
#pragma once
#include <optional>
#include <string>

namespace berth::runtime {

// The configured shared_dir made absolute (relative to data_dir; empty: <data_dir>/shared),
// without a trailing "/", and made (0755: every project's uid passes through it) when missing.
// @throw berth::Error when it cannot be made.
std::string sharedDir(const std::string& data_dir, const std::string& configured);

// Whether `path` may be shown read-only to a project: absolute and normalized (no ".", ".."
// or empty parts, no trailing "/"), strictly under `shared_dir`, not under one of its hidden
// folders (".building", ".home": the runtime's own work), an existing folder, and no link on
// the way below shared_dir (bubblewrap follows links: one could lead anywhere).
bool sharedFolderOk(const std::string& path, const std::string& shared_dir);

}  // namespace berth::runtime
