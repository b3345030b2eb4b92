// The fixed regions a project can be recorded in (docs/openapi.yaml, GET /regions and Region).
#pragma once
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace berth::projects {

struct Region {
  std::string_view id, name, city, country, area;
};

const std::vector<Region>& regions();
constexpr std::string_view kDefaultRegion = "us-central";
bool isRegion(std::string_view id);
nlohmann::json regionsJson();  // {regions: [...], default: "us-central"}

}  // namespace berth::projects
