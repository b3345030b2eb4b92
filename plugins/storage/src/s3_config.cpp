#include "s3_config.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace berth::storage {

namespace {

std::string trimmed(const std::string& text) {
  size_t start = text.find_first_not_of(" \t\r");
  if (start == std::string::npos) return "";
  size_t end = text.find_last_not_of(" \t\r");
  return text.substr(start, end - start + 1);
}

sigv4::Credentials fromFile(const std::string& path) {
  // Opened first and checked through the descriptor, so the file read is the file checked.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    throw std::runtime_error("storage.s3_credentials_file " + path +
                             " cannot be opened (it must exist and not be a symbolic link)");
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0;
  ::close(fd);
  if (!ok || !S_ISREG(st.st_mode))
    throw std::runtime_error("storage.s3_credentials_file " + path + " is not a regular file");
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    throw std::runtime_error("storage.s3_credentials_file " + path + " has mode " + mode +
                             ": other users could read the secret; make it 0600 (chmod 600 " +
                             path + ")");
  }
  std::ifstream in(path);
  sigv4::Credentials credentials;
  std::string line;
  std::string section;
  while (std::getline(in, line)) {
    line = trimmed(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[') {
      section = trimmed(line.substr(1, line.find(']') - 1));
      continue;
    }
    if (!section.empty() && section != "default") continue;
    size_t equals = line.find('=');
    if (equals == std::string::npos) continue;
    std::string name = trimmed(line.substr(0, equals));
    std::string value = trimmed(line.substr(equals + 1));
    if (name == "aws_access_key_id") credentials.access_key_id = value;
    if (name == "aws_secret_access_key") credentials.secret_access_key = value;
  }
  if (credentials.access_key_id.empty() || credentials.secret_access_key.empty())
    throw std::runtime_error("storage.s3_credentials_file " + path +
                             " must set aws_access_key_id and aws_secret_access_key");
  return credentials;
}

}  // namespace

sigv4::Credentials loadS3Credentials(const std::string& file) {
  if (!file.empty()) return fromFile(file);
  const char* id = std::getenv("AWS_ACCESS_KEY_ID");
  const char* secret = std::getenv("AWS_SECRET_ACCESS_KEY");
  if (id == nullptr || *id == '\0' || secret == nullptr || *secret == '\0')
    throw std::runtime_error(
        "storage.backend is s3 but no credentials were given: set AWS_ACCESS_KEY_ID and "
        "AWS_SECRET_ACCESS_KEY in berthd's environment, or storage.s3_credentials_file");
  return {id, secret};
}

void checkS3Settings(const S3Settings& s) {
  if (!(s.endpoint.starts_with("http://") || s.endpoint.starts_with("https://")) ||
      s.endpoint.find('/', s.endpoint.find("//") + 2) != std::string::npos)
    throw std::runtime_error(
        "storage.s3_endpoint must be http:// or https:// and a host, with no path (for "
        "example https://s3.eu-central-1.amazonaws.com or http://127.0.0.1:9000): got '" +
        s.endpoint + "'");
  bool bucket_ok = s.bucket.size() >= 3 && s.bucket.size() <= 63;
  for (char c : s.bucket)
    bucket_ok =
        bucket_ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.');
  if (!bucket_ok)
    throw std::runtime_error(
        "storage.s3_bucket must be 3 to 63 of [a-z0-9.-] (an existing bucket): got '" + s.bucket +
        "'");
  if (s.region.empty()) throw std::runtime_error("storage.s3_region must not be empty");
}

}  // namespace berth::storage
