#include "backend_choice.hpp"

#include "local_backend.hpp"
#include "s3_backend.hpp"

namespace berth::storage {

void declareBackendConfig(berth::Registrar& r) {
  r.configString("backend", "local",
                 "where blob bytes live: local (files under root) or s3 (an S3-compatible "
                 "bucket, with local copies under root for the edge)");
  r.configString("s3_endpoint", "",
                 "backend s3: the store's URL, http(s)://host[:port] without a path");
  r.configString("s3_bucket", "", "backend s3: the bucket (it must exist)");
  r.configString("s3_region", "us-east-1", "backend s3: the region requests are signed for");
  r.configBool("s3_path_style", true,
               "backend s3: <endpoint>/<bucket>/<key> URLs (MinIO, Garage, Ceph RGW); false for "
               "virtual-hosted <bucket>.<host> URLs (AWS S3)");
  r.configString("s3_credentials_file", "",
                 "backend s3: an AWS credentials file of mode 0600; empty: AWS_ACCESS_KEY_ID "
                 "and AWS_SECRET_ACCESS_KEY from berthd's environment");
  r.configInt("s3_timeout_seconds", 30,
              "backend s3: a request that connects no faster, or moves no data for this long, "
              "has failed (502)",
              berth::IntRange{1, 3600});
  r.configInt("s3_cache_mb", 1024,
              "backend s3: the most megabytes of local copies kept for the edge under "
              "<root>/cache (1 to 16777216); past it the least recently used are removed and "
              "fetched again when next read",
              berth::IntRange{1, 16777216});
}

std::unique_ptr<BlobBackend> makeBackend(const berth::Services& services, const std::string& root) {
  std::string kind = services.configValue<std::string>("backend");
  if (kind == "local") return std::make_unique<LocalBackend>(root);
  if (kind != "s3") throw berth::Error("storage.backend must be local or s3, not '" + kind + "'");
  S3Settings settings;
  settings.endpoint = services.configValue<std::string>("s3_endpoint");
  settings.bucket = services.configValue<std::string>("s3_bucket");
  settings.region = services.configValue<std::string>("s3_region");
  settings.path_style = services.configValue<bool>("s3_path_style");
  settings.connect_timeout_seconds = services.configValue<int64_t>("s3_timeout_seconds");
  settings.stall_seconds = settings.connect_timeout_seconds;
  try {
    checkS3Settings(settings);
    settings.credentials =
        loadS3Credentials(services.configValue<std::string>("s3_credentials_file"));
  } catch (const std::runtime_error& e) {
    throw berth::Error(std::string("storage: ") + e.what());
  }
  std::string where = settings.endpoint + " bucket " + settings.bucket;
  uint64_t cache_bytes = static_cast<uint64_t>(services.configValue<int64_t>("s3_cache_mb")) << 20;
  auto backend = std::make_unique<S3Backend>(std::move(settings), root, cache_bytes);
  try {
    backend->probe();
  } catch (const BackendError& e) {
    throw berth::Error(
        "storage: the S3 store (storage.s3_endpoint, s3_bucket) did not answer a "
        "listing of the bucket: " +
        std::string(e.what()));
  }
  services.logger().info("blobs are kept in S3 at " + where + "; local copies for the edge under " +
                         root + "/cache (" + std::to_string(backend->cachedCopies()) + " copies, " +
                         std::to_string(backend->cachedBytes() >> 20) + " of at most " +
                         std::to_string(cache_bytes >> 20) + " MB)");
  return backend;
}

}  // namespace berth::storage
