// The releases the soak deploys (gzip tars built in memory): a static site, a Node app and a
// PHP app, each answering with a marker (soak-static, soak-node, soak-php) and the release's
// version, so that an answer from the wrong app or a stale release shows.
#pragma once
#include <string>

namespace berth::soak {

std::string staticSite(int version);
std::string nodeApp(int version);
std::string phpApp(int version);

}  // namespace berth::soak
