// SPDX-License-Identifier: MIT
// The entry points of libberth_hello.so: id "hello", version, one line of description, kind,
// and no dependencies (their ids would follow the kind).
#include "hello_plugin.hpp"

BERTH_PLUGIN(berth::examples::HelloPlugin, "hello", "0.1.0",
             "the SDK's example: a greeting, an echo, visits and a tick", BERTH_KIND_FEATURE)
