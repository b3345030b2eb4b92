#include "data_api_grants.hpp"

namespace berth::sqlconsole {

void DataApiGrants::start(std::string database_url, berth::Logger logger) {
  kept_.start(std::move(database_url), std::move(logger),
              "data API settings are read on every request: cannot listen for their changes on "
              "the control-plane database");
}

}  // namespace berth::sqlconsole
