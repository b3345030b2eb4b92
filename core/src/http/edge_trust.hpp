// What makes a request the edge's. berthd's backend listens on a loopback port any local
// process can reach; nginx adds a secret that is new at every start of berthd to every request
// it passes on (X-Berth-Edge-Proof), and the backend refuses a request without it before
// anything else. A second secret proves berthd's own requests through the edge (scheduled
// runs, for example) to the plugins that handle them; plugins read it as the core setting
// server.node_proof.
#pragma once
#include <string>
#include <string_view>

namespace berth::core {

// 32 random bytes (OpenSSL RAND_bytes) in hex, made at the first call and the same for the life
// of the process.
const std::string& edgeProof();
const std::string& nodeProof();

// Compares in constant time (CRYPTO_memcmp) when the lengths match; the length is no secret.
bool sameSecret(std::string_view given, std::string_view secret);

// The folder nginx spools request bodies to (client_body_temp_path): <data_dir>/edge/client_body.
std::string edgeBodyDir(const std::string& data_dir);

}  // namespace berth::core
