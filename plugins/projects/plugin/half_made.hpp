// Projects a crash left half-made. A row is 'creating' from its insert until its database and
// role exist, and 'deleting' from before the other plugins remove their parts until the row
// goes; neither is ever listed. A berthd killed in between leaves such a row, and perhaps the
// database, role or some plugins' parts. finishHalfMade undoes a half-created project and
// completes a half-deleted one.
#pragma once
#include <string>

#include "context.hpp"

namespace berth::projects {

// This berthd, as recorded in projects.made_by: "<host>:<data_dir>:<boot id>" (a new boot id at
// every start).
std::string thisBerthd(const Context& c);

// Rows left by an earlier run of this berthd (same host and data_dir, another boot) are
// finished at once; rows of any node once unchanged for ten minutes (that node may be gone).
// A 'creating' row: its database and role dropped, the row removed. A 'deleting' row: the
// other plugins' project.deleting hooks again (a refusal keeps the row for the next run), the
// database and role dropped, the row removed, project.deleted fired.
void finishHalfMade(const Context& c);

// A creation this berthd has under way, for as long as the object lives. A 'creating' row made
// by this berthd that is not under way was abandoned: its request failed while the control
// plane was unreachable (PostgreSQL down), so even its undo could not run.
class CreationUnderWay {
 public:
  explicit CreationUnderWay(std::string id);
  ~CreationUnderWay();
  CreationUnderWay(const CreationUnderWay&) = delete;
  CreationUnderWay& operator=(const CreationUnderWay&) = delete;

 private:
  std::string id_;
};

// Whether the 'creating' row `id`, made by `made_by`, is one this berthd abandoned (then a new
// creation of its name may undo it at once instead of waiting for the cleanup job).
bool abandonedHere(const Context& c, const std::string& id, const std::string& made_by);

// Undoes a half-created project: its database and role dropped, its row removed.
void undoHalfCreated(const Context& c, const std::string& id);

}  // namespace berth::projects
