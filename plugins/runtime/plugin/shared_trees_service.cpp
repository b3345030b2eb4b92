// runtime.shared_trees.v1 `ensure` and `get` (<berth/services/runtime_shared_trees.hpp>): the
// shared trees of this node (src/shared_trees.*), built on threads of their own.
#include <berth/services/runtime_shared_trees.hpp>

#include "work_part.hpp"

namespace berth::runtime {

namespace {

namespace contract = berth::runtime_shared_trees;
using berth::Error;

SharedTrees& treesOf(WorkPart& part) {
  if (!part.trees()) throw Error::unavailable("the runtime has not started yet; try again shortly");
  return *part.trees();
}

}  // namespace

nlohmann::json ensureSharedTree(WorkPart& part, const nlohmann::json& request) {
  contract::EnsureRequest req = contract::parseEnsureRequest(request);
  // Never built unprotected.
  if (part.context().config.sandbox_refusal)
    throw Error::unavailable(*part.context().config.sandbox_refusal);
  return contract::toJson(treesOf(part).ensure(req));
}

nlohmann::json getSharedTree(WorkPart& part, const nlohmann::json& request) {
  const std::string name = contract::parseName(request);
  std::optional<contract::Tree> tree = treesOf(part).get(name);
  if (!tree) throw Error::notFound("no shared tree called " + name);
  return contract::toJson(*tree);
}

}  // namespace berth::runtime
