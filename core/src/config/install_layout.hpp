// Where berthd finds what was built or installed beside it: the plugins, and the shared files
// (the API's reference, plugins' payloads). A berthd in its build tree uses the build tree; an
// installed one (<prefix>/bin/berthd, cmake --install) uses <prefix>/lib/berth and
// <prefix>/share/berth, wherever the prefix was moved.
#pragma once
#include <string>

namespace berth::core {

std::string defaultPluginDir();
std::string defaultShareDir();

}  // namespace berth::core
