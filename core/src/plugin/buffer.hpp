// The core-owned byte buffer behind berth_buffer: plugins append answers to it, the core reads.
#pragma once
#include <string>

#include <berth/abi.h>

struct berth_buffer {
  std::string bytes;
};
