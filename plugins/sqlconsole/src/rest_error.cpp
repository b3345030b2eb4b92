#include "rest_error.hpp"

namespace berth::sqlconsole {

std::string describeRestProblem(const RestOrigin& origin, std::string_view problem,
                                std::string_view advice) {
  std::string message(problem);
  message += " at character " + std::to_string(origin.character) + " of " + origin.param;
  if (!advice.empty()) {
    message += "; ";
    message += advice;
  }
  return message;
}

}  // namespace berth::sqlconsole
