// Placeholder part, replaced by the gateway part (gateway.cpp and friends).
#include "parts.hpp"

namespace berth::runtime {

void registerGateway(berth::Registrar&, Context&) {}
void stopGateway(Context&) {}

}  // namespace berth::runtime
