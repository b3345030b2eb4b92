// Not written yet: registers nothing.
#include "routes.hpp"

namespace berth::sqlconsole {

void registerImportRoute(berth::Registrar&, Context&) {}

}  // namespace berth::sqlconsole
