#include "regions.hpp"

namespace berth::projects {

const std::vector<Region>& regions() {
  static const std::vector<Region> all = {
      {"us-central", "US Central", "Chicago", "United States", "North America"},
      {"us-east", "US East", "Ashburn", "United States", "North America"},
      {"us-west", "US West", "San Jose", "United States", "North America"},
      {"ca-central", "Canada Central", "Montreal", "Canada", "North America"},
      {"sa-east", "South America East", "São Paulo", "Brazil", "South America"},
      {"eu-west", "Europe West", "Amsterdam", "Netherlands", "Europe"},
      {"eu-central", "Europe Central", "Frankfurt", "Germany", "Europe"},
      {"eu-north", "Europe North", "Stockholm", "Sweden", "Europe"},
      {"uk-south", "UK South", "London", "United Kingdom", "Europe"},
      {"ap-south", "Asia Pacific South", "Mumbai", "India", "Asia Pacific"},
      {"ap-southeast", "Asia Pacific Southeast", "Singapore", "Singapore", "Asia Pacific"},
      {"ap-northeast", "Asia Pacific Northeast", "Tokyo", "Japan", "Asia Pacific"},
      {"au-southeast", "Australia Southeast", "Sydney", "Australia", "Oceania"},
  };
  return all;
}

bool isRegion(std::string_view id) {
  for (const auto& r : regions())
    if (r.id == id) return true;
  return false;
}

nlohmann::json regionsJson() {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& r : regions())
    list.push_back({{"id", r.id},
                    {"name", r.name},
                    {"city", r.city},
                    {"country", r.country},
                    {"area", r.area}});
  return {{"regions", std::move(list)}, {"default", kDefaultRegion}};
}

}  // namespace berth::projects
