// storage.backend: where blob bytes live. "local" (the default) keeps them under storage.root;
// "s3" keeps them in an S3-compatible bucket and uses storage.root for the local copies the
// edge sends. The storage_s3_* keys are declared and read here, so the plugin class only asks
// for "the backend".
#pragma once
#include <berth/plugin.hpp>

#include <memory>
#include <string>

#include "blob_backend.hpp"

namespace berth::storage {

void declareBackendConfig(berth::Registrar& r);

// The backend the configuration names, rooted at `root` (absolute, inside data_dir). For s3
// the bucket is listed once, so wrong settings stop the start with the store's answer.
// @throw berth::Error with a sentence naming the key (a credentials file other users can read,
// no credentials, a bad endpoint, a store that refuses).
std::unique_ptr<BlobBackend> makeBackend(const berth::Services& services, const std::string& root);

}  // namespace berth::storage
