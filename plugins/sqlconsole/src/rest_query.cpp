#include "rest_query.hpp"

#include <set>

#include "rest_filter.hpp"
#include "rest_order.hpp"
#include "rest_select.hpp"

namespace berth::sqlconsole {

bool isReservedRestKey(std::string_view key) {
  return key == "select" || key == "order" || key == "limit" || key == "offset" ||
         isLogicFilterKey(key);
}

RestQuery parseRestQuery(const RestParams& params, const RestLimits& limits) {
  RestQuery query;
  query.limit = limits.default_limit;
  // Giving select, order, limit or offset twice is refused rather than letting the last one
  // win silently: one of the two was not meant.
  std::set<std::string> seen;
  for (const auto& [key, value] : params) {
    if (isLogicFilterKey(key)) {
      query.filters.push_back(parseLogicFilter(key, value));
      continue;
    }
    if (!isReservedRestKey(key)) {
      query.filters.push_back(parseColumnFilter(key, value));
      continue;
    }
    if (!seen.insert(key).second) {
      throw RestSyntaxError(key + " is given twice; give it once");
    }
    if (key == "select") {
      query.select = parseSelect(value);
    } else if (key == "order") {
      query.order = parseOrder(value);
    } else if (key == "limit") {
      query.limit = parseLimit(value, limits);
    } else {
      query.offset = parseOffset(value);
    }
  }
  return query;
}

}  // namespace berth::sqlconsole
