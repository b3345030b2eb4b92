// The key that seals project roles' database passwords when no secrets_key is configured: made
// once, kept in data_dir/projects/vault.key (0600), outside the database it protects.
#pragma once
#include <string>

namespace berth::projects {

// Reads or creates the key file; returns 64 hex characters. Throws std::runtime_error.
std::string loadOrCreateVaultKey(const std::string& data_dir);

}  // namespace berth::projects
