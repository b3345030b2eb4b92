// Not written yet: registers nothing.
#include "routes.hpp"

namespace berth::sqlconsole {

void registerDataApiSettingsRoutes(berth::Registrar&, Context&) {}

}  // namespace berth::sqlconsole
