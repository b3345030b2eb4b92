// The services the storage plugin offers other plugins: storage.blobs.v1 (the blob store;
// README.md documents every method) and storage.stats.v1 (files_count and files_bytes of
// projects), whose counts also answer the projects plugin's projects.view.v1 hook (the
// Project's files_count and files_bytes).
#pragma once
#include <berth/plugin.hpp>

#include "context.hpp"

namespace berth::storage {

void registerBlobService(berth::Registrar& r, Context& context);
void registerStatsService(berth::Registrar& r, Context& context);

}  // namespace berth::storage
