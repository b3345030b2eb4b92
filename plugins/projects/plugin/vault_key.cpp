#include "vault_key.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "random_text.hpp"
#include "secret_box.hpp"

namespace berth::projects {

std::string loadOrCreateVaultKey(const std::string& data_dir) {
  const std::string dir = data_dir + "/projects";
  const std::string path = dir + "/vault.key";
  std::filesystem::create_directories(dir);
  {
    std::ifstream in(path);
    std::string key;
    if (in >> key) {
      if (!isSecretsKey(key)) throw std::runtime_error(path + " does not hold a 64-hex-digit key");
      return key;
    }
  }
  std::string key = randomHexKey(32);
  // O_EXCL: when two nodes share data_dir, the first key written wins and the other reads it.
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return loadOrCreateVaultKey(data_dir);
  std::string line = key + "\n";
  bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ok = ::fsync(fd) == 0 && ok;
  ::close(fd);
  if (!ok) throw std::runtime_error("cannot write " + path);
  return key;
}

}  // namespace berth::projects
