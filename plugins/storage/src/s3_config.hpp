// The S3 backend's settings (storage.s3_* in berth.yaml) and where its credentials come from:
// the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) or a file only its owner can read.
#pragma once
#include <string>

#include "s3_signer.hpp"

namespace berth::storage {

struct S3Settings {
  std::string endpoint;  // http(s)://host[:port], no path
  std::string bucket;
  std::string region = "us-east-1";
  // Path style: <endpoint>/<bucket>/<object> (MinIO, Garage, Ceph, s3rver); otherwise
  // virtual-hosted style: <scheme>://<bucket>.<host>/<object> (AWS S3, R2).
  bool path_style = true;
  sigv4::Credentials credentials;
  long connect_timeout_seconds = 5;
  // A transfer slower than 1 KB/s for this long is abandoned (a store that stopped answering).
  long stall_seconds = 30;
};

// Reads the credentials: from `file` when it is not empty, else from the environment.
// The file is an AWS shared-credentials file (`aws_access_key_id = ...` and
// `aws_secret_access_key = ...`, in [default] or before any section) that must be a regular
// file of mode 0600 or 0400 (no group or other bits).
// @throw std::runtime_error with a sentence for the operator.
sigv4::Credentials loadS3Credentials(const std::string& file);

// Checks the endpoint, bucket and region. @throw std::runtime_error naming the key.
void checkS3Settings(const S3Settings& settings);

}  // namespace berth::storage
