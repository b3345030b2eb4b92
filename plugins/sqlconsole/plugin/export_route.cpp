// Not written yet: registers nothing.
#include "routes.hpp"

namespace berth::sqlconsole {

void registerExportRoute(berth::Registrar&, Context&) {}

}  // namespace berth::sqlconsole
